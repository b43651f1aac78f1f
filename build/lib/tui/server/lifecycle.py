"""Time-driven behaviour: sandboxes that start, start tasks that advance to READY.

Why lazy: instead of background tasks, every pending change is stored with the clock time
it is due, and :meth:`Lifecycle.advance` applies whatever is due before a control-plane
request is answered. The outcome depends only on the injected ``clock`` and the delays, so
tests are deterministic (pass a fake clock, or delays of 0) and nothing runs between
requests. Start tasks and their statuses are ``start_tasks.py``.

Tests change sandboxes "elsewhere" (as another client or the operator would) by calling
:meth:`Lifecycle.pause_sandbox`, :meth:`~Lifecycle.resume_sandbox` or
:meth:`~Lifecycle.delete_sandbox` directly (``server.app.state.lifecycle``, any thread):
the live agent runs follow, and the next read shows it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from tui.models import SandboxStatus

from .demo.conversation_builder import ConversationBuilder
from .demo.ids import SeededIds
from .errors import LifecycleError
from .start_tasks import DEFAULT_MODEL, Phases, StartTasks
from .store import Store
from .times import utc_from_clock

__all__ = ["DEFAULT_MODEL", "Lifecycle", "LifecycleError"]


class Lifecycle:
    """Control-plane operations over a :class:`Store`, with a pluggable clock.

    ``start_delay``, ``start_phases``, ``ignore_start_title``, ``start_failure``: how start
    tasks go (:class:`~tui.server.start_tasks.StartTasks`, on ``self.tasks``).
    """

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        start_delay: float = 1.0,
        sandbox_start_delay: float = 0.5,
        resume_delay: float = 0.0,
        start_phases: Phases | None = None,
        ignore_start_title: bool = False,
        start_failure: tuple[str, str] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.sandbox_start_delay = max(0.0, sandbox_start_delay)
        self.resume_delay = max(0.0, resume_delay)
        self._ids = SeededIds(random.SystemRandom())
        #: ``listener(kind, subject_id, **data)`` callbacks for changes the live agent runs
        #: must follow: ``sandbox_paused``, ``sandbox_running``, ``sandbox_deleted``,
        #: ``conversation_started`` (``run=``). Called on whatever thread made the change,
        #: possibly inside a store transaction: listeners must only hand the news over
        #: (``loop.call_soon_threadsafe``), never block or wait.
        self.listeners: list[Callable[..., None]] = []
        self.tasks = StartTasks(
            self,
            start_delay=start_delay,
            phases=start_phases,
            ignore_title=ignore_start_title,
            failure=start_failure,
        )

    def notify(self, kind: str, subject_id: str, **data: Any) -> None:
        for listener in list(self.listeners):
            listener(kind, subject_id, **data)

    # -- applying due changes ---------------------------------------------------------------

    def advance(self) -> None:
        """Apply every transition that is due by now."""
        now = self.clock()
        if not self.store.has_pending(now):
            return  # the common case: no write transaction at all
        with self.store.transaction():  # re-read under the lock: concurrent calls serialise
            for sandbox in self.store.due_sandboxes(now):
                self.store.update_sandbox(
                    sandbox["id"], status=sandbox["due_status"], due_status=None, due_at=None
                )
                if sandbox["due_status"] == SandboxStatus.RUNNING.value:
                    self.notify("sandbox_running", sandbox["id"])
            for task, created in self.store.pending_tasks():
                self.tasks.advance(task, created, now)

    def start_conversation(self, request: dict[str, Any]) -> dict[str, Any]:
        """Create a start task (status WORKING); it advances on later :meth:`advance` calls."""
        return self.tasks.start(request)

    # -- sandboxes --------------------------------------------------------------------------

    def new_sandbox(self, spec_id: str | None, at: float, status: SandboxStatus) -> dict[str, Any]:
        if spec_id is None:
            raise LifecycleError(404, "No sandbox spec available")
        sandbox = {
            "id": self._ids.sandbox_id(),
            "created_at": utc_from_clock(at),
            "created_by_user_id": None,
            "sandbox_spec_id": spec_id,
            "status": status.value,
            "session_api_key": self._ids.session_key(),
            "status_detail": None,
            "port": self.store.next_sandbox_port(),
            "due_status": None,
            "due_at": None,
        }
        self.store.put_sandbox(sandbox)
        return sandbox

    def start_sandbox(self, spec_id: str | None) -> dict[str, Any]:
        """A new STARTING sandbox that becomes RUNNING after ``sandbox_start_delay``."""
        if spec_id is not None and self.store.get_specs([spec_id])[0] is None:
            raise LifecycleError(404, f"Sandbox spec not found: {spec_id}")
        now = self.clock()
        sandbox = self.new_sandbox(
            spec_id or self.store.default_spec_id(), now, SandboxStatus.STARTING
        )
        self.store.update_sandbox(
            sandbox["id"],
            due_status=SandboxStatus.RUNNING.value,
            due_at=now + self.sandbox_start_delay,
        )
        return self.store.get_sandbox(sandbox["id"]) or sandbox

    def pause_sandbox(self, sandbox_id: str) -> None:
        sandbox = self._require_sandbox(sandbox_id)
        if sandbox["status"] in (SandboxStatus.RUNNING.value, SandboxStatus.STARTING.value):
            self.store.update_sandbox(
                sandbox_id, status=SandboxStatus.PAUSED.value, due_status=None, due_at=None
            )
            self.notify("sandbox_paused", sandbox_id)

    def resume_sandbox(self, sandbox_id: str) -> None:
        sandbox = self._require_sandbox(sandbox_id)
        if sandbox["status"] in (SandboxStatus.PAUSED.value, SandboxStatus.ERROR.value):
            if self.resume_delay > 0:
                self.store.update_sandbox(
                    sandbox_id,
                    status=SandboxStatus.STARTING.value,
                    status_detail=None,
                    due_status=SandboxStatus.RUNNING.value,
                    due_at=self.clock() + self.resume_delay,
                )
            else:
                self.store.update_sandbox(
                    sandbox_id,
                    status=SandboxStatus.RUNNING.value,
                    status_detail=None,
                    due_status=None,
                    due_at=None,
                )
                self.notify("sandbox_running", sandbox_id)

    def delete_sandbox(self, sandbox_id: str) -> None:
        if not self.store.delete_sandbox(sandbox_id):
            raise LifecycleError(404, f"Sandbox not found: {sandbox_id}")
        self.notify("sandbox_deleted", sandbox_id)

    def _require_sandbox(self, sandbox_id: str) -> dict[str, Any]:
        sandbox = self.store.get_sandbox(sandbox_id)
        if sandbox is None:
            raise LifecycleError(404, f"Sandbox not found: {sandbox_id}")
        return sandbox

    # -- messages ---------------------------------------------------------------------------

    def send_message(self, conversation_id: str, content: list[dict[str, Any]]) -> str:
        """Append a user MessageEvent under the conversation's newest viewable event.

        There is no agent here: the message is logged and nothing answers it. The routes
        use this only when the live hub (``live/``) is not running in an event loop; with
        it, messages go through the hub so websocket subscribers see them and the agent runs.
        """
        info = self.store.get_conversation(conversation_id)
        if info is None:
            raise LifecycleError(404, f"Conversation not found: {conversation_id}")
        sandbox = self.store.get_sandbox(info.get("sandbox_id") or "")
        status = sandbox["status"] if sandbox else SandboxStatus.MISSING.value
        if status != SandboxStatus.RUNNING.value:
            raise LifecycleError(409, f"Sandbox is not running (status {status}); resume it first")
        now = self.clock()
        builder = ConversationBuilder(
            random.Random(f"{conversation_id}:{now}"),
            datetime.fromtimestamp(now),
            conversation_id=conversation_id,
        )
        builder.head = self.store.head_event_id(conversation_id) or builder.head
        event_id = builder.emit(
            "MessageEvent",
            {
                "llm_message": {"role": "user", "content": content},
                "activated_skills": [],
                "extended_content": [],
            },
            source="user",
        )
        builder.state("last_user_message_id", event_id)
        try:
            self.store.append_events(conversation_id, builder.events, strict=True)
        except ValueError as exc:
            raise LifecycleError(422, f"Invalid message: {exc}") from None
        info["updated_at"] = utc_from_clock(now)
        self.store.put_conversation(info)
        return event_id
