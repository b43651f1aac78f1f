"""The one-pass fast paths (pydantic reading JSON itself) give exactly the careful path's
result: for every real sample, generated demo event and hostile case; pages with anything
invalid or too deep fall back whole, so nothing is dropped or typed that should be raw."""

from __future__ import annotations

import json

import pytest

from tests.helpers.samples import iter_events
from tui.models import EventPage, RawEvent, json_text, parse_event
from tui.models.parse import MAX_DEPTH, parse_event_json, parse_page_json
from tui.server import Store
from tui.server.demo import generate_conversation, load_demo


def _careful(text: str):
    return parse_event(json.loads(text))


def _stored_texts() -> list[str]:
    store = Store()
    ids = load_demo(store)
    cid = generate_conversation(store, 600, seed=9)
    texts = [row.json for c in [*ids.values(), cid] for row in store.iter_events(c)]
    store.close()
    return texts


def test_single_events_read_the_same_both_ways():
    texts = [json.dumps(data) for _, data in iter_events()] + _stored_texts()
    assert len(texts) > 1_000
    for text in texts:
        fast, careful = parse_event_json(text), _careful(text)
        assert type(fast) is type(careful) and fast == careful, text[:200]


@pytest.mark.parametrize(
    "text",
    [
        '{"kind": "NoSuchEvent", "id": "x", "timestamp": "t", "source": "agent"}',
        '{"kind": "MessageEvent", "id": "x"}',
        '{"kind": "MessageEvent", "id": "x", "timestamp": "t", "source": "user", "llm_message": {"role": "user", "content": []}, "bogus": 1}',
        '{"kind": "MessageEvent", "id": "x", "timestamp": NaN}',
        '{"id": "\\ud800", "kind": 5}',
        "[1, 2]",
    ],
)
def test_invalid_events_are_raw_with_the_careful_reason(text):
    fast, careful = parse_event_json(text), _careful(text)
    assert isinstance(fast, RawEvent) and fast.model_copy(update={"raw": None}) == (
        careful.model_copy(update={"raw": None})
    )
    # the raw data is the same JSON (NaN is kept as the text sent, not as a float)
    assert json_text(fast.raw) == json_text(careful.raw)


def _nested(depth: int) -> dict:
    value: object = 1
    for _ in range(depth - 1):  # the event object is the first level
        value = [value]
    return {
        "kind": "ConversationStateUpdateEvent",
        "id": "deep",
        "timestamp": "2026-01-01T00:00:00",
        "source": "environment",
        "key": "k",
        "value": value,
    }


def test_deep_events_are_raw_on_every_path():
    shallow, deep = _nested(MAX_DEPTH - 10), _nested(MAX_DEPTH + 1)
    assert not isinstance(parse_event_json(json.dumps(shallow)), RawEvent)
    assert isinstance(parse_event_json(json.dumps(deep)), RawEvent)
    # a page holding the deep one is never read by the fast path (pydantic's JSON reader
    # stops at ~200 levels from the page's root): the careful path makes it raw
    body = json.dumps({"items": [shallow, deep], "next_page_id": None})
    assert parse_page_json(body) is None
    page = EventPage.from_json(json.loads(body))
    assert [isinstance(e, RawEvent) for e in page.items] == [False, True]


def test_pages_read_the_same_both_ways_and_fall_back_whole():
    texts = _stored_texts()[:300]
    items = [json.loads(t) for t in texts]
    body = json.dumps({"items": items, "next_page_id": "p2"}).encode()
    fast = EventPage.read_valid(body)
    careful = EventPage.from_json(json.loads(body))
    assert fast is not None and fast.next_page_id == "p2"
    assert fast.items == careful.items and [type(e) for e in fast.items] == [
        type(e) for e in careful.items
    ]
    spoiled = json.dumps({"items": [*items[:5], {"kind": "Unknown", "id": "u"}], "next_page_id": 7})
    assert EventPage.read_valid(spoiled) is None  # one bad event: the careful path, event by event
    page = EventPage.from_json(json.loads(spoiled))
    assert (
        len(page.items) == 6 and isinstance(page.items[-1], RawEvent) and page.next_page_id is None
    )
