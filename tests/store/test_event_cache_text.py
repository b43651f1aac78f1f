"""The cache of full events keeps them as JSON text and parses them again when asked: what
comes back is the same event (detail, copies, exports, rows), for every real sample, and
the cache stays within its bound in real memory, not only in its own weighing."""

from __future__ import annotations

import json
import tracemalloc

from tests.helpers.samples import iter_events
from tui.app.store import event_cache
from tui.app.store.event_cache import EventCache, weigh_json
from tui.app.store.rows import EventRow, make_row
from tui.models import RawEvent, parse_event, parse_event_json
from tui.models.parse import event_json

SAMPLES = list(iter_events())
#: everything a row says (and find searches)
ROW_FIELDS = (
    "id",
    "timestamp",
    "time",
    "source",
    "kind",
    "summary",
    "parent_id",
    "tool_call_id",
    "flag",
    "text",
    "action_id",
    "transient",
    "is_error",
)


def _row(row: EventRow) -> tuple:
    return tuple(getattr(row, name) for name in ROW_FIELDS)


def _filler(i: int):
    return parse_event(
        {
            "id": f"filler-{i}",
            "timestamp": "2026-11-20T10:00:00.000001",
            "source": "agent",
            "kind": "MessageEvent",
            "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
        }
    )


def test_every_sample_read_back_from_its_text_is_the_same_event(monkeypatch):
    monkeypatch.setattr(event_cache, "HOT_EVENTS", 1)  # one parsed: the rest come from text
    assert len(SAMPLES) > 100
    for index, (name, data) in enumerate(SAMPLES):
        event = parse_event(data)
        cache = EventCache()
        cache.set("k", event)
        cache.set("other", _filler(index))  # "k" is no longer kept parsed
        assert "k" in cache
        again = cache.get("k")
        assert type(again) is type(event), name
        assert again == event, name
        assert event_json(again) == event_json(event), name
        assert _row(make_row(again)) == _row(make_row(event)), name
        if isinstance(event, RawEvent):
            assert again is event  # kept as it is: its JSON is the text it came with
        assert cache.get("k") is again  # parsed once, then kept parsed while used


def test_an_event_kept_as_the_text_it_came_in_reads_as_a_page_reads_it():
    data = next(d for _, d in SAMPLES if d.get("kind") == "ActionEvent")
    text = json.dumps(data).encode()
    cache = EventCache()
    cache.keep_text("a", text)
    assert cache.get("a") == parse_event_json(text)
    cache.keep_text("bad", b'{"id": "bad", "kind": ')  # not JSON: shown raw, never dropped
    assert isinstance(cache.get("bad"), RawEvent)


def test_a_huge_event_is_parsed_again_rather_than_kept_parsed_beside_its_text():
    cache = EventCache(max_bytes=800_000, max_events=10)
    big = parse_event(
        {
            "id": "big",
            "kind": "MessageEvent",
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "x" * 300_000}]},
        }
    )
    cache.set("big", big)
    assert cache.get("big") == big and cache.bytes < 800_000
    text = weigh_json(big)[1]
    assert text is not None and cache.bytes < 2 * len(text)  # its text, not text + model


def test_an_event_whose_text_would_not_read_back_is_a_miss_not_a_raw_event():
    """Built in code, an event has no ``kind`` among what it was given: its text reads as a
    raw event. The cache says it does not have it (the store fetches it by id) rather
    than show it as something it was not."""
    from tui.models.events import PauseEvent

    cache = EventCache()
    cache.set("p", PauseEvent(id="p", source="user"))
    assert b'"kind"' not in weigh_json(PauseEvent(id="p", source="user"))[1]
    assert cache.get("p") is None and "p" not in cache


def _small(i: int):
    return parse_event(
        {
            "id": f"o{i:032x}",
            "timestamp": f"2026-11-20T10:00:00.{i:06d}",
            "source": "environment",
            "tool_name": "terminal",
            "tool_call_id": f"c{i}",
            "action_id": f"a{i}",
            "observation": {
                "kind": "TerminalObservation",
                "command": "make test",
                "exit_code": 0,
                "content": [{"type": "text", "text": f"ok {i}"}],
            },
            "kind": "ObservationEvent",
        }
    )


def test_the_bound_holds_in_real_memory():
    """What the cache holds, measured by the allocator, stays about within its bound: small
    events kept parsed held ~3× the bytes they were weighed at (3.1 MB for a 1 MB bound)."""
    bound, count = 1_000_000, 5_000
    keys = [f"e{i}" for i in range(count)]  # the rows hold the ids, not the cache
    tracemalloc.start()
    try:
        cache = EventCache(max_bytes=bound, max_events=count)
        start = tracemalloc.get_traced_memory()[0]
        for i, key in enumerate(keys):
            cache.set(key, _small(i))
        held = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert cache.bytes <= bound and len(cache) > 1_000
    assert held <= 1.25 * bound, f"{held:,} bytes held for a bound of {bound:,}"
    assert cache.get(keys[-1500]) == _small(count - 1500)
