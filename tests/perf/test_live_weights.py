"""Live events are kept in the cache of full events as the frames they were read from (the
stream hands them over), not as objects, nor serialised again one by one on the UI's loop."""

from __future__ import annotations

from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.duplicate_rows import DuplicateRow, row_key
from tui.app.store.event_cache import TEXT_OVERHEAD, weigh_json
from tui.app.store.live_session import LiveSession
from tui.client import StreamEvent, StreamState
from tui.client.stream_items import EventDeduper
from tui.models import RawEvent, parse_event_json

FRAME = (
    '{"id": "m1", "kind": "MessageEvent", "source": "agent", "timestamp": "2026-01-01T00:00:00",'
    ' "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}}'
)


def _folded(*frames: str) -> LiveSession:
    live = LiveSession.__new__(LiveSession)  # the folding half only: no connection
    live.state, live.held, live.frames = StreamState(), [], {}
    dedup = EventDeduper()
    live.fold([dedup.accept(parse_event_json(f), len(f), f) for f in frames])
    return live


def _store() -> ConversationEvents:
    events = ConversationEvents(None, "c1")  # type: ignore[arg-type] - no request is made
    events.base.head_page = None  # its log read whole: live rows join it
    return events


def test_a_stream_item_carries_its_frame_and_the_store_keeps_the_text():
    item = EventDeduper().accept(parse_event_json(FRAME), len(FRAME), FRAME)
    assert isinstance(item, StreamEvent) and item.size == len(FRAME) and item.frame == FRAME
    live = _folded(FRAME)
    assert live.frames == {"m1": FRAME} and [e.id for e in live.held] == ["m1"]

    events = _store()
    assert events.add_live(live.held, (), live.frames) == 1
    # kept as the frame's text, weighed by its length; read again (the same event) when asked
    assert events._cache.bytes == len(FRAME.encode()) + TEXT_OVERHEAD
    assert events.cached("m1") == item.event
    assert events.base.head[0].summary.startswith("assistant: hello")


def test_a_live_frame_that_cannot_be_typed_reads_back_raw_with_its_reason():
    bad = '{"id": "b1", "kind": "MessageEvent", "source": "agent", "llm_message": 7}'
    good = FRAME.replace('"m1"', '"m2"')
    live = _folded(bad, good)
    events = _store()
    assert events.add_live(live.held, (), live.frames) == 2  # one bad event hides no other
    again = events.cached("b1")
    assert isinstance(again, RawEvent) and again.error == live.held[0].error
    assert events.base.head[0].flag == "raw" and events.cached("m2") == live.held[1]


def test_a_frame_utf8_cannot_hold_keeps_the_event_itself():
    event = parse_event_json(FRAME.replace("hello", "\\ud800"))  # JSON's escape: a lone surrogate
    frame = FRAME.replace("hello", "\ud800")  # such a frame, as a str (a transport's decoding)
    events = _store()
    assert events.add_live([event], (), {"m1": frame}) == 1
    assert events.cached("m1") == event


def test_without_a_size_an_event_is_kept_as_its_json_text():
    events = ConversationEvents(None, "c1")  # type: ignore[arg-type]
    event = parse_event_json(FRAME)
    events.add_live([event])
    text = weigh_json(event)[1]
    assert text is not None and events._cache.bytes == len(text) + TEXT_OVERHEAD
    assert events.cached("m1") == event


def test_two_events_with_one_id_each_keep_their_own_text():
    """Another event reusing an id, held with the first: each row's event is its own (the
    frames are kept by id, so neither is kept as the other's text)."""
    second = FRAME.replace("2026-01-01T00:00:00", "2026-01-01T00:00:09").replace("hello", "bye")
    live = _folded(FRAME, second)
    events = _store()
    assert events.add_live(live.held, (), live.frames) == 2
    first_row, second_row = events.base.head
    assert isinstance(second_row, DuplicateRow) and not isinstance(first_row, DuplicateRow)
    texts = [events.cached(row_key(r)).llm_message.content[0].text for r in events.base.head]
    assert texts == ["hello", "bye"]
