"""Live agent runs and their event stream: the agent-server half of the reference server.

A real agent server runs the agent in its sandbox and pushes every event to websocket
subscribers as it happens (facts §6). Here a :class:`LiveHub` (one per app, on
``app.state.live``) keeps a :class:`LiveConversation` per conversation that was touched;
each plays :mod:`agent_scripts` step by step, persists what a real server persists through
the :class:`~tui.server.store.Store` (so REST search sees it) and broadcasts every frame to
its subscribers' queues.

Concurrency model: everything here runs in uvicorn's event loop. Publishing is synchronous
(validate, one short SQLite transaction, ``put_nowait`` to each subscriber), so the order of
the persisted log and the order of the frames are the same by construction, and a subscriber
registered between two publishes misses nothing and gets nothing twice. A per-conversation
``asyncio.Lock`` is held for a whole step, so pause and control calls take effect between
steps, as in the SDK (whose run loop holds the state lock while it steps); interrupt cancels
the step instead. Worker threads (sync routes, tests) reach the loop only through
:meth:`LiveHub.call` / :meth:`LiveHub.notify`.

Pace: ``agent_pace`` seconds between steps, run by one task per running conversation; with
``agent_pace=None`` nothing runs by itself: a running conversation advances only when
:meth:`LiveHub.step_sync` (or :meth:`LiveConversation.step`) is called, which is how tests
drive it deterministically. Ids come from an RNG seeded by conversation and log length, so a
given sequence of requests gives the same ids and the same order on every run; timestamps
come from the app clock.

Memory: the builder's event list is emptied after every publish, per-call usage lists are
capped, subscriber queues are bounded (a subscriber that falls behind is closed with 1013);
the persisted log itself grows, as a real one does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hmac
import json
import logging
import random
import uuid
from collections import deque
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from tui.models import ROOT_PARENT, TRANSIENT_KINDS, RawEvent, SandboxStatus, parse_event

from . import agent_scripts
from .agent_scripts import TOOL, Confirm, Fail, Stream
from .events_builder import ConversationBuilder, text
from .lifecycle import DEFAULT_MODEL, Lifecycle
from .store import Store
from .times import event_time_from_clock, utc_from_clock

log = logging.getLogger("tui.server.live")

T = TypeVar("T")

#: At most this many websocket subscribers per conversation (the agent server's limit).
MAX_SUBSCRIBERS = 50
#: Frames a subscriber may have queued before it is dropped as too slow.
MAX_BACKLOG = 5000
#: Per-call usage entries kept for the ``full_state`` stats (newest last).
MAX_USAGE_ENTRIES = 50
#: The demo's autoplay stops asking for more work once its log is this long.
AUTOPLAY_MAX_EVENTS = 50_000
MASK = "**********"
WORKDIR = "/workspace/project"

#: Statuses in which a run can be started (or continued) by a message or ``/run``.
_STARTABLE = ("idle", "paused", "finished", "error", "stuck")


class LiveError(Exception):
    """A control request that cannot be served; ``status`` is the HTTP status."""

    status = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class ConversationNotFound(LiveError):
    status = 404


class SandboxNotRunning(LiveError):
    status = 409

    def __init__(self, sandbox_status: str) -> None:
        super().__init__(f"Sandbox is not running (status {sandbox_status}); resume it first")
        self.sandbox_status = sandbox_status


class AlreadyRunning(LiveError):
    status = 409

    def __init__(self) -> None:
        super().__init__("Conversation already running. Wait for it to finish or pause it first.")


@dataclass(frozen=True)
class Close:
    """Queued to a subscriber: close its websocket with this code and reason."""

    code: int
    reason: str


class Subscriber:
    """One websocket's queue of frames (JSON text) and, last, maybe a :class:`Close`."""

    def __init__(self, upto_seq: int, full_state: str) -> None:
        self.queue: asyncio.Queue[str | Close] = asyncio.Queue()
        self.upto_seq = upto_seq  # the replay covers the log up to here; the queue the rest
        self.full_state = full_state
        self.closing: Close | None = None

    def put(self, frame: str) -> bool:
        if self.closing is not None:
            return True
        if self.queue.qsize() >= MAX_BACKLOG:
            return False
        self.queue.put_nowait(frame)
        return True

    def close(self, close: Close) -> None:
        if self.closing is not None:
            return
        self.closing = close
        while not self.queue.empty():  # a close is urgent: drop what was not sent yet
            self.queue.get_nowait()
        self.queue.put_nowait(close)


# -- the builder ------------------------------------------------------------------------------


class LiveBuilder(ConversationBuilder):
    """A :class:`ConversationBuilder` on the wall clock (the app's ``clock``) that continues an
    existing log: ``head`` and usage come from the store, timestamps strictly increase, and
    per-call usage is kept (capped) for the ``full_state`` stats."""

    def __init__(
        self,
        rng: random.Random,
        *,
        conversation_id: str,
        model: str,
        clock: Callable[[], float],
        head: str | None,
        metrics: dict[str, Any] | None,
    ) -> None:
        super().__init__(
            rng,
            datetime.fromtimestamp(clock()),
            conversation_id=conversation_id,
            model=model,
            workdir=WORKDIR,
        )
        self.clock = clock
        self.now = datetime.fromtimestamp(clock()) - timedelta(microseconds=1)
        self.head = head or ROOT_PARENT
        usage = (metrics or {}).get("accumulated_token_usage") or {}
        self.cost = float((metrics or {}).get("accumulated_cost") or 0.0)
        self.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        self.completion_tokens = int(usage.get("completion_tokens") or 0)
        self.cache_read_tokens = int(usage.get("cache_read_tokens") or 0)
        self.token_usages: deque[dict[str, Any]] = deque(maxlen=MAX_USAGE_ENTRIES)
        self.costs: deque[dict[str, Any]] = deque(maxlen=MAX_USAGE_ENTRIES)
        self.latencies: deque[dict[str, Any]] = deque(maxlen=MAX_USAGE_ENTRIES)

    def tick(self, low_ms: float = 2, high_ms: float = 600) -> str:
        now = datetime.fromtimestamp(self.clock())
        if now <= self.now:
            now = self.now + timedelta(microseconds=1)
        self.now = now
        return now.isoformat(timespec="microseconds")

    def state(self, key: str, value: Any, *, earlier: bool = False) -> str:
        return super().state(key, value)  # live updates are never back-dated

    def llm_call(self, prompt: int | None = None, completion: int | None = None) -> str:
        before = (self.prompt_tokens, self.completion_tokens, self.cache_read_tokens, self.cost)
        response_id = super().llm_call(prompt, completion)
        p = self.prompt_tokens - before[0]
        c = self.completion_tokens - before[1]
        self.token_usages.append(
            {
                "model": self.model,
                "prompt_tokens": p,
                "completion_tokens": c,
                "cache_read_tokens": self.cache_read_tokens - before[2],
                "cache_write_tokens": 0,
                "reasoning_tokens": 0,
                "context_window": 200000,
                "per_turn_token": p + c,
                "response_id": response_id,
            }
        )
        self.costs.append(
            {
                "model": self.model,
                "cost": round(self.cost - before[3], 6),
                "timestamp": self.clock(),
            }
        )
        self.latencies.append(
            {
                "model": self.model,
                "latency": round(0.8 + self.rng.random() * 4, 3),
                "response_id": response_id,
            }
        )
        return response_id

    def full_metrics(self) -> dict[str, Any]:
        """The full Metrics form ``full_state`` carries (nulls left out, lists capped)."""
        snapshot = self.metrics()
        snapshot.pop("max_budget_per_task", None)
        snapshot["costs"] = list(self.costs)
        snapshot["response_latencies"] = list(self.latencies)
        snapshot["token_usages"] = list(self.token_usages)
        return snapshot


def agent_block(model: str) -> dict[str, Any]:
    """The ``agent`` part of ``full_state``, shaped like the captured one, key masked."""
    return {
        "llm": {
            "model": model,
            "api_key": MASK,
            "auth_type": "api_key",
            "openrouter_site_url": "https://docs.all-hands.dev/",
            "openrouter_app_name": "OpenHands",
            "num_retries": 5,
            "retry_multiplier": 8.0,
            "retry_min_wait": 8,
            "retry_max_wait": 64,
            "timeout": 300,
            "max_message_chars": 30000,
            "api_mode": "auto",
            "capability_overrides": {},
            "stream": True,
            "drop_params": True,
            "modify_params": True,
            "disable_stop_word": False,
            "caching_prompt": True,
            "log_completions": False,
            "log_completions_folder": "logs/completions",
            "native_tool_calling": True,
            "reasoning_effort": "high",
            "enable_encrypted_reasoning": True,
            "prompt_cache_retention": "24h",
            "extended_thinking_budget": 200000,
            "usage_id": "agent",
            "litellm_extra_body": {},
            "is_subscription": False,
        },
        "tools": [
            {"name": "terminal", "params": {}},
            {"name": "file_editor", "params": {}},
            {"name": "task_tracker", "params": {}},
        ],
        "mcp_config": {},
        "include_default_tools": ["FinishTool", "ThinkTool"],
        "system_prompt_filename": "system_prompt.j2",
        "security_policy_filename": "security_policy.j2",
        "system_prompt_kwargs": {"llm_security_analyzer": True},
        "tool_concurrency_limit": 1,
        "kind": "Agent",
    }


def _dashed(conversation_id: str) -> str:
    try:
        return str(uuid.UUID(conversation_id))
    except ValueError:
        return conversation_id


def _first_text(content: Iterable[dict[str, Any]]) -> str:
    for item in content:
        if isinstance(item, dict) and item.get("type") == "text" and item.get("text"):
            return str(item["text"])
    return ""


def frame_text(event: dict[str, Any] | RawEvent | Any, *, live: bool = True) -> str:
    """One websocket frame: the event's JSON with null fields omitted (``exclude_none``).

    Live HookExecutionEvent frames carry no ``parent_id`` (the real server sends them before
    the id is stamped; their persisted copies have it, facts §6): ``live=False`` (replay)
    keeps it.
    """
    model = parse_event(event) if isinstance(event, dict) else event
    if isinstance(model, RawEvent):
        raw = model.raw
        return (
            json.dumps(raw, separators=(",", ":"), ensure_ascii=False)
            if not isinstance(raw, str)
            else raw
        )
    exclude = {"parent_id"} if live and model.kind == "HookExecutionEvent" else None
    return model.model_dump_json(exclude_none=True, exclude=exclude)


def replay_frames(rows: Iterable[Any]) -> list[str]:
    """Frames for stored rows (JSON text as stored, nulls included) in the order given."""
    out = []
    for row in rows:
        try:
            data = json.loads(row.json)
        except ValueError:
            out.append(row.json)
            continue
        out.append(
            frame_text(parse_event(data), live=False) if isinstance(data, dict) else row.json
        )
    return out


# -- one conversation -------------------------------------------------------------------------


class LiveConversation:
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
        self.confirmation_policy: dict[str, Any] = {"kind": "NeverConfirm"}
        store = hub.store
        self.known_seq = store.last_seq(conversation_id)
        self.builder = LiveBuilder(
            random.Random(f"live:{conversation_id}:{self.known_seq}"),
            conversation_id=conversation_id,
            model=self.model,
            clock=hub.clock,
            head=store.head_event_id(conversation_id),
            metrics=info.get("metrics"),
        )
        self.last_user_message_id: str | None = None
        last_user = store.last_event_of(conversation_id, "MessageEvent", "user")
        if last_user:
            user_event = json.loads(last_user)
            self.last_user_message_id = user_event.get("id")
            if user_event.get("id") == self.builder.head:  # nobody answered it yet
                self.request = _first_text(
                    (user_event.get("llm_message") or {}).get("content") or []
                )
                self.has_request = True
        if self.status == "waiting_for_confirmation":  # e.g. the demo's: its last action waits
            stored_action = store.last_event_of(conversation_id, "ActionEvent")
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
        b = self.builder
        value: dict[str, Any] = {
            "id": _dashed(self.id),
            "agent": agent_block(self.model),
            "workspace": {"working_dir": WORKDIR, "kind": "LocalWorkspace"},
            "persistence_dir": f"/workspace/conversations/{self.id}",
            "max_iterations": 500,
            "stuck_detection": True,
            "execution_status": self.status,
            "confirmation_policy": self.confirmation_policy,
            "activated_knowledge_skills": [],
            "activated_path_rules": [],
            "invoked_skills": [],
            "blocked_actions": {},
            "blocked_messages": {},
        }
        if self.last_user_message_id:
            value["last_user_message_id"] = self.last_user_message_id
        if b.head != ROOT_PARENT:
            value["leaf_event_id"] = b.head
        value["head_is_empty"] = self.known_seq < 0
        has_usage = b.prompt_tokens or b.completion_tokens or b.cost
        value["stats"] = {"usage_to_metrics": {"agent": b.full_metrics()} if has_usage else {}}
        value["secret_registry"] = {"secret_sources": {}}
        value["tags"] = {}
        value["agent_state"] = {}
        return value

    def full_state_frame(self) -> str:
        event = {
            "id": str(uuid.uuid4()),  # transient: not drawn from the run's seeded ids
            "timestamp": event_time_from_clock(self.hub.clock()),
            "source": "environment",
            "key": "full_state",
            "value": self.full_state(),
            "kind": "ConversationStateUpdateEvent",
        }
        return json.dumps(event, separators=(",", ":"), ensure_ascii=False)

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
            if kind not in TRANSIENT_KINDS:
                rows.append((event, model.model_dump_json()))
            frames.append(frame_text(model))
            if kind == "ConversationStateUpdateEvent":
                if event["key"] == "execution_status":
                    self.status = event["value"]
                    changes["execution_status"] = event["value"]
                elif event["key"] == "stats":
                    changes["metrics"] = event["value"]["usage_to_metrics"]["agent"]
                elif event["key"] == "last_user_message_id":
                    self.last_user_message_id = event["value"]
        store = self.hub.store
        if rows:
            with store.transaction():
                store.append_serialized(self.id, rows)
                self._update_record(changes)
            self.known_seq = store.last_seq(self.id)
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
        frame = self.full_state_frame()
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
            await asyncio.sleep(pace)
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
        self.at_boundary = marker is not TOOL
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

    def _start_script(self) -> None:
        if self.script is not None:
            self.script.close()
        request = self.request if self.has_request else None
        turn = self.turn
        name = self.request_script or agent_scripts.pick_script(request, turn)
        if name in agent_scripts.ROTATION:
            self.turn += 1
        self.script_name = name
        self.script = agent_scripts.SCRIPTS[name](self.builder, turn)
        self.request, self.request_script, self.has_request = None, None, False
        self.confirmation_policy = (
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
            self.request, self.request_script, self.has_request = _first_text(content), script, True
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


# -- the hub ----------------------------------------------------------------------------------


class LiveHub:
    """All live conversations of one app, bound to the event loop uvicorn runs it in."""

    def __init__(
        self,
        store: Store,
        lifecycle: Lifecycle,
        *,
        pace: float | None = None,
        autoplay: Iterable[str] = (),
        auth_timeout: float = 10.0,
        max_subscribers: int = MAX_SUBSCRIBERS,
        session_key: str | None = None,
    ) -> None:
        self.store = store
        self.lifecycle = lifecycle
        self.clock = lifecycle.clock
        self.pace = None if pace is None else max(0.0, pace)
        self.autoplay_ids = [str(cid) for cid in autoplay]
        self.auth_timeout = auth_timeout
        self.max_subscribers = max_subscribers
        self.session_key = session_key
        self.conversations: dict[str, LiveConversation] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        lifecycle.listeners.append(self.notify)

    # -- loop binding and thread-safe entry points ------------------------------------------

    def bind(self) -> None:
        """Remember the running loop (called on startup and by every async route)."""
        loop = asyncio.get_running_loop()
        if self.loop is None or self.loop.is_closed():
            self.loop = loop

    @property
    def bound(self) -> bool:
        return self.loop is not None and self.loop.is_running() and not self.loop.is_closed()

    def call(self, make: Callable[[], Coroutine[Any, Any, T]], timeout: float = 10.0) -> T:
        """Run a coroutine in the hub's loop from another thread and wait for its result."""
        if not self.bound:
            raise RuntimeError("the live hub is not running in an event loop")
        assert self.loop is not None
        future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(make(), self.loop)
        return future.result(timeout)

    def notify(self, kind: str, subject_id: str, **data: Any) -> None:
        """Lifecycle listener: hands the news to the loop, never blocks."""
        if self.bound:
            assert self.loop is not None
            self.loop.call_soon_threadsafe(self._spawn, self._on_change(kind, subject_id, **data))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _on_change(self, kind: str, subject_id: str, **data: Any) -> None:
        try:
            if kind in ("sandbox_paused", "sandbox_deleted"):
                reason = "Sandbox paused" if kind == "sandbox_paused" else "Sandbox deleted"
                for conv in self._on_sandbox(subject_id):
                    await conv.freeze(Close(1001, reason))
            elif kind == "sandbox_running":
                for conv in self._on_sandbox(subject_id):
                    conv.thaw()
            elif kind == "conversation_started" and data.get("run"):
                conv = self.get(subject_id)
                if conv is not None:
                    await conv.run()
            elif kind == "conversation_deleted":
                conv = self.conversations.pop(subject_id, None)
                if conv is not None:
                    conv.close_all(Close(1001, "Conversation deleted"))
                    await conv._cancel_runner()
        except LiveError:
            pass
        except Exception:
            log.exception("live hub: handling %s %s failed", kind, subject_id)

    def _on_sandbox(self, sandbox_id: str) -> list[LiveConversation]:
        return [c for c in self.conversations.values() if c.sandbox_id == sandbox_id]

    # -- conversations ----------------------------------------------------------------------

    def get(self, conversation_id: str) -> LiveConversation | None:
        conv = self.conversations.get(conversation_id)
        if conv is None:
            info = self.store.get_conversation(conversation_id)
            if info is None:
                return None
            conv = self.conversations[conversation_id] = LiveConversation(
                self, conversation_id, info
            )
            conv.ensure_runner()  # a conversation stored as running goes on (with a pace)
        return conv

    def require(self, conversation_id: str) -> LiveConversation:
        conv = self.get(conversation_id)
        if conv is None:
            raise ConversationNotFound(f"Conversation not found: {_dashed(conversation_id)}")
        return conv

    def accepted_keys(self, info: dict[str, Any] | None) -> list[str]:
        """Keys the agent-server routes accept: the sandbox's key and the app's global key."""
        keys = []
        if info is not None and info.get("sandbox_id"):
            sandbox = self.store.get_sandbox(info["sandbox_id"])
            if sandbox and sandbox.get("session_api_key"):
                keys.append(sandbox["session_api_key"])
        if self.session_key:
            keys.append(self.session_key)
        return keys

    @staticmethod
    def key_ok(offered: str | None, keys: list[str]) -> bool:
        if not keys:
            return True
        if not isinstance(offered, str):
            return False
        return any(hmac.compare_digest(offered.encode(), key.encode()) for key in keys)

    # -- app lifetime -----------------------------------------------------------------------

    async def startup(self) -> None:
        self.bind()
        if self.pace is None:
            return
        for cid in self.autoplay_ids:
            conv = self.get(cid)
            if conv is not None:
                conv.autoplay = True
                self._spawn(self._autoplay(conv))
        for conv in list(self.conversations.values()):
            conv.ensure_runner()

    async def shutdown(self) -> None:
        for conv in list(self.conversations.values()):
            conv.close_all(Close(1001, "Server shutting down"))
            await conv._cancel_runner()
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _autoplay(self, conv: LiveConversation) -> None:
        """Keep ``conv`` busy forever: run it, and when a run ends ask for the next task."""
        pace = self.pace or 0.5
        waited = 0.0
        turn = 0
        try:
            if conv.status in _STARTABLE and conv.status != "paused" and conv.sandbox_running():
                await conv.run()
            while True:
                await asyncio.sleep(pace)
                if not conv.sandbox_running():
                    continue
                if conv.status in ("finished", "idle", "error"):
                    waited += pace
                    if waited >= 5 * pace:
                        if self.store.last_seq(conv.id) >= AUTOPLAY_MAX_EVENTS:
                            return
                        script, message = agent_scripts.AUTOPLAY[turn % len(agent_scripts.AUTOPLAY)]
                        turn += 1
                        waited = 0.0
                        await conv.send_message([text(message)], run=True, script=script)
                elif conv.status == "waiting_for_confirmation":
                    waited += pace
                    if waited >= 8 * pace:  # a patient demo user says yes
                        waited = 0.0
                        await conv.respond(True, "")
                else:
                    waited = 0.0
        except LiveError:
            log.info("autoplay of %s stopped", conv.id)

    # -- helpers for tests and tools (call from any thread but the loop's) --------------------

    def step_sync(
        self, conversation_id: str, steps: int = 1, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        """Advance a running conversation ``steps`` steps; returns the frames sent, decoded."""

        async def go() -> list[str]:
            conv = self.require(conversation_id)
            frames: list[str] = []
            for _ in range(steps):
                frames += await conv.step()
            return frames

        return [json.loads(f) for f in self.call(go, timeout)]

    def run_until_idle_sync(
        self, conversation_id: str, max_steps: int = 500, timeout: float = 30.0
    ) -> list[dict[str, Any]]:
        """Step until the conversation is no longer running; returns every frame sent."""

        async def go() -> list[str]:
            conv = self.require(conversation_id)
            frames: list[str] = []
            for _ in range(max_steps):
                if conv.status != "running":
                    break
                frames += await conv.step()
            return frames

        return [json.loads(f) for f in self.call(go, timeout)]

    def status_sync(self, conversation_id: str) -> str:
        async def go() -> str:
            return self.require(conversation_id).status

        return self.call(go)

    def fail_sync(self, conversation_id: str, fail: Fail | None = None) -> None:
        """Make the conversation's next step fail with a ConversationErrorEvent."""
        self.call(lambda: self.require(conversation_id).fail(fail))

    def send_message_sync(
        self, conversation_id: str, message: str, *, run: bool = True, script: str | None = None
    ) -> str:
        return self.call(
            lambda: self.require(conversation_id).send_message(
                [text(message)], run=run, script=script
            )
        )
