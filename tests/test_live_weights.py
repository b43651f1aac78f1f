"""Live events are weighed for the cache of full events by their frame's length (the
stream knows it), not serialised again one by one on the UI's loop."""

from __future__ import annotations

from tui.app.conversation_events import ConversationEvents
from tui.app.event_cache import MODEL_OVERHEAD, PARSED_FACTOR, TEXT_OVERHEAD, weigh_json
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
    # kept parsed (not written again on the loop), weighed as parsed: several times its JSON
    assert events._cache.bytes == PARSED_FACTOR * (len(FRAME) + MODEL_OVERHEAD)
    assert events.cached("m1") == item.event


def test_without_a_size_an_event_is_kept_as_its_json_text():
    events = ConversationEvents(None, "c1")  # type: ignore[arg-type]
    event = parse_event_json(FRAME)
    events.add_live([event])
    text = weigh_json(event)[1]
    assert text is not None and events._cache.bytes == len(text) + TEXT_OVERHEAD
    assert events.cached("m1") == event
