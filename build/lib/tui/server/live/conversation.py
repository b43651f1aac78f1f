"""One conversation's agent-server state: its subscribers, status and current run.

See the package doc for the concurrency model: publishing is synchronous, a step holds the
conversation's lock, interrupt cancels the step in flight.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tui.models import TRANSIENT_KINDS, RawEvent, SandboxStatus, parse_event

from ..demo import agent_scripts
from ..demo.agent_scripts import Confirm, Fail, Stream
from ..demo.live_builder import LiveBuilder
from ..lifecycle import DEFAULT_MODEL
from ..times import utc_from_clock
from .errors import SandboxNotRunning
from .file_edits import apply_file_edits
from .frames import Close, Subscriber, frame_text
from .run import AgentRun
from .state import full_state_frame, full_state_value

if TYPE_CHECKING:
    from .hub import LiveHub

log = logging.getLogger("tui.server.live")


def first_text(content: Iterable[dict[str, Any]]) -> str:
    for item in content:
        if isinstance(item, dict) and item.get("type") == "text" and item.get("text"):
            return str(item["text"])
    return ""


class LiveConversation(AgentRun):
    """The agent-server state of one conversation: subscribers, status and the current run."""

    def __init__(self, hub: LiveHub, conversation_id: str, info: dict[str, Any]) -> None:
        self.hub = hub
        self.id = conversation_id
        self.sandbox_id: str = info.get("sandbox_id") or ""
        self.model: str = info.get("llm_model") or DEFAULT_MODEL
        self.status: str = info.get("execution_status") or "idle"
        self.subscribers: set[Subscriber] = set()
        self.lock = asyncio.Lock()
        self.script: Any = None  # the generator being played
        self.script_name: str | None = None
        self.wrapping_up = False  # the script's last steps have begun (``WRAP_UP``)
        self.pending_stream: Stream | None = None  # deltas to (re)send before resuming
        self.pending_confirmation: Confirm | None = None
        self.at_boundary = True  # the last step ended where a new message may cut in
        self.request: str | None = None  # an unanswered user message
        self.request_script: str | None = None
        self.has_request = False
        self.fail_next: Fail | None = None
        self.turn = 0
        self.autoplay = False
        self.runner: asyncio.Task[None] | None = None
        self.step_task: asyncio.Task[Any] | None = None
        self.wake = asyncio.Event()
        #: set by the user (``POST …/confirmation_policy``): scripts keep it, not their own
        self.user_policy: dict[str, Any] | None = info.get("confirmation_policy")
        self.confirmation_policy: dict[str, Any] = self.user_policy or {"kind": "NeverConfirm"}
        self.security_analyzer: dict[str, Any] | None = info.get("security_analyzer")
        self.last_action: dict[str, Any] | None = None  # what a user's policy may hold back
        store = hub.store
        self.known_seq = store.last_seq(conversation_id)
        hub.webhook.track(conversation_id, self.known_seq)  # stored so far (webhook.py)
        self.builder = LiveBuilder(
            random.Random(f"live:{conversation_id}:{self.known_seq}"),
            conversation_id=conversation_id,
            model=self.model,
            clock=hub.clock,
            # a head moved by ``navigate`` (or a fork's) is where the next event hangs
            head=info.get("leaf_event_id") or store.head_event_id(conversation_id),
            metrics=info.get("metrics"),
            backdate_stats=hub.store_transient,
        )
        self.last_user_message_id: str | None = None
        try:
            self._restore(store)
        except (KeyError, TypeError, AttributeError, ValueError):  # a stored log it cannot read
            log.warning("live %s: could not pick up where the stored log left off", self.id)
            self.request, self.has_request, self.pending_confirmation = None, False, None
            self.script = None

    def _restore(self, store: Any) -> None:
        """Pick up an unanswered user message, or an action waiting for confirmation, from the
        stored log (a local folder's may be anything: any shape error is the caller's)."""
        last_user = store.last_event_of(self.id, "MessageEvent", "user")
        if last_user:
            user_event = json.loads(last_user)
            self.last_user_message_id = user_event.get("id")
            if user_event.get("id") == self.builder.head:  # nobody answered it yet
                self.request = first_text(
                    (user_event.get("llm_message") or {}).get("content") or []
                )
                self.has_request = True
        if self.status == "waiting_for_confirmation":  # e.g. the demo's: its last action waits
            stored_action = store.last_event_of(self.id, "ActionEvent")
            if stored_action:
                action = json.loads(stored_action)
                self.pending_confirmation = Confirm(
                    action["id"], action.get("tool_call_id") or "", action.get("tool_name") or ""
                )
                self.script = agent_scripts.execute_pending(self.builder, action)
                self.script_name = "pending"
                self.at_boundary = False

    # -- state ------------------------------------------------------------------------------

    def sandbox_status(self) -> str:
        self.hub.lifecycle.advance()
        sandbox = self.hub.store.get_sandbox(self.sandbox_id) if self.sandbox_id else None
        return sandbox["status"] if sandbox else SandboxStatus.MISSING.value

    def sandbox_running(self) -> bool:
        return self.sandbox_status() == SandboxStatus.RUNNING.value

    def require_sandbox(self) -> None:
        status = self.sandbox_status()
        if status != SandboxStatus.RUNNING.value:
            raise SandboxNotRunning(status)

    def sync_head(self) -> None:
        """Follow events appended by someone else (a test, the fallback message path)."""
        seq = self.hub.store.last_seq(self.id)
        if seq != self.known_seq:
            self.builder.head = self.hub.store.head_event_id(self.id) or self.builder.head
            self.known_seq = seq

    def full_state(self) -> dict[str, Any]:
        """The ``full_state`` value: the whole ConversationState, nulls left out, key masked."""
        return full_state_value(
            self.id,
            self.builder,
            model=self.model,
            status=self.status,
            confirmation_policy=self.confirmation_policy,
            security_analyzer=self.security_analyzer,
            last_user_message_id=self.last_user_message_id,
            empty=self.known_seq < 0,
        )

    def set_policy(self, **changes: Any) -> None:
        """A confirmation policy or security analyzer the user chose: kept in the record
        and in the run (scripts no longer pick their own), and said in a ``full_state``."""
        if "confirmation_policy" in changes:
            self.user_policy = self.confirmation_policy = changes["confirmation_policy"]
        if "security_analyzer" in changes:
            self.security_analyzer = changes["security_analyzer"]
        self._update_record(changes)
        self.broadcast_full_state()

    def navigated(self, event_id: str) -> None:
        """``navigate`` moved the head: the next event hangs there."""
        self.builder.head = event_id

    def full_state_frame(self) -> str:
        return full_state_frame(self.full_state(), self.hub.clock())

    # -- publishing -------------------------------------------------------------------------

    def publish(self, events: list[dict[str, Any]]) -> list[str]:
        """Persist what a real server persists, then send every event to every subscriber.

        Synchronous on purpose (see the module doc): nothing can interleave with it.
        """
        frames: list[str] = []
        rows: list[tuple[dict[str, Any], str]] = []
        changes: dict[str, Any] = {}
        for event in events:
            model = parse_event(event)
            if isinstance(model, RawEvent):  # a bug in a script: fail loudly
                raise ValueError(  # noqa: TRY004 - bad data, not a bad argument type
                    f"the simulator built an invalid {event.get('kind')}: {model.error}"
                )
            kind = event["kind"]
            if kind not in TRANSIENT_KINDS or self.hub.store_transient:
                rows.append((event, model.model_dump_json()))
            frames.append(frame_text(model))
            if kind == "ActionEvent":
                self.last_action = event
            if kind == "ConversationStateUpdateEvent":
                if event["key"] == "execution_status":
                    self.status = event["value"]
                    changes["execution_status"] = event["value"]
                elif event["key"] == "stats":
                    changes["metrics"] = event["value"]["usage_to_metrics"]["agent"]
                elif event["key"] == "last_user_message_id":
                    self.last_user_message_id = event["value"]
        if rows:
            changes["leaf_event_id"] = self.builder.head
        store = self.hub.store
        apply_file_edits(store, events)  # the tool ran before it reports: before it is seen
        if rows:
            with store.transaction():
                store.append_serialized(self.id, rows)
                self._update_record(changes)
            self.known_seq = store.last_seq(self.id)
            self.hub.webhook.posted(self.id, self.known_seq)
        elif changes:
            self._update_record(changes)
        self.broadcast(frames)
        return frames

    def _update_record(self, changes: dict[str, Any]) -> None:
        store = self.hub.store
        with store.transaction():
            info = store.get_conversation(self.id)
            if info is None:
                return
            info.update(changes)
            info["updated_at"] = utc_from_clock(self.hub.clock())
            store.put_conversation(info)

    def flush(self) -> list[str]:
        events, self.builder.events = self.builder.events, []
        return self.publish(events) if events else []

    def broadcast(self, frames: list[str]) -> None:
        for sub in list(self.subscribers):
            for frame in frames:
                if not sub.put(frame):
                    self.drop(sub, Close(1013, "Subscriber fell behind"))
                    break

    def broadcast_full_state(self) -> str:
        """A fresh ``full_state`` to every subscriber; with ``store_transient`` it is also
        stored (parent_id null), as the real app server's history holds them."""
        frame = self.full_state_frame()
        if self.hub.store_transient:
            event = json.loads(frame)
            stored = parse_event(event).model_dump_json()
            self.hub.store.append_serialized(self.id, [(event, stored)])
            self.known_seq = self.hub.store.last_seq(self.id)
        self.broadcast([frame])
        return frame

    def subscribe(self) -> Subscriber:
        """Register a subscriber (synchronous: no publish can slip in between the log position
        it replays up to and its first queued frame)."""
        sub = Subscriber(self.hub.store.last_seq(self.id), self.full_state_frame())
        self.subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self.subscribers.discard(sub)

    def drop(self, sub: Subscriber, close: Close) -> None:
        sub.close(close)
        self.subscribers.discard(sub)

    def close_all(self, close: Close) -> None:
        for sub in list(self.subscribers):
            self.drop(sub, close)

    # -- requests ---------------------------------------------------------------------------

    async def send_message(
        self, content: list[dict[str, Any]], *, run: bool, script: str | None = None
    ) -> str:
        """Append a user MessageEvent (+ ``last_user_message_id``); run the agent if ``run``."""
        async with self.lock:
            self.require_sandbox()
            self.sync_head()
            b = self.builder
            if self.status == "waiting_for_confirmation" and self.pending_confirmation:
                self._reject("User sent a new message", to_status=None)
            message_id = b.emit(
                "MessageEvent",
                {
                    "llm_message": {"role": "user", "content": content, "thinking_blocks": []},
                    "activated_skills": [],
                    "extended_content": [],
                },
                source="user",
            )
            b.state("last_user_message_id", message_id)
            self.request, self.request_script, self.has_request = first_text(content), script, True
            self.flush()
            if run and self.status != "running":
                self._start_run_locked()
        self.ensure_runner()
        return message_id

    async def run(self) -> None:
        """``POST /run``: 409 while running; continues a paused script or starts one."""
        async with self.lock:
            self.require_sandbox()
            if self.status == "waiting_for_confirmation":
                self.pending_confirmation = None  # running again = going ahead with the action
            self._start_run_locked()
        self.ensure_runner()

    async def pause(self) -> None:
        """Takes effect between steps (waits for the one in flight): status paused + PauseEvent."""
        async with self.lock:
            self.require_sandbox()
            if self.status in ("running", "idle"):
                await self._cancel_runner()
                self.builder.status("paused")
                self.builder.emit("PauseEvent", source="user")
                self.flush()
            self.broadcast_full_state()

    async def interrupt(self) -> None:
        """At once: cancels the step in flight (e.g. mid-stream), status paused + InterruptEvent."""
        self.require_sandbox()
        if self.status == "running":
            await self._cancel_runner()
        async with self.lock:
            if self.status in ("running", "idle"):
                self.builder.status("paused")
                self.builder.emit("InterruptEvent", source="user")
                self.flush()
            self.broadcast_full_state()

    async def respond(self, accept: bool, reason: str) -> None:
        """``respond_to_confirmation``: accept runs the pending action, reject drops it."""
        async with self.lock:
            self.require_sandbox()
            if self.status != "waiting_for_confirmation" or self.pending_confirmation is None:
                return
            if accept:
                self.pending_confirmation = None
                self._start_run_locked()
            else:
                self._reject(reason, to_status="idle")
                self.broadcast_full_state()
        self.ensure_runner()

    def _reject(self, reason: str, *, to_status: str | None) -> None:
        pending = self.pending_confirmation
        b = self.builder
        if to_status:
            b.status(to_status)
        if pending is not None:
            b.emit(
                "UserRejectObservation",
                {
                    "tool_name": pending.tool_name,
                    "tool_call_id": pending.call_id,
                    "rejection_reason": reason,
                    "rejection_source": "user",
                    "action_id": pending.action_id,
                },
                source="environment",
            )
        if self.script is not None:
            self.script.close()
        self.script, self.pending_confirmation, self.pending_stream = None, None, None
        self.flush()

    async def fail(self, fail: Fail | None = None) -> None:
        """Make the next step fail (ConversationErrorEvent, status error)."""
        async with self.lock:
            self.fail_next = fail or Fail()

    # -- sandbox and lifetime ---------------------------------------------------------------

    async def freeze(self, close: Close) -> None:
        """The sandbox stopped: drop subscribers, stop stepping (status unchanged)."""
        self.close_all(close)
        await self._cancel_runner()
        self.ensure_runner()  # parks until the sandbox runs again

    def thaw(self) -> None:
        self.wake.set()
        self.ensure_runner()
