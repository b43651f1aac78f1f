"""Time-driven behaviour: sandboxes that start, start tasks that advance to READY.

Why lazy: instead of background tasks, every pending change is stored with the clock time
it is due, and :meth:`Lifecycle.advance` applies whatever is due before a control-plane
request is answered. The outcome depends only on the injected ``clock`` and the delays, so
tests are deterministic (pass a fake clock, or delays of 0) and nothing runs between
requests.

Start task flow (facts §2): WORKING → WAITING_FOR_SANDBOX → STARTING_CONVERSATION → READY,
one third of ``start_delay`` each. Entering WAITING_FOR_SANDBOX creates a STARTING sandbox
(or resumes the requested one); STARTING_CONVERSATION makes it RUNNING and names it on the
task; READY creates the app conversation with its SystemPromptEvent and, when the request
had an ``initial_message``, the user's MessageEvent.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from tui.models import SandboxStatus, StartTaskStatus

from .demo.conversation_builder import ConversationBuilder
from .demo.ids import SeededIds
from .store import Store
from .times import utc_from_clock
from .views import conversation_info

_PHASES = (
    StartTaskStatus.WORKING.value,
    StartTaskStatus.WAITING_FOR_SANDBOX.value,
    StartTaskStatus.STARTING_CONVERSATION.value,
    StartTaskStatus.READY.value,
)
DEFAULT_MODEL = "litellm_proxy/claude-sonnet-4-5"


class LifecycleError(Exception):
    """A control operation that cannot be done; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class Lifecycle:
    """Control-plane operations over a :class:`Store`, with a pluggable clock."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        start_delay: float = 1.0,
        sandbox_start_delay: float = 0.5,
        resume_delay: float = 0.0,
    ) -> None:
        self.store = store
        self.clock = clock
        self.start_delay = max(0.0, start_delay)
        self.sandbox_start_delay = max(0.0, sandbox_start_delay)
        self.resume_delay = max(0.0, resume_delay)
        self._ids = SeededIds(random.SystemRandom())
        #: ``listener(kind, subject_id, **data)`` callbacks for changes the live agent runs
        #: must follow: ``sandbox_paused``, ``sandbox_running``, ``sandbox_deleted``,
        #: ``conversation_started`` (``run=``). Called on whatever thread made the change,
        #: possibly inside a store transaction: listeners must only hand the news over
        #: (``loop.call_soon_threadsafe``), never block or wait.
        self.listeners: list[Callable[..., None]] = []

    def _notify(self, kind: str, subject_id: str, **data: Any) -> None:
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
                    self._notify("sandbox_running", sandbox["id"])
            for task, created in self.store.pending_tasks():
                self._advance_task(task, created, now)

    def _advance_task(self, task: dict[str, Any], created: float, now: float) -> None:
        step = self.start_delay / (len(_PHASES) - 1)
        target = (
            len(_PHASES) - 1 if step <= 0 else min(len(_PHASES) - 1, int((now - created) / step))
        )
        current = _PHASES.index(task["status"]) if task["status"] in _PHASES else 0
        if target <= current:
            return
        for phase in range(current + 1, target + 1):
            at = created + phase * step
            task["status"] = _PHASES[phase]
            task["updated_at"] = utc_from_clock(at)
            try:
                self._enter_phase(task, _PHASES[phase], at)
            except LifecycleError as exc:
                task["status"] = StartTaskStatus.ERROR.value
                task["detail"] = exc.detail
                break
        self.store.put_task(task, created_clock=created)

    def _enter_phase(self, task: dict[str, Any], phase: str, at: float) -> None:
        request = task.get("request") or {}
        if phase == StartTaskStatus.WAITING_FOR_SANDBOX.value:
            wanted = request.get("sandbox_id")
            if wanted:
                sandbox = self.store.get_sandbox(wanted)
                if sandbox is None:
                    raise LifecycleError(404, f"Sandbox not found: {wanted}")
                if sandbox["status"] == SandboxStatus.ERROR.value:
                    raise LifecycleError(503, f"Sandbox is in ERROR state: {wanted}")
                task["_sandbox_id"] = wanted
            else:
                sandbox = self._new_sandbox(
                    self.store.default_spec_id(), at, SandboxStatus.STARTING
                )
                task["_sandbox_id"] = sandbox["id"]
        elif phase == StartTaskStatus.STARTING_CONVERSATION.value:
            sandbox_id = task.pop("_sandbox_id", None) or request.get("sandbox_id")
            sandbox = self.store.get_sandbox(sandbox_id) if sandbox_id else None
            if sandbox is None:
                raise LifecycleError(404, f"Sandbox not found: {sandbox_id}")
            self.store.update_sandbox(
                sandbox_id, status=SandboxStatus.RUNNING.value, due_status=None, due_at=None
            )
            task["sandbox_id"] = sandbox_id
            task["agent_server_url"] = f"http://localhost:{sandbox['port']}"
        elif phase == StartTaskStatus.READY.value:
            task["app_conversation_id"] = self._create_conversation(task, at)

    def _create_conversation(self, task: dict[str, Any], at: float) -> str:
        request = task.get("request") or {}
        conversation_id = _hex_or_none(request.get("conversation_id")) or uuid.uuid4().hex
        builder = ConversationBuilder(
            random.Random(conversation_id),
            datetime.fromtimestamp(at),
            conversation_id=conversation_id,
            model=request.get("llm_model") or DEFAULT_MODEL,
        )
        builder.system_prompt(dynamic_context=request.get("system_message_suffix"))
        message = request.get("initial_message")
        if message:
            event_id = builder.emit(
                "MessageEvent",
                {
                    "llm_message": {"role": "user", "content": message.get("content") or []},
                    "activated_skills": [],
                    "extended_content": [],
                },
                source="user",
            )
            builder.state("last_user_message_id", event_id)
        builder.status("idle")
        try:
            self.store.append_events(conversation_id, builder.events, strict=True)
        except ValueError as exc:
            raise LifecycleError(422, f"Invalid initial message: {exc}") from None
        first_text = _first_text(message)
        stamp = utc_from_clock(at)
        run = bool(message and message.get("run"))
        self.store.put_conversation(
            conversation_info(
                id=conversation_id,
                sandbox_id=task["sandbox_id"],
                selected_repository=request.get("selected_repository"),
                selected_branch=request.get("selected_branch"),
                git_provider=request.get("git_provider"),
                title=request.get("title")
                or (first_text[:60] if first_text else None)
                or f"Conversation {conversation_id[:5]}",
                trigger=request.get("trigger"),
                pr_number=list(request.get("pr_number") or []),
                llm_model=request.get("llm_model") or DEFAULT_MODEL,
                metrics=None,
                parent_conversation_id=_hex_or_none(request.get("parent_conversation_id")),
                public=request.get("public"),
                created_at=stamp,
                updated_at=stamp,
                execution_status="idle",
            )
        )
        self._notify("conversation_started", conversation_id, run=run)
        return conversation_id

    # -- start tasks ------------------------------------------------------------------------

    def start_conversation(self, request: dict[str, Any]) -> dict[str, Any]:
        """Create a start task (status WORKING); it advances on later :meth:`advance` calls."""
        now = self.clock()
        stamp = utc_from_clock(now)
        task = {
            "id": uuid.uuid4().hex,
            "created_by_user_id": None,
            "status": StartTaskStatus.WORKING.value,
            "detail": None,
            "app_conversation_id": None,
            "sandbox_id": None,
            "agent_server_url": None,
            "request": request,
            "created_at": stamp,
            "updated_at": stamp,
        }
        self.store.put_task(task, created_clock=now)
        return task

    # -- sandboxes --------------------------------------------------------------------------

    def _new_sandbox(self, spec_id: str | None, at: float, status: SandboxStatus) -> dict[str, Any]:
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
        sandbox = self._new_sandbox(
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
            self._notify("sandbox_paused", sandbox_id)

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
                self._notify("sandbox_running", sandbox_id)

    def delete_sandbox(self, sandbox_id: str) -> None:
        if not self.store.delete_sandbox(sandbox_id):
            raise LifecycleError(404, f"Sandbox not found: {sandbox_id}")
        self._notify("sandbox_deleted", sandbox_id)

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


def _hex_or_none(value: Any) -> str | None:
    if not value:
        return None
    try:
        return uuid.UUID(str(value)).hex
    except ValueError:
        return None


def _first_text(message: dict[str, Any] | None) -> str | None:
    for item in (message or {}).get("content") or []:
        if isinstance(item, dict) and item.get("type") == "text" and item.get("text"):
            return str(item["text"]).strip().splitlines()[0] if str(item["text"]).strip() else None
    return None
