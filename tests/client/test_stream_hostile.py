"""The live stream against frames over its size limit and closes that need words.

A frame over ``max_size`` used to close the socket (1009), and every reconnect replayed it:
21 reconnects a minute, later events never shown, the header still "● live". Now one
reconnect reads past it, the frame becomes a placeholder with its id (fetched by REST when
opened) and every later event arrives. The replay server (``tests/client/test_stream.py``) plays
a captured scenario with one huge frame put in.
"""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.server import serve

from tests.client.test_stream import KEY, ReplayServer, consume, load_frames, saw_id
from tui.client import EventStream
from tui.client.stream import OVERSIZE, close_words, is_oversize, oversize_event

FAST = {"backoff_base": 0.01, "backoff_max": 0.05}


@pytest.fixture
async def replay():
    running = []

    async def start(scenario: str | None = "demo", **options) -> ReplayServer:
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


def _huge(frames: list, at: int, size: int) -> tuple[list, dict]:
    """``frames`` with one huge observation-like event put in at ``at`` (its output last)."""
    before = next(f for f in reversed(frames[:at]) if isinstance(f, dict) and f.get("id"))
    big = {
        "id": "huge-event-1",
        "timestamp": before["timestamp"],
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": "call_huge",
        "action_id": "a-huge",
        "observation": {
            "kind": "TerminalObservation",
            "id": "not-the-top-level-id",
            "content": [{"type": "text", "text": "x" * size}],
        },
        "parent_id": before["id"],
        "kind": "ObservationEvent",
    }
    return [*frames[:at], big, *frames[at:]], big


def test_a_placeholder_keeps_the_frames_identity_and_says_why():
    _, big = _huge(load_frames("fail"), 3, 300_000)
    event = oversize_event(json.dumps(big), 100_000)
    assert is_oversize(event) and event.reason == OVERSIZE
    assert (event.id, event.kind, event.source) == (
        "huge-event-1",
        "ObservationEvent",
        "environment",
    )
    assert event.parent_id == big["parent_id"] and event.timestamp == big["timestamp"]
    assert "over the live stream's 0.1 MiB limit" in event.error and "fetched by id" in event.error
    assert event.raw["size"] > 300_000 and "x" * 100 not in json.dumps(event.raw)


async def test_a_frame_over_the_limit_comes_whole_from_the_agents_log(replay):
    """The socket closes on the frame; the gap fill reads it from the agent's log (HTTP has
    no frame limit), whole, and the live frames go on."""
    frames = load_frames("fail")
    script, big = _huge(frames, 4, 400_000)
    server = await replay("fail", frames=script)
    stream = EventStream(server.url(), session_api_key=KEY, max_size=100_000, **FAST)
    run = await consume(stream, saw_id(frames[-1]["id"]))
    assert not any(is_oversize(e.event) for e in run.events)
    (whole,) = [e for e in run.events if e.id == "huge-event-1"]
    assert whole.filled and whole.event.raw == big  # the whole event, not a placeholder
    states = [s.state for s in run.statuses]
    assert states == ["connecting", "live", "reconnecting", "catching up", "live"]
    seen = {e.id for e in run.events}
    assert {f["id"] for f in frames if isinstance(f, dict) and f.get("id")} - seen <= {
        f["id"] for f in frames if isinstance(f, dict) and f.get("key") == "full_state"
    }


async def test_a_frame_over_the_limit_is_one_placeholder_and_later_events_still_arrive(replay):
    """Where the agent's log cannot be read, the whole log is replayed, reading past the big
    frame: it becomes a placeholder (fetched by id when asked for)."""
    frames = load_frames("fail")
    script, _ = _huge(frames, 4, 400_000)
    server = await replay("fail", frames=script, rest=False)
    stream = EventStream(server.url(), session_api_key=KEY, max_size=100_000, **FAST)
    # the last persisted event (the frames sent while the log was asked for are replayed,
    # the full_state after them is not: the next connection's own comes first)
    run = await consume(stream, saw_id(frames[-2]["id"]))
    placeholders = [e.event for e in run.events if is_oversize(e.event)]
    assert [p.id for p in placeholders] == ["huge-event-1"]
    states = [(s.state, s.close_code) for s in run.statuses]
    assert states == [
        ("connecting", None),
        ("live", None),
        ("reconnecting", 1006),
        ("catching up", None),
        ("reconnecting", None),  # the agent's log: 404, so the whole log is replayed
        ("live", None),
    ]
    assert "reading past it" in run.statuses[2].why and server.handshakes == 3
    assert run.statuses[-1].state == "live"  # the truth: live again, and every event came
    seen = {e.id for e in run.events}
    assert {f["id"] for f in frames if isinstance(f, dict) and f.get("id")} - seen <= {
        f["id"] for f in frames if isinstance(f, dict) and f.get("key") == "full_state"
    }


async def test_a_frame_over_the_skim_limit_ends_the_stream_saying_why(replay):
    frames = load_frames("fail")
    script, _ = _huge(frames, 4, 400_000)
    server = await replay("fail", frames=script, rest=False)  # no gap fill to bring it
    stream = EventStream(
        server.url(), session_api_key=KEY, max_size=100_000, skim_max=200_000, **FAST
    )
    run = await consume(stream, None)
    assert [s.state for s in run.statuses][-1] == "failed"
    assert "cannot be streamed" in run.statuses[-1].why
    assert server.handshakes == 3  # one try to read past it (and the log: 404), no loop


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (4001, "refused the session key"),
        (4004, "does not have this conversation"),
        (1013, "server busy (1013: Too many connections"),
    ],
)
async def test_closes_are_said_in_words(replay, code, words):
    server = await replay("fail", connect_closes=[code] if code == 1013 else [])
    if code == 4001:
        server.key = "another-key"
    url = server.url("0" * 32) if code == 4004 else server.url()
    stream = EventStream(url, session_api_key=KEY, **FAST)
    run = await consume(stream, lambda run: len(run.statuses) >= 2)
    assert words in run.statuses[1].why
    assert close_words(1012) == "the server is restarting (1012)"
