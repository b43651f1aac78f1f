"""The running half of a live conversation: stepping through a script of the simulated agent.

A run is a generator of steps (``tui.server.demo.script_steps``); each step holds the
conversation's lock, so pause and the other control calls take effect between steps, and
interrupt cancels the step in flight. With a pace a task steps the run by itself; without
one, tests step it by hand (:meth:`AgentRun.step`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from tui.models import SandboxStatus

from ..demo import agent_scripts
from ..demo.agent_scripts import TOOL, WRAP_UP, Confirm, Fail, Stream
from ..demo.live_builder import LiveBuilder
from .errors import AlreadyRunning, SandboxNotRunning

if TYPE_CHECKING:
    from .hub import LiveHub

log = logging.getLogger("tui.server.live")


class AgentRun:
    """Script stepping for :class:`~tui.server.live.conversation.LiveConversation` (its
    state lives there; this class holds what a run does with it)."""

    hub: LiveHub
    id: str
    status: str
    lock: asyncio.Lock
    builder: LiveBuilder
    script: Any
    script_name: str | None
    wrapping_up: bool
    pending_stream: Stream | None
    pending_confirmation: Confirm | None
    at_boundary: bool
    request: str | None
    request_script: str | None
    has_request: bool
    fail_next: Fail | None
    turn: int
    runner: asyncio.Task[None] | None
    step_task: asyncio.Task[Any] | None
    wake: asyncio.Event
    confirmation_policy: dict[str, Any]
    user_policy: dict[str, Any] | None
    last_action: dict[str, Any] | None

    # provided by the conversation
    def require_sandbox(self) -> None: ...
    def sandbox_status(self) -> str: ...
    def sync_head(self) -> None: ...
    def flush(self) -> list[str]: ...
    def publish(self, events: list[dict[str, Any]]) -> list[str]: ...
    def broadcast_full_state(self) -> str: ...

    # -- running ----------------------------------------------------------------------------

    def ensure_runner(self) -> None:
        """With a pace, a running conversation has a task stepping it."""
        if self.hub.pace is None or self.status != "running":
            return
        if self.runner is None or self.runner.done():
            self.runner = asyncio.get_running_loop().create_task(
                self._run_loop(), name=f"live-run-{self.id[:8]}"
            )

    async def _run_loop(self) -> None:
        pace = self.hub.pace or 0.0
        while self.status == "running":
            sandbox_status = self.sandbox_status()
            if sandbox_status == SandboxStatus.MISSING.value:
                return  # deleted: nothing will ever run it again
            if sandbox_status != SandboxStatus.RUNNING.value:  # frozen with it; resumes with it
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), timeout=max(pace, 0.25))
                continue
            await asyncio.sleep(pace * self.builder.take_wait())  # a test run takes a while
            try:
                await self.step()
            except SandboxNotRunning:
                continue
            except Exception:
                log.exception("live run of %s failed", self.id)
                async with self.lock:
                    self._fail(
                        Fail(
                            code="InternalError",
                            detail="The simulated agent crashed.",
                            classification=(
                                ("kind", "internal"),
                                ("retryable", False),
                                ("user_action", "none"),
                            ),
                        )
                    )
                return

    async def _cancel_runner(self) -> None:
        """Stop the runner task and an in-flight step (which may be streaming deltas)."""
        tasks = [
            t
            for t in (self.runner, self.step_task)
            if t is not None and not t.done() and t is not asyncio.current_task()
        ]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        self.runner = None

    async def step(self) -> list[str]:
        """Play one step of the run (nothing if the conversation is not running)."""
        async with self.lock:
            self.step_task = asyncio.current_task()
            try:
                return await self._step()
            finally:
                self.step_task = None

    async def _step(self) -> list[str]:
        if self.status != "running":
            return []
        self.require_sandbox()
        self.sync_head()
        frames: list[str] = []
        if self.fail_next is not None:
            return self._fail(self.fail_next)
        if self.pending_stream is not None:
            frames += await self._stream(self.pending_stream)
        elif self.script is None or (self.has_request and self.at_boundary):
            self._start_script()
        marker: Any = None
        while True:
            try:
                marker = next(self.script)
            except StopIteration:
                marker = StopIteration
            frames += self.flush()
            if isinstance(marker, Stream):
                self.pending_stream = marker
                frames += await self._stream(marker)
                continue
            break
        if marker is TOOL and self.user_policy and self._must_confirm():
            action = self.last_action or {}
            marker = Confirm(
                action.get("id") or "",
                action.get("tool_call_id") or "",
                action.get("tool_name") or "",
            )
        self.at_boundary = marker is not TOOL
        if marker is WRAP_UP:
            self.wrapping_up = True
        if marker is StopIteration:
            self.script = None
            if self.status == "running":  # a script that did not say how it ended
                self.builder.status("finished")
                frames += self.flush()
        elif isinstance(marker, Confirm):
            self.pending_confirmation = marker
            self.builder.status("waiting_for_confirmation")
            self.builder.stats()
            frames += self.flush()
        elif isinstance(marker, Fail):
            frames += self._fail(marker)
        if self.status != "running":
            frames += self._end_run()
        return frames

    def _must_confirm(self) -> bool:
        """The policy the user set asks to confirm the action just made (as the SDK's:
        always; risky: HIGH, or UNKNOWN where ``confirm_unknown``)."""
        kind = (self.user_policy or {}).get("kind")
        if kind == "AlwaysConfirm":
            return self.last_action is not None
        if kind == "ConfirmRisky" and self.last_action is not None:
            risk = self.last_action.get("security_risk")
            return risk == "HIGH" or (
                risk == "UNKNOWN" and bool((self.user_policy or {}).get("confirm_unknown", True))
            )
        return False

    def _start_script(self) -> None:
        if self.script is not None:
            self.script.close()
        request = self.request if self.has_request else None
        turn = self.turn
        name = self.request_script or agent_scripts.pick_script(request, turn)
        if name in agent_scripts.ROTATION:
            self.turn += 1
        self.script_name, self.wrapping_up = name, False
        self.script = agent_scripts.SCRIPTS[name](self.builder, turn)
        self.request, self.request_script, self.has_request = None, None, False
        self.confirmation_policy = self.user_policy or (
            {"kind": "ConfirmRisky", "threshold": "HIGH", "confirm_unknown": True}
            if name == "confirm"
            else {"kind": "NeverConfirm"}
        )

    async def _stream(self, stream: Stream) -> list[str]:
        """StreamingDeltaEvents: reasoning first, then content chunks joining to the text."""
        b = self.builder
        pieces = (
            [("reasoning_content", c) for c in agent_scripts.split_chunks(stream.reasoning, 3)]
            if stream.reasoning
            else []
        )
        pieces += [("content", c) for c in agent_scripts.split_chunks(stream.text)]
        gap = min(0.05, (self.hub.pace or 0.0) / (len(pieces) + 1))
        frames: list[str] = []
        for field, chunk in pieces:
            delta = {
                "id": b.ids.uuid(),
                "timestamp": b.tick(),
                "source": "agent",
                field: chunk,
                "kind": "StreamingDeltaEvent",
            }
            frames += self.publish([delta])
            if gap:
                await asyncio.sleep(gap)
        self.pending_stream = None
        return frames

    def _fail(self, fail: Fail) -> list[str]:
        b = self.builder
        b.status("error")
        b.emit(
            "ConversationErrorEvent",
            {
                "code": fail.code,
                "detail": fail.detail,
                "classification": dict(fail.classification),
            },
            source="environment",
        )
        self.fail_next = None
        frames = self.flush()
        return frames + self._end_run()

    def _end_run(self) -> list[str]:
        """The run stopped (finished, error, paused, waiting): push a fresh full_state."""
        if self.status in ("finished", "error", "idle", "stuck"):
            if self.script is not None:
                self.script.close()
            self.script, self.pending_stream, self.pending_confirmation = None, None, None
        return [self.broadcast_full_state()]

    def _start_run_locked(self) -> list[str]:
        if self.status == "running":
            raise AlreadyRunning()
        self.builder.status("running")
        return self.flush()
