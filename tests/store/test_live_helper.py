"""A fast stream's frames read in the helper process (tui/app/helper/live_worker.py): the same
items, rows and cached events as read in-line; read in-line while the helper is not ready,
when it fails and when it dies; no helper left once the stream or the app is closed."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import SIZE, make_app, wait_for
from tests.helpers.samples import event_files
from tui.app.helper.live_worker import HELPER_FROM, LiveReader
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.live_session import LiveSession
from tui.client import StreamState, StreamStatus
from tui.client.oversize_frames import oversize_event
from tui.client.stream_items import EventDeduper, ReadEvent, StreamEvent, StreamFrame
from tui.models import event_json
from tui.models.parse import parse_event_json

LATER = "2099-01-01T00:00:00.000000"
GOOD = {
    "id": "m1",
    "kind": "MessageEvent",
    "source": "agent",
    "timestamp": "2026-01-01T00:00:00",
    "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
}


BURST = 2 * HELPER_FROM


def _frames() -> list[str | bytes]:
    """Every real sample event as a frame, then what a hostile or odd server sends."""
    frames: list[str | bytes] = [
        json.dumps(item) for items in event_files().values() for item in items
    ]
    frames += [
        json.dumps(GOOD),
        json.dumps(GOOD),  # a duplicate: dropped
        json.dumps({**GOOD, "parent_id": "p0"}),  # a later copy with a parent: replaces
        json.dumps({**GOOD, "id": "b1", "llm_message": 7}),  # typed, invalid: raw
        '{"id": "x1", "kind": "MessageEvent", "oops',  # not JSON: raw
        json.dumps({**GOOD, "id": "u1", "kind": "NewerKind"}),  # unknown kind: raw
        json.dumps({**GOOD, "id": None}),  # no id
        json.dumps({**GOOD, "id": "s1"}).replace("hello", "\ud800"),  # UTF-8 cannot hold it
        json.dumps({**GOOD, "id": "by1"}).encode(),  # a binary frame
        json.dumps({**GOOD, "id": "e1"}).replace(
            "hello", "\\u001b[2J\\u0007 OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx"
        ),
    ]
    return frames


def _items(frames: list[str | bytes]) -> list:
    """What the stream yields for these frames when it reads them itself."""
    dedup = EventDeduper()
    return [i for f in frames if (i := dedup.accept(parse_event_json(f), len(f), f)) is not None]


def _same(event) -> str:
    return json.dumps(event_json(event), sort_keys=True, default=repr) + type(event).__name__


def _shown(items: list) -> tuple[list, dict, StreamState]:
    """The rows a store makes of the items, the events it reads back, and the fold."""
    live = LiveSession.__new__(LiveSession)  # the folding half only: no connection
    live.state, live.held, live.frames = StreamState(), [], {}
    live.fold(items)
    events = ConversationEvents(None, "c1")  # type: ignore[arg-type] - no request is made
    events.base.head_page = None  # its log read whole: live rows join it
    events.add_live(live.held, (), live.frames)
    rows = [events.base.head[i].args() for i in range(len(events.base.head))]
    back = {
        row.id: _same(events.cached(row.id))
        for row in events.base.head
        if row.id is not None and events.cached(row.id) is not None
    }
    return rows, back, live.state


def _fold_figures(state: StreamState) -> tuple:
    return (
        state.execution_status,
        state.cost,
        state.total_tokens,
        state.streaming_text,
        state.last_error is not None,
        state.server_notice is not None,
    )


async def _read(reader: LiveReader, frames: list[str | bytes]) -> list:
    return await reader.read([StreamFrame(f) for f in frames])


async def test_frames_read_in_the_helper_show_as_frames_read_in_line():
    frames = _frames()
    assert len(frames) >= HELPER_FROM
    reader = LiveReader(EventDeduper())
    await _read(reader, frames[:HELPER_FROM])  # starts the helper (read in-line meanwhile)
    await wait_for(lambda: reader.worker.usable)
    reader.dedup = EventDeduper()  # the same frames again, to a reader with the helper ready
    got = await _read(reader, frames)
    pid = reader.worker.pid
    await reader.aclose()
    assert reader.helped == len(frames)
    expected = _items(frames)
    assert len(got) == len(expected)
    read_there = sum(type(item) is ReadEvent for item in got)
    assert read_there > 50  # their rows came from the helper
    assert [i.id for i in got] == [i.id for i in expected]
    assert [i.replaces for i in got] == [i.replaces for i in expected]
    rows, back, state = _shown(got)
    rows_in_line, back_in_line, state_in_line = _shown(expected)
    assert rows == rows_in_line  # summaries (secrets masked), flags, kinds, ids, parents
    assert back == back_in_line  # detail read back from the frame, raw ones with their reason
    assert _fold_figures(state) == _fold_figures(state_in_line)
    shown = [row[4] for row in rows]  # summaries: secrets masked, control sequences gone
    assert not any("abcdefghijklmnop" in s or "\x1b" in s for s in shown)
    assert any("OPENAI_API_KEY=‹redacted›" in s for s in shown)
    assert pid is not None and not _running(pid)  # closed with the stream


async def test_statuses_and_oversize_placeholders_pass_through_in_order():
    reader = LiveReader(EventDeduper())
    live = StreamStatus("live")
    big = oversize_event("x" * 100, 10)
    got = await reader.read([live, StreamFrame(json.dumps(GOOD)), StreamFrame(None, big)])
    assert got[0] is live and isinstance(got[1], StreamEvent) and got[2].event is big
    assert not reader.started  # a few frames: no helper for them


@pytest.mark.parametrize("mode", ["silent", "fails", "dies"])
async def test_frames_are_read_in_line_when_the_helper_is_not_ready_fails_or_dies(
    mode, monkeypatch
):
    monkeypatch.setenv("OHTUI_TEST_HELPER", mode)
    frames = _frames()
    reader = LiveReader(EventDeduper(), module="tests.helpers.live_helper_stub")
    got = await _read(reader, frames)  # starts it; not ready yet: in-line
    assert reader.started
    if mode != "silent":
        await wait_for(lambda: reader.worker.usable)
        reader.dedup = EventDeduper()
        got = await _read(reader, frames)  # asked; its failure or death: in-line
    if mode == "dies":
        assert reader.worker.broken
    await wait_for(lambda: reader.worker.pid is not None)
    pid = reader.worker.pid
    await reader.aclose()
    assert reader.helped == 0
    assert _shown(got)[:2] == _shown(_items(frames))[:2]  # nothing lost, nothing different
    assert pid is not None and not _running(pid)


async def test_a_fast_live_stream_is_read_in_the_helper_and_it_ends_with_the_app(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    hub = server.app.state.live

    def burst(first: int) -> None:  # split in two batches at most: one holds half or more
        # stamped after the history: the server sorts it by time, and so are live rows
        events = [
            {**GOOD, "id": f"fast-{n}", "timestamp": LATER, "llm_message": {**GOOD["llm_message"]}}
            for n in range(first, first + BURST)
        ]
        for n, event in enumerate(events):
            event["llm_message"]["content"] = [{"type": "text", "text": f"n={first + n}"}]

        async def publish() -> None:
            hub.require(cid).publish(events)

        hub.call(publish)

    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        reader = screen.live.reader
        before = len(screen.window)
        await asyncio.to_thread(burst, 0)  # one batch: starts the helper
        await wait_for(lambda: reader.worker.usable, pilot=pilot)
        await asyncio.to_thread(burst, BURST)  # read there
        total = before + 2 * BURST
        await wait_for(lambda: len(screen.window) == total, pilot=pilot)
        assert reader.helped >= BURST // 2
        ids = [screen.window.row(i).id for i in range(total)]
        assert len(set(ids)) == total  # nothing twice
        last = screen.window.row(total - 1)
        n = 2 * BURST - 1
        assert last.id == f"fast-{n}" and last.summary == f"assistant: n={n}"
        again = screen.events.cached(f"fast-{n}")  # the detail: read back from its frame
        assert again is not None and again.llm_message.content[0].text == f"n={n}"
        pid = reader.worker.pid
        assert pid is not None and _running(pid)
    assert not _running(pid)  # gone with the app


def _running(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_row_made_again_from_its_state_has_every_field_it_had():
    from tui.app.store.rows import EventRow

    row = EventRow.__new__(EventRow)
    for n, name in enumerate(EventRow.__slots__):  # a distinct value in each slot
        setattr(row, name, f"value-{n}")
    again = EventRow.from_state(row.state())
    assert [getattr(again, name) for name in EventRow.__slots__] == [
        f"value-{n}" for n in range(len(EventRow.__slots__))
    ]
