"""Live events are weighed for the cache of full events by their frame's length (the
stream knows it), not serialised again one by one on the UI's loop."""

from __future__ import annotations

from tui.app.conversation_events import ConversationEvents
from tui.app.event_cache import MODEL_OVERHEAD, weigh
from tui.app.live_session import LiveSession
from tui.client import StreamEvent, StreamState
from tui.client.stream_items import EventDeduper
from tui.models import parse_event_json

FRAME = (
    '{"id": "m1", "kind": "MessageEvent", "source": "agent", "timestamp": "2026-01-01T00:00:00",'
    ' "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}}'
)


def test_a_stream_item_carries_its_frames_length_and_the_store_weighs_by_it():
    item = EventDeduper().accept(parse_event_json(FRAME), len(FRAME))
    assert isinstance(item, StreamEvent) and item.size == len(FRAME)
    live = LiveSession.__new__(LiveSession)  # the folding half only: no connection
    live.state, live.held, live.sizes = StreamState(), [], {}
    live.fold([item])
    assert live.sizes == {"m1": len(FRAME)} and [e.id for e in live.held] == ["m1"]

    events = ConversationEvents(None, "c1")  # type: ignore[arg-type] - no request is made
    events.add_live(live.held, (), live.sizes)
    assert events._cache.bytes == len(FRAME) + MODEL_OVERHEAD
    assert events.cached("m1") == item.event


def test_without_a_size_an_event_is_weighed_as_before():
    events = ConversationEvents(None, "c1")  # type: ignore[arg-type]
    event = parse_event_json(FRAME)
    events.add_live([event])
    assert events._cache.bytes == weigh(event)
