"""Conversation start tasks: the statuses a start goes through, and what each one does.

The real app server (openhands-ai 1.11.0, facts §10) goes WORKING → WAITING_FOR_SANDBOX →
PREPARING_REPOSITORY → RUNNING_SETUP_SCRIPT → SETTING_UP_SKILLS → STARTING_CONVERSATION →
READY, or ERROR with a ``detail``; waiting for a new sandbox takes most of it (26–29 s).
By default this server takes a shorter path (WORKING → WAITING_FOR_SANDBOX →
STARTING_CONVERSATION → READY over ``start_delay`` seconds); ``start_phases`` gives any path
with its own durations (:data:`REAL_START_STATUSES`, :func:`real_start_phases`).

Like the sandboxes, a task advances lazily: :meth:`StartTasks.advance` applies what is due
by the clock before a control-plane request is answered.

What each status does, whatever the path: entering WAITING_FOR_SANDBOX creates a STARTING
sandbox (or takes the requested one); the next status makes it RUNNING and names it on the
task; READY creates the conversation (SystemPromptEvent, and the user's MessageEvent when
the request had an ``initial_message``).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tui.models import SandboxStatus, StartTaskStatus

from .demo.conversation_builder import ConversationBuilder
from .errors import LifecycleError
from .times import utc_from_clock
from .views import conversation_info

if TYPE_CHECKING:
    from .lifecycle import Lifecycle

S = StartTaskStatus
READY, ERROR = S.READY.value, S.ERROR.value

#: The default, short path (``start_delay`` split evenly over the first three).
SHORT_START_STATUSES = (S.WORKING.value, S.WAITING_FOR_SANDBOX.value, S.STARTING_CONVERSATION.value)

#: Every status the real app server reports before READY, in order.
REAL_START_STATUSES = (
    S.WORKING.value,
    S.WAITING_FOR_SANDBOX.value,
    S.PREPARING_REPOSITORY.value,
    S.RUNNING_SETUP_SCRIPT.value,
    S.SETTING_UP_SKILLS.value,
    S.STARTING_CONVERSATION.value,
)

DEFAULT_MODEL = "litellm_proxy/claude-sonnet-4-5"

#: ``(status, seconds in it)`` for each status before READY.
Phases = Sequence[tuple[str, float]]


def real_start_phases(total: float, sandbox_share: float = 0.8) -> list[tuple[str, float]]:
    """The real path over ``total`` seconds, waiting for the sandbox taking ``sandbox_share``
    of it (as it does for real: ~26 of ~29 s)."""
    rest = total * (1 - sandbox_share) / (len(REAL_START_STATUSES) - 1)
    return [
        (status, total * sandbox_share if status == S.WAITING_FOR_SANDBOX.value else rest)
        for status in REAL_START_STATUSES
    ]


def check_phases(phases: Phases) -> list[tuple[str, float]]:
    known = {s.value for s in S} - {READY, ERROR}
    out = []
    for status, seconds in phases:
        if status not in known:
            raise ValueError(f"not a start task status before READY: {status!r}")
        out.append((status, max(0.0, float(seconds))))
    if not out or out[0][0] != S.WORKING.value:
        raise ValueError("start phases begin with WORKING")
    if S.WAITING_FOR_SANDBOX.value not in [status for status, _ in out]:
        raise ValueError("start phases need WAITING_FOR_SANDBOX (it makes the sandbox)")
    return out


class StartTasks:
    """Start tasks over the lifecycle's store and sandboxes.

    - ``phases``: the path and its durations (default: the short path over ``start_delay``);
    - ``ignore_title``: the title sent at creation is ignored and the conversation is called
      "Conversation xxxxx", as on the real app server (a PATCH can set it afterwards);
    - ``failure``: ``(status, detail)``: every task goes ERROR with ``detail`` on reaching
      ``status`` (``fail_next`` does it for the next task only).
    """

    def __init__(
        self,
        lifecycle: Lifecycle,
        *,
        start_delay: float = 1.0,
        phases: Phases | None = None,
        ignore_title: bool = False,
        failure: tuple[str, str] | None = None,
    ) -> None:
        self.lifecycle = lifecycle
        self.store = lifecycle.store
        if phases is None:
            step = max(0.0, start_delay) / len(SHORT_START_STATUSES)
            phases = [(status, step) for status in SHORT_START_STATUSES]
        self.phases = check_phases(phases)
        self.ignore_title = ignore_title
        self.failure = failure
        self._fail_next: list[tuple[str, str]] = []

    @property
    def clock(self) -> Callable[[], float]:
        return self.lifecycle.clock

    def fail_next(self, status: str, detail: str) -> None:
        """The next task started goes ERROR with ``detail`` when it reaches ``status``."""
        if status not in [s for s, _ in self.phases] + [READY]:
            raise ValueError(f"{status!r} is not on this server's start path")
        self._fail_next.append((status, detail))

    # -- creating and advancing ---------------------------------------------------------------

    def start(self, request: dict[str, Any]) -> dict[str, Any]:
        """A new task at WORKING; it advances on later :meth:`advance` calls."""
        now = self.clock()
        stamp = utc_from_clock(now)
        task = {
            "id": uuid.uuid4().hex,
            "created_by_user_id": None,
            "status": S.WORKING.value,
            "detail": None,
            "app_conversation_id": None,
            "sandbox_id": None,
            "agent_server_url": None,
            "request": request,
            "created_at": stamp,
            "updated_at": stamp,
        }
        failure = self._fail_next.pop(0) if self._fail_next else self.failure
        if failure is not None:
            task["_fail"] = list(failure)
        self.store.put_task(task, created_clock=now)
        return task

    def advance(self, task: dict[str, Any], created: float, now: float) -> None:
        """Move ``task`` through every status due by ``now``."""
        path = [status for status, _ in self.phases] + [READY]
        current = path.index(task["status"]) if task["status"] in path else 0
        at = created + sum(seconds for _, seconds in self.phases[: current + 1])
        changed = False
        while current + 1 < len(path) and at <= now:
            current += 1
            status = path[current]
            task["status"], task["updated_at"] = status, utc_from_clock(at)
            changed = True
            try:
                self._enter(task, status, at)
            except LifecycleError as exc:
                task["status"], task["detail"] = ERROR, exc.detail
                task.pop("_sandbox_id", None)
                break
            if current < len(self.phases):
                at += self.phases[current][1]
        if changed:
            self.store.put_task(task, created_clock=created)

    def _enter(self, task: dict[str, Any], status: str, at: float) -> None:
        failure = task.get("_fail")
        if failure and failure[0] == status:
            del task["_fail"]
            raise LifecycleError(500, failure[1])
        request = task.get("request") or {}
        if status == S.WAITING_FOR_SANDBOX.value:
            task["_sandbox_id"] = self._sandbox_for(request, at)
        elif "_sandbox_id" in task:  # the first status after the wait: the sandbox is up
            sandbox_id = task.pop("_sandbox_id")
            sandbox = self.store.get_sandbox(sandbox_id)
            if sandbox is None:
                raise LifecycleError(404, f"Sandbox not found: {sandbox_id}")
            if sandbox["status"] != SandboxStatus.RUNNING.value:
                self.store.update_sandbox(
                    sandbox_id, status=SandboxStatus.RUNNING.value, due_status=None, due_at=None
                )
                self.lifecycle.notify("sandbox_running", sandbox_id)
            task["sandbox_id"] = sandbox_id
            task["agent_server_url"] = f"http://localhost:{sandbox['port']}"
        if status == READY:
            task["app_conversation_id"] = self.create_conversation(task, at)

    def _sandbox_for(self, request: dict[str, Any], at: float) -> str:
        wanted = request.get("sandbox_id")
        if not wanted:
            spec = self.store.default_spec_id()
            return self.lifecycle.new_sandbox(spec, at, SandboxStatus.STARTING)["id"]
        sandbox = self.store.get_sandbox(wanted)
        if sandbox is None:
            raise LifecycleError(404, f"Sandbox not found: {wanted}")
        if sandbox["status"] == SandboxStatus.ERROR.value:
            raise LifecycleError(503, f"Sandbox is in ERROR state: {wanted}")
        return wanted

    # -- the conversation ---------------------------------------------------------------------

    def create_conversation(self, task: dict[str, Any], at: float) -> str:
        """The conversation a READY task names (``task``: ``sandbox_id`` and ``request``);
        also how a bare agent server's start creates one (``routes_agent_server.py``)."""
        request = task.get("request") or {}
        conversation_id = hex_or_none(request.get("conversation_id")) or uuid.uuid4().hex
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
        stamp = utc_from_clock(at)
        self.store.put_conversation(
            conversation_info(
                id=conversation_id,
                sandbox_id=task["sandbox_id"],
                selected_repository=request.get("selected_repository"),
                selected_branch=request.get("selected_branch"),
                git_provider=request.get("git_provider"),
                title=self._title(request, conversation_id),
                trigger=request.get("trigger"),
                pr_number=list(request.get("pr_number") or []),
                llm_model=request.get("llm_model") or DEFAULT_MODEL,
                metrics=None,
                parent_conversation_id=hex_or_none(request.get("parent_conversation_id")),
                public=request.get("public"),
                created_at=stamp,
                updated_at=stamp,
                execution_status="idle",
            )
        )
        run = bool(message and message.get("run"))
        self.lifecycle.notify("conversation_started", conversation_id, run=run)
        return conversation_id

    def _title(self, request: dict[str, Any], conversation_id: str) -> str:
        fallback = f"Conversation {conversation_id[:5]}"
        if self.ignore_title:
            return fallback
        first = first_line(request.get("initial_message"))
        return request.get("title") or (first[:60] if first else None) or fallback


def hex_or_none(value: Any) -> str | None:
    if not value:
        return None
    try:
        return uuid.UUID(str(value)).hex
    except ValueError:
        return None


def first_line(message: dict[str, Any] | None) -> str | None:
    """The first line of a message's first text (None when it has none)."""
    for item in (message or {}).get("content") or []:
        if isinstance(item, dict) and item.get("type") == "text" and item.get("text"):
            text = str(item["text"]).strip()
            return text.splitlines()[0] if text else None
    return None
