"""``EventStream`` + ``StreamState`` against a replay server of the agent server's event socket.

``ReplayServer`` is a real websockets server on loopback that speaks the agent server's
protocol (facts §5, §6) and plays a captured ``ws/*.frames.jsonl`` scenario: first-frame
(or header/query) auth with close 4001 / HTTP 403, close 4004 for an unknown conversation,
a ``full_state`` frame first, ``resend_mode=all|since`` replays of the persisted log (the
captured ``persisted/`` copies, compared as naive timestamp strings, ``≥``), then the live
frames. It can drop the connection after given frames (close 1011/1012/1013 or a TCP abort)
and let the script run on while nobody listens (``gap``), like a real conversation does.
On plain HTTP it serves the agent server's log as the stream's gap fill reads it
(``GET /api/conversations/<id>/events/search``: log order, event-id page ids, the persisted
copies so far), unless ``rest=False`` (then 404, as a server without the route).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from tests.helpers.samples import SAMPLES
from tui.client import (
    AuthError,
    ConnectionLost,
    EventStream,
    JitteredBackoff,
    NotFound,
    StreamEvent,
    StreamState,
    StreamStatus,
)
from tui.client.stream_reconnects import Reconnects
from tui.models import (
    ConversationErrorEvent,
    ExecutionStatus,
    MessageEvent,
    RawEvent,
    StreamingDeltaEvent,
)
from tui.models.events import HookExecutionEvent

CAPTURE = SAMPLES / "agent-server-capture"
KEY = "sess-SENTINEL-stream-5e6f7a8b"
FAST = {"backoff_base": 0.01, "backoff_max": 0.05}
SCENARIOS = ["demo", "demo_resend_all", "stream", "slow", "confirm", "fail"]


# --- captured data -------------------------------------------------------------------------


def load_frames(scenario: str) -> list[dict[str, Any]]:
    lines = (CAPTURE / "ws" / f"{scenario}.frames.jsonl").read_text().splitlines()
    return [d["frame"] for d in map(json.loads, filter(str.strip, lines)) if "frame" in d]


def persisted_events(scenario: str) -> list[dict[str, Any]]:
    """The server's on-disk log of the scenario's conversation, in log order."""
    base = "demo" if scenario == "demo_resend_all" else scenario
    (folder,) = (CAPTURE / "persisted").glob(f"{base}-*")

    def index(path: Path) -> int:
        return int(re.match(r"event-(\d+)-", path.name).group(1))  # type: ignore[union-attr]

    files = sorted((folder / "events").glob("event-*.json"), key=index)
    return [json.loads(f.read_text()) for f in files]


def transient_frame(frame: Any) -> bool:
    if not isinstance(frame, dict):
        return True
    kind = frame.get("kind")
    if kind in ("StreamingDeltaEvent", "ServerErrorEvent"):
        return True
    return kind == "ConversationStateUpdateEvent" and frame.get("key") == "full_state"


def stats_of(frames: list[dict[str, Any]]) -> tuple[float, int, int]:
    """Totals of the last stats value in the frames (computed here, independently)."""
    value = [f for f in frames if f.get("key") == "stats"][-1]["value"]
    cost = prompt = completion = 0
    for metrics in value["usage_to_metrics"].values():
        cost += metrics["accumulated_cost"]
        prompt += metrics["accumulated_token_usage"]["prompt_tokens"]
        completion += metrics["accumulated_token_usage"]["completion_tokens"]
    return cost, prompt, completion


# --- the replay server ---------------------------------------------------------------------


def _split(path: str) -> tuple[str, dict[str, str]]:
    route, _, query = path.partition("?")
    return route, dict(parse_qsl(query))


class ReplayServer:
    """One conversation's event socket, playing a captured scenario (see the module doc)."""

    def __init__(
        self,
        scenario: str | None = "demo",
        *,
        frames: list[Any] | None = None,
        key: str = KEY,
        drops: Iterable[int] = (),
        drop_modes: Iterable[int | str] = (1011,),
        gap: int = 0,
        handshake_statuses: Iterable[int | None] = (),
        connect_closes: Iterable[int | None] = (),
        persisted: bool = True,
        rest: bool = True,
    ) -> None:
        self.frames: list[Any] = frames if frames is not None else load_frames(scenario or "demo")
        first_state = next(
            f for f in self.frames if isinstance(f, dict) and f.get("key") == "full_state"
        )
        self.cid = uuid.UUID(first_state["value"]["id"])
        copies = {e["id"]: e for e in persisted_events(scenario)} if persisted and scenario else {}
        self.copies = copies
        self.key = key
        self.pos = 0
        self.drops = sorted(set(drops))
        self.drop_modes = list(drop_modes)
        self.gap = gap
        self.handshake_statuses = list(handshake_statuses)
        self.connect_closes = list(connect_closes)
        self.handshakes = 0
        self.rest = rest
        self.searches: list[dict[str, str]] = []  # the log pages asked for
        self.refused_searches = 0
        self.queries: list[dict[str, str]] = []
        self.headers: list[dict[str, str]] = []
        self.received: list[Any] = []
        self.done = asyncio.Event()
        self.open_connections = 0
        self.connection_closed = asyncio.Event()
        self.port = 0
        self._drop_count = 0

    def url(self, cid: uuid.UUID | str | None = None) -> str:
        ident = cid if isinstance(cid, str) else (cid or self.cid).hex
        return f"ws://127.0.0.1:{self.port}/sockets/events/{ident}"

    def log(self) -> list[dict[str, Any]]:
        """The persisted log so far, in log order (what a replay and the REST search serve)."""
        return [
            self.copies.get(f["id"], f) for f in self.frames[: self.pos] if not transient_frame(f)
        ]

    def _search(self, connection: ServerConnection, request: Any) -> Any:
        """``GET …/events/search`` as the agent server answers it (facts §1c)."""
        route, query = _split(request.path)
        match = re.fullmatch(r"/api/conversations/([0-9a-fA-F-]+)/events/search", route)
        if not self.rest or match is None:
            self.refused_searches += 1
            return connection.respond(404, '{"detail":"Not Found"}')
        if request.headers.get("X-Session-API-Key") != self.key:
            return connection.respond(401, '{"detail":"Unauthorized"}')
        self.searches.append(query)
        log = self.log()
        if query.get("sort_order") == "TIMESTAMP_DESC":
            log.reverse()
        ids = [e["id"] for e in log]
        start = ids.index(query["page_id"]) if query.get("page_id") in ids else 0
        limit = int(query.get("limit", 100))
        page = log[start : start + limit]
        following = ids[start + limit] if start + limit < len(ids) else None
        body = json.dumps({"items": page, "next_page_id": following})
        response = connection.respond(200, body)
        response.headers["Content-Type"] = "application/json"
        return response

    # handshake: the real server rejects a wrong query/header key with HTTP 403
    def process_request(self, connection: ServerConnection, request: Any) -> Any:
        if "upgrade" not in request.headers.get("Connection", "").lower():
            return self._search(connection, request)
        self.handshakes += 1
        if self.handshake_statuses:
            status = self.handshake_statuses.pop(0)
            if status is not None:
                return connection.respond(status, "not now\n")
        _, query = _split(request.path)
        key = request.headers.get("X-Session-API-Key") or query.get("session_api_key")
        if key is not None and key != self.key:
            return connection.respond(403, "Forbidden\n")
        return None

    async def handler(self, ws: ServerConnection) -> None:
        route, query = _split(ws.request.path)
        self.queries.append(query)
        self.headers.append(dict(ws.request.headers.raw_items()))
        given = ws.request.headers.get("X-Session-API-Key") or query.get("session_api_key")
        if given != self.key:
            try:
                auth = json.loads(await asyncio.wait_for(ws.recv(), 5))
            except (TimeoutError, ValueError, ConnectionClosed):
                auth = None
            if not (
                isinstance(auth, dict)
                and auth.get("type") == "auth"
                and auth.get("session_api_key") == self.key
            ):
                await ws.close(4001, "Authentication failed")
                return
        match = re.fullmatch(r"/sockets/events/([0-9a-fA-F-]+)", route)
        try:
            known = match is not None and uuid.UUID(match.group(1)) == self.cid
        except ValueError:
            known = False
        if not known:
            await ws.close(4004, "Conversation not found")
            return
        if self.connect_closes:
            code = self.connect_closes.pop(0)
            if code is not None:
                await ws.close(code, "Too many connections for this conversation")
                return
        self.open_connections += 1
        try:
            await self._play(ws, query)
        except ConnectionClosed:
            pass
        finally:
            self.open_connections -= 1
            self.connection_closed.set()

    async def _send(self, ws: ServerConnection, frame: Any) -> None:
        await ws.send(frame if isinstance(frame, str) else json.dumps(frame))

    async def _play(self, ws: ServerConnection, query: dict[str, str]) -> None:
        await self._send(ws, self._full_state())
        for frame in self._replay(query):
            await self._send(ws, frame)
        while self.pos < len(self.frames):
            frame = self.frames[self.pos]
            self.pos += 1
            await self._send(ws, frame)
            if self.drops and self.pos >= self.drops[0]:
                self.drops.pop(0)
                self.pos = min(len(self.frames), self.pos + self.gap)  # runs on unheard
                await self._drop(ws)
                return
            await asyncio.sleep(0)
        self.done.set()
        async for message in ws:
            self.received.append(message)
            reply = self._answer(message)
            if reply is not None:
                await self._send(ws, reply)

    def _full_state(self) -> dict[str, Any]:
        first = self.frames[0]
        if self.pos == 0 and isinstance(first, dict) and first.get("key") == "full_state":
            self.pos = 1
            return first
        states = [
            f
            for f in self.frames[: max(self.pos, 1)]
            if isinstance(f, dict) and f.get("key") == "full_state"
        ]
        return {**states[-1], "id": str(uuid.uuid4())}  # a fresh snapshot per connection

    def _replay(self, query: dict[str, str]) -> list[dict[str, Any]]:
        log = self.log()
        mode = query.get("resend_mode")
        if mode == "all" or query.get("resend_all") == "true":
            return log
        if mode == "since":
            after = query["after_timestamp"]
            return [e for e in log if e["timestamp"] >= after]  # naive strings, as the server does
        return []

    async def _drop(self, ws: ServerConnection) -> None:
        mode = self.drop_modes[self._drop_count % len(self.drop_modes)]
        self._drop_count += 1
        if mode == "abort":
            ws.transport.abort()
        else:
            await ws.close(int(mode), "replay drop")

    def _answer(self, message: str | bytes) -> dict[str, Any] | None:
        now = datetime.now().isoformat()
        try:
            data = json.loads(message)
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("type") == "auth":
            return None  # extra auth frames are ignored
        if (
            isinstance(data, dict)
            and data.get("role") == "user"
            and isinstance(data.get("content"), list)
        ):
            return {
                "id": str(uuid.uuid4()),
                "timestamp": now,
                "source": "user",
                "llm_message": {"role": "user", "content": data["content"]},
                "kind": "MessageEvent",
            }
        return {
            "id": str(uuid.uuid4()),
            "timestamp": now,
            "source": "environment",
            "code": "ValidationError",
            "detail": "1 validation error for Message",
            "kind": "ServerErrorEvent",
        }


@pytest.fixture
async def replay():
    running: list[Any] = []

    async def start(scenario: str | None = "demo", **options: Any) -> ReplayServer:
        server = ReplayServer(scenario, **options)
        ws_server = await serve(
            server.handler, "127.0.0.1", 0, process_request=server.process_request, max_size=None
        )
        server.port = ws_server.sockets[0].getsockname()[1]
        running.append(ws_server)
        return server

    yield start
    for ws_server in running:
        ws_server.close()
        await ws_server.wait_closed()


# --- consuming -----------------------------------------------------------------------------


class Run:
    """Everything a consumer saw, folded into a StreamState as it went."""

    def __init__(self) -> None:
        self.items: list[StreamEvent | StreamStatus] = []
        self.state = StreamState()
        self.status_history: list[Any] = []
        self.streaming_at_message: dict[str, str] = {}

    @property
    def statuses(self) -> list[StreamStatus]:
        return [i for i in self.items if isinstance(i, StreamStatus)]

    @property
    def events(self) -> list[StreamEvent]:
        return [i for i in self.items if isinstance(i, StreamEvent)]

    def take(self, item: StreamEvent | StreamStatus) -> None:
        self.items.append(item)
        if isinstance(item, StreamEvent) and isinstance(item.event, MessageEvent):
            self.streaming_at_message[item.event.id or ""] = self.state.streaming_text
        before = self.state.execution_status
        self.state.apply(item)
        if self.state.execution_status != before:
            self.status_history.append(self.state.execution_status)


async def consume(
    stream: EventStream, until: Callable[[Run], bool] | None, timeout: float = 8.0
) -> Run:
    run = Run()

    async def go() -> None:
        async for item in stream:
            run.take(item)
            if until is not None and until(run):
                return

    try:
        await asyncio.wait_for(go(), timeout)
    finally:
        await stream.close()
    return run


def saw_id(event_id: str) -> Callable[[Run], bool]:
    return lambda run: any(e.id == event_id for e in run.events)


def has_all(ids: list[str], last_id: str | None = None) -> Callable[[Run], bool]:
    def check(run: Run) -> bool:
        have = {e.id for e in run.state.events}
        return all(i in have for i in ids) and (last_id is None or saw_id(last_id)(run))

    return check


# --- scenarios -----------------------------------------------------------------------------

EXPECTED_STATUS = {
    "demo": "finished",
    "demo_resend_all": "finished",
    "stream": "finished",
    "slow": "finished",  # the frames end: … finished, full_state(finished), ServerErrorEvent
    "confirm": "idle",  # waiting_for_confirmation, then rejected → idle
    "fail": "error",
}


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_replay_scenario(replay, scenario: str) -> None:
    frames = load_frames(scenario)
    persisted = persisted_events(scenario)
    server = await replay(scenario)
    stream = EventStream(server.url(), session_api_key=KEY, **FAST)
    run = await consume(stream, saw_id(frames[-1]["id"]))
    state = run.state

    # connection statuses and the first connection's query (key never in it)
    assert [s.state for s in run.statuses] == ["connecting", "live"]
    assert server.queries == [{"resend_mode": "all"}]
    assert server.handshakes == 1

    # every frame reached the consumer once, in order
    assert [e.id for e in run.events] == [f["id"] for f in frames]
    assert not any(e.replaces for e in run.events)
    assert not any(isinstance(e.event, RawEvent) for e in run.events)

    # the persisted list: no deltas, no full_state, each id once, in the server's log order
    ids = [e.id for e in state.events]
    assert ids == [p["id"] for p in persisted]
    assert len(set(ids)) == len(ids)
    assert not any(isinstance(e, StreamingDeltaEvent) for e in state.events)
    assert not any(getattr(e, "key", None) == "full_state" for e in state.events)

    assert state.execution_status == EXPECTED_STATUS[scenario]
    assert isinstance(state.execution_status, ExecutionStatus)
    assert (state.cost, state.prompt_tokens, state.completion_tokens) == stats_of(frames)
    assert state.total_tokens == state.prompt_tokens + state.completion_tokens
    assert state.streaming_text == "" and state.streaming_reasoning == ""
    assert state.connection is not None and state.connection.state == "live"

    if scenario == "fail":
        error = state.last_error
        assert isinstance(error, ConversationErrorEvent)
        assert error.id == next(f["id"] for f in frames if f["kind"] == "ConversationErrorEvent")
        assert error.code == "LLMServiceUnavailableError"
        assert run.status_history[-2:] == ["running", "error"]
    else:
        assert state.last_error is None
    if scenario == "slow":
        assert state.server_notice is not None and state.server_notice.code == "ValidationError"
        assert "paused" in run.status_history
        assert any(e.kind == "InterruptEvent" for e in state.events)
    else:
        assert state.server_notice is None
    if scenario == "confirm":
        assert run.status_history[-2:] == ["waiting_for_confirmation", "idle"]
        assert state.events[-1].kind == "UserRejectObservation"
    if scenario in ("demo", "demo_resend_all"):
        hooks = [e for e in state.events if isinstance(e, HookExecutionEvent)]
        assert len(hooks) == 3
        # live copies lack parent_id; the resend_all replay carries it (facts §6)
        assert all(bool(h.parent_id) == (scenario == "demo_resend_all") for h in hooks)


async def test_stream_deltas_concatenate_to_final_message(replay) -> None:
    frames = load_frames("stream")
    deltas = [f for f in frames if f["kind"] == "StreamingDeltaEvent"]
    final = next(f for f in frames if f["kind"] == "MessageEvent" and f["source"] == "agent")
    text = final["llm_message"]["content"][0]["text"]
    assert len(deltas) == 9 and "".join(d["content"] for d in deltas) == text

    server = await replay("stream")
    run = await consume(EventStream(server.url(), session_api_key=KEY), saw_id(frames[-1]["id"]))
    assert run.streaming_at_message[final["id"]] == text  # shown in full just before it lands
    assert run.state.streaming_text == ""  # then cleared by the MessageEvent
    assert [
        e.id for e in run.events if e.transient and isinstance(e.event, StreamingDeltaEvent)
    ] == [d["id"] for d in deltas]


# --- drops, gaps and dedup -----------------------------------------------------------------


async def test_five_drops_lose_nothing(replay) -> None:
    frames = load_frames("demo")
    persisted = [p["id"] for p in persisted_events("demo")]
    server = await replay(
        "demo",
        drops=[4, 11, 19, 27, 35],
        drop_modes=[1011, "abort", 1012, "abort", 1013],
        gap=2,  # the script runs on while nobody listens
    )
    stream = EventStream(server.url(), session_api_key=KEY, **FAST)
    run = await consume(stream, has_all(persisted, frames[-1]["id"]))

    ids = [e.id for e in run.state.events]
    assert ids == persisted  # every persisted event exactly once, in the file's order
    first_seen = list(dict.fromkeys(e.id for e in run.events if not e.transient))
    assert first_seen == [f["id"] for f in frames if not transient_frame(f)]
    assert run.state.execution_status == "finished"

    states = [s.state for s in run.statuses]
    assert states.count("reconnecting") == 5 and states.count("live") == 6
    after_first = states[states.index("reconnecting") :]
    assert after_first[:3] == ["reconnecting", "catching up", "live"]
    codes = [s.close_code for s in run.statuses if s.state == "reconnecting"]
    assert codes == [1011, 1006, 1012, 1006, 1013]
    assert all(
        s.attempt == 1 and s.retry_in is not None for s in run.statuses if s.state == "reconnecting"
    )

    # the first connection asks for the whole log; reconnects for live events only, and the
    # gap comes from the agent's log, newest page first, by id: never by a timestamp
    assert server.queries[0] == {"resend_mode": "all"}
    assert server.queries[1:] == [{}] * 5
    assert len(server.searches) == 5
    assert all(q["sort_order"] == "TIMESTAMP_DESC" and "page_id" not in q for q in server.searches)
    filled = [e.id for e in run.events if e.filled]
    assert filled and set(filled) <= set(persisted)


async def test_gap_fill_brings_an_event_stamped_before_the_newest_seen(replay) -> None:
    """Log order is not timestamp order: stats update acb6161c (…02.698) is logged after
    99fdb811 (…03.577). Drop right after 99fdb811 while acb6161c goes out unheard: a resume
    from the newest timestamp seen (``since``) could not bring it back; filling the gap by
    identity does, whatever its stamp says."""
    frames = load_frames("demo")
    ids = [f["id"] for f in frames]
    seen_last = next(i for i in ids if i.startswith("99fdb811"))
    missed = next(i for i in ids if i.startswith("acb6161c"))
    assert ids.index(missed) == ids.index(seen_last) + 1
    assert frames[ids.index(missed)]["timestamp"] < frames[ids.index(seen_last)]["timestamp"]

    server = await replay("demo", drops=[ids.index(seen_last) + 1], gap=1)
    stream = EventStream(server.url(), session_api_key=KEY, **FAST)
    run = await consume(stream, saw_id(frames[-1]["id"]))

    assert [e.id for e in run.state.events] == [p["id"] for p in persisted_events("demo")]
    new = [e.id for e in run.events if e.filled and not e.replaces]
    assert new[0] == missed  # the gap first; then what was logged while the pages were read
    assert server.queries == [{"resend_mode": "all"}, {}]


async def test_live_hook_event_replaced_by_persisted_copy(replay) -> None:
    frames = load_frames("demo")
    persisted = {p["id"]: p for p in persisted_events("demo")}
    hook_ids = [f["id"] for f in frames if f["kind"] == "HookExecutionEvent"]
    assert all("parent_id" not in f for f in frames if f["id"] in hook_ids)
    # drop after the very last frame; the server has no log route, so the reconnect asks
    # for the whole log again, which holds the persisted copies
    server = await replay("demo", drops=[len(frames)], rest=False)
    stream = EventStream(server.url(), session_api_key=KEY, **FAST)

    def replaced_all(run: Run) -> bool:
        return sum(e.replaces for e in run.events) == len(hook_ids)

    run = await consume(stream, replaced_all)
    replaced = [e for e in run.events if e.replaces]
    assert [e.id for e in replaced] == hook_ids
    for event in replaced:
        assert event.event.parent_id == persisted[event.id]["parent_id"]
    state_ids = [e.id for e in run.state.events]
    assert state_ids == list(persisted)  # one event per id, in place
    for hook_id in hook_ids:
        assert run.state.event(hook_id).parent_id == persisted[hook_id]["parent_id"]
    # the rest of the replay were exact duplicates: dropped, not yielded
    assert sum(1 for e in run.events if not e.transient and not e.replaces) == len(persisted)


async def test_a_server_without_the_log_route_gets_full_replays(replay) -> None:
    """Where the agent's log cannot be read (404), a reconnect asks for the whole log at
    once, and keeps doing so: de-duplication removes what was seen."""
    frames = load_frames("demo")
    server = await replay("demo", drops=[10, 20], rest=False)
    stream = EventStream(server.url(), session_api_key=KEY, **FAST)
    run = await consume(stream, saw_id(frames[-1]["id"]))
    # the first reconnect tried the log (404: never tried again), then replayed at once
    assert server.queries[:3] == [{"resend_mode": "all"}, {}, {"resend_mode": "all"}]
    assert all(q == {"resend_mode": "all"} for q in server.queries[2:])
    assert server.refused_searches == 1 and stream.gaps.usable is False
    assert [e.id for e in run.state.events] == [p["id"] for p in persisted_events("demo")]
    refused = [s for s in run.statuses if s.why and "replaying the whole log" in s.why]
    assert len(refused) == 1 and refused[0].retry_in == 0.0


async def test_known_events_are_left_out_and_the_fill_stops_at_them(replay) -> None:
    """A consumer that holds the history (``known``) gets live events only, plus what the
    agent logged beyond the history, found by id; stamps play no part."""
    frames = load_frames("demo")
    persisted = [p["id"] for p in persisted_events("demo")]
    server = await replay("demo")
    server.pos = 29  # the agent logged 29 frames before anyone listened
    logged = [e["id"] for e in server.log()]
    held = set(logged[:12])  # the history the consumer loaded holds the log's first 12 events
    stream = EventStream(server.url(), session_api_key=KEY, known=lambda e: e.id in held, **FAST)
    run = await consume(stream, saw_id(frames[-1]["id"]))

    assert server.queries == [{}]  # live events only: no replay asked for
    assert [s.state for s in run.statuses] == ["connecting", "catching up", "live"]
    assert len(server.searches) == 1  # the newest page reached the history: done
    assert [e.id for e in run.state.events] == [i for i in persisted if i not in held]
    filled = [e.id for e in run.events if e.filled]
    # the gap, oldest first, before the live frames (and what was logged while the page
    # was read: the socket's copies of those were dropped)
    assert filled[: len(logged) - 12] == logged[12:]
    assert len(set(filled)) == len(filled)


async def test_invalid_json_frame_becomes_raw_event(replay) -> None:
    frames = load_frames("fail")
    script = [frames[0], "{not json", *frames[1:]]
    server = await replay("fail", frames=script)
    run = await consume(EventStream(server.url(), session_api_key=KEY), saw_id(frames[-1]["id"]))
    raws = [e.event for e in run.events if isinstance(e.event, RawEvent)]
    assert len(raws) == 1 and raws[0].raw == "{not json" and "invalid JSON" in raws[0].error
    assert raws[0] in run.state.events  # kept, shown as unparsed
    assert run.state.execution_status == "error"


# --- failures that are not retried ---------------------------------------------------------


def _assert_no_key(*texts: str) -> None:
    for text in texts:
        assert KEY not in text


def client_log(caplog: pytest.LogCaptureFixture) -> str:
    """What the client logged (the replay server's own websockets log sees the key)."""
    return "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("websockets"))


async def test_bad_key_first_frame_is_4001_and_not_retried(replay, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    server = await replay("demo", key="the-right-key")
    stream = EventStream(server.url(), session_api_key=KEY, **FAST)
    run = await consume(stream, None)
    assert [s.state for s in run.statuses] == ["connecting", "failed"]
    failed = run.statuses[-1]
    assert failed.close_code == 4001
    assert isinstance(failed.exception, AuthError) and failed.exception is stream.failure
    assert failed.exception.status == 4001
    assert "authentication failed" in failed.error
    assert server.handshakes == 1 and not run.events
    _assert_no_key(
        failed.error,
        str(failed.exception),
        repr(failed.exception),
        repr(stream),
        repr(failed),
        client_log(caplog),
    )
    assert "****" in client_log(caplog)  # websockets' frame log went through the redactor


async def test_bad_key_raises_when_asked(replay) -> None:
    server = await replay("demo", key="the-right-key")
    stream = EventStream(server.url(), session_api_key=KEY, raise_on_failure=True, **FAST)
    seen: list[Any] = []
    with pytest.raises(AuthError) as info:
        async for item in stream:
            seen.append(item)
    assert [s.state for s in seen] == ["connecting", "failed"]
    _assert_no_key(str(info.value))


async def test_unknown_conversation_is_4004_and_not_retried(replay) -> None:
    server = await replay("demo")
    stream = EventStream(server.url(uuid.uuid4()), session_api_key=KEY, **FAST)
    run = await consume(stream, None)
    failed = run.statuses[-1]
    assert failed.state == "failed" and failed.close_code == 4004
    assert isinstance(failed.exception, NotFound)
    assert "conversation not found" in failed.error
    assert server.handshakes == 1


@pytest.mark.parametrize("auth", ["header", "query"])
async def test_handshake_403_is_auth_error_and_not_retried(replay, caplog, auth) -> None:
    caplog.set_level(logging.DEBUG)
    server = await replay("demo", key="the-right-key")
    stream = EventStream(server.url(), session_api_key=KEY, auth=auth, **FAST)
    run = await consume(stream, None)
    failed = run.statuses[-1]
    assert failed.state == "failed" and failed.close_code == 403
    assert isinstance(failed.exception, AuthError) and failed.exception.status == 403
    assert server.handshakes == 1
    _assert_no_key(failed.error, str(failed.exception), repr(failed.exception), client_log(caplog))
    assert "tui.client.stream.websockets" in {r.name for r in caplog.records}


async def test_handshake_404_is_not_found(replay) -> None:
    server = await replay("demo", handshake_statuses=[404])
    run = await consume(EventStream(server.url(), session_api_key=KEY, **FAST), None)
    assert isinstance(run.statuses[-1].exception, NotFound)
    assert server.handshakes == 1


@pytest.mark.parametrize("auth", ["message", "header", "query"])
async def test_auth_modes(replay, auth) -> None:
    frames = load_frames("confirm")
    server = await replay("confirm")
    stream = EventStream(server.url(), session_api_key=KEY, auth=auth)
    run = await consume(stream, saw_id(frames[-1]["id"]))
    assert run.state.execution_status == "idle"
    query, headers = server.queries[0], server.headers[0]
    assert ("session_api_key" in query) is (auth == "query")
    assert ("X-Session-API-Key" in headers) is (auth == "header")


# --- retried failures ----------------------------------------------------------------------


async def test_handshake_503_and_close_1013_are_retried(replay) -> None:
    frames = load_frames("fail")
    server = await replay("fail", handshake_statuses=[503, 502], connect_closes=[1013])
    stream = EventStream(server.url(), session_api_key=KEY, **FAST)
    run = await consume(stream, saw_id(frames[-1]["id"]))
    shown = [(s.state, s.attempt, s.close_code) for s in run.statuses]
    assert shown == [
        ("connecting", 0, None),
        ("reconnecting", 2, 503),
        ("reconnecting", 3, 502),
        ("reconnecting", 4, 1013),
        ("live", 0, None),
    ]
    assert "HTTP 503" in run.statuses[1].error
    assert run.state.execution_status == "error"


async def test_unreachable_server_goes_offline_then_fails() -> None:
    with socket.socket() as sock:  # a port with nobody listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    stream = EventStream(
        f"ws://127.0.0.1:{port}/sockets/events/{uuid.uuid4().hex}",
        session_api_key=KEY,
        offline_after=2,
        max_attempts=4,
        **FAST,
    )
    run = await consume(stream, None)
    assert [(s.state, s.attempt) for s in run.statuses] == [
        ("connecting", 0),
        ("reconnecting", 2),
        ("offline", 3),
        ("offline", 4),
        ("failed", 4),
    ]
    assert isinstance(stream.failure, ConnectionLost)
    assert all(0 < s.retry_in <= 0.05 for s in run.statuses[1:-1])


# --- sending, closing, cancelling ----------------------------------------------------------


async def test_send_over_socket(replay) -> None:
    frames = load_frames("demo")
    server = await replay("demo")
    stream = EventStream(server.url(), session_api_key=KEY)
    with pytest.raises(ConnectionLost):
        await stream.send("too early")
    run = Run()
    async with stream:
        async for item in stream:
            run.take(item)
            if isinstance(item, StreamEvent) and item.id == frames[-1]["id"]:
                await stream.send("hello there")
                await stream.send_json({"role": "nobody", "content": 5})
            if run.state.server_notice is not None:
                break
    assert json.loads(server.received[0]) == {
        "role": "user",
        "content": [{"type": "text", "text": "hello there"}],
    }
    echoed = run.state.events[-1]
    assert isinstance(echoed, MessageEvent) and echoed.llm_message.content[0].text == "hello there"
    assert run.state.server_notice.code == "ValidationError"
    with pytest.raises(ConnectionLost):
        await stream.send("after close")


async def _wait_disconnected(server: ReplayServer) -> None:
    async with asyncio.timeout(3):
        while server.open_connections:
            await server.connection_closed.wait()
            server.connection_closed.clear()


async def test_cancelled_consumer_closes_socket(replay) -> None:
    server = await replay("demo")
    stream = EventStream(server.url(), session_api_key=KEY)
    live = asyncio.Event()

    async def consumer() -> None:
        async for item in stream:
            if isinstance(item, StreamEvent):
                live.set()

    task = asyncio.create_task(consumer())
    await asyncio.wait_for(server.done.wait(), 5)
    await live.wait()
    assert server.open_connections == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _wait_disconnected(server)
    assert stream._ws is None


async def test_close_from_another_task_ends_iteration(replay) -> None:
    server = await replay("demo")
    stream = EventStream(server.url(), session_api_key=KEY)
    items: list[Any] = []

    async def consumer() -> None:
        async for item in stream:
            items.append(item)

    task = asyncio.create_task(consumer())
    await asyncio.wait_for(server.done.wait(), 5)
    await stream.close()
    await asyncio.wait_for(task, 3)  # ends quietly, no failed status
    assert items[-1] != StreamStatus("failed")
    assert not any(isinstance(i, StreamStatus) and i.state == "failed" for i in items)
    await _wait_disconnected(server)
    await stream.close()  # idempotent


async def test_close_during_backoff_is_prompt() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    stream = EventStream(f"ws://127.0.0.1:{port}/sockets/events/x", backoff_base=30, backoff_max=30)
    statuses: list[StreamStatus] = []

    async def consumer() -> None:
        async for item in stream:
            statuses.append(item)  # type: ignore[arg-type]

    task = asyncio.create_task(consumer())
    async with asyncio.timeout(3):
        while not statuses or statuses[-1].state != "reconnecting":
            await asyncio.sleep(0.01)
    await stream.close()
    await asyncio.wait_for(task, 1)


async def test_batches(replay) -> None:
    frames = load_frames("demo")
    server = await replay("demo")
    stream = EventStream(server.url(), session_api_key=KEY)
    batches: list[list[Any]] = []
    async with asyncio.timeout(5):
        async for batch in stream.batches(0.05):
            batches.append(batch)
            if any(isinstance(i, StreamEvent) and i.id == frames[-1]["id"] for i in batch):
                break
    items = [i for b in batches for i in b]
    assert all(batches)
    assert [i.id for i in items if isinstance(i, StreamEvent)] == [f["id"] for f in frames]
    assert len(batches) < len(items)  # actually batched
    await _wait_disconnected(server)  # leaving the loop closed the stream


async def test_batches_end_after_failure(replay) -> None:
    server = await replay("demo")
    stream = EventStream(server.url(uuid.uuid4()), session_api_key=KEY)
    batches = [b async for b in stream.batches(0.01)]
    assert [i.state for b in batches for i in b] == ["connecting", "failed"]

    server = await replay("demo")
    stream = EventStream(server.url(uuid.uuid4()), session_api_key=KEY, raise_on_failure=True)
    with pytest.raises(NotFound):
        async for _ in stream.batches(0.01):
            pass


def test_reconnects_back_off_more_per_failure_and_start_over_after_a_stable_connection():
    """What follows a drop (``stream_reconnects.py``): the pause grows with failures in a
    row, a connection that stayed up ``stable_after`` starts the backoff over, and only
    attempts that never went live count towards ``offline`` and ``max_attempts``."""

    def reconnects(stable_after: float) -> Reconnects:
        return Reconnects(
            JitteredBackoff(1.0, 64.0),
            max_attempts=3,
            offline_after=2,
            stable_after=stable_after,
            skim_max=1,
            display_url="ws://x.test/sockets/events/c1",
            redact=str,
        )

    dropped = OSError("connection refused")
    never_stable = reconnects(stable_after=3600.0)
    pauses = []
    for _ in range(3):
        never_stable.connecting()
        never_stable.went_live()  # live, but dropped before it was stable
        status, delay = never_stable.after(dropped, "ws://x.test")
        assert status.state == "reconnecting" and status.attempt == 1
        pauses.append(delay)
    assert 0.5 <= pauses[0] <= 1.0 and 2.0 <= pauses[2] <= 4.0  # doubling per failure

    stable = reconnects(stable_after=0.0)
    for _ in range(3):
        stable.connecting()
        stable.went_live()
        _, delay = stable.after(dropped, "ws://x.test")
        assert delay <= 1.0  # every drop after a stable connection is the first failure

    dead = reconnects(stable_after=0.0)
    states = []
    for _ in range(3):
        dead.connecting()  # never goes live
        status, _ = dead.after(dropped, "ws://x.test")
        states.append((status.state, status.attempt))
    assert states == [("reconnecting", 2), ("offline", 3), ("failed", 3)]
    assert isinstance(status.exception, ConnectionLost) and "gave up after 3" in (status.why or "")
