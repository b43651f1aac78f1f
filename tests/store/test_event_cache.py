"""The cache of full events is bounded by bytes: memory follows the rows, not the payloads;
pages ask for fewer events after heavy ones."""

from __future__ import annotations

from tui.app.store.event_cache import EventCache, weigh
from tui.models import parse_event


def _output(i: int, size: int):
    return parse_event(
        {
            "id": f"o{i}",
            "source": "environment",
            "tool_name": "terminal",
            "tool_call_id": f"c{i}",
            "action_id": f"a{i}",
            "observation": {
                "kind": "TerminalObservation",
                "command": "make",
                "exit_code": 0,
                "content": [{"type": "text", "text": "x" * size}],
            },
            "kind": "ObservationEvent",
        }
    )


def test_an_event_weighs_what_its_strings_hold():
    small, big = weigh(_output(1, 10)), weigh(_output(2, 1_000_000))
    assert 1_000_000 < big < 1_000_000 + 20_000 and small < 20_000
    raw = parse_event({"id": "r", "kind": "FutureKind", "blob": "y" * 500_000})
    assert weigh(raw) > 500_000  # a raw event's JSON counts too


def test_the_cache_drops_the_least_recently_used_past_its_bytes():
    cache = EventCache(max_bytes=3_500_000, max_events=100)
    for i in range(10):
        cache.set(f"o{i}", _output(i, 1_000_000))
    assert len(cache) == 3 and cache.bytes <= 3_500_000
    assert [k for k in ("o7", "o8", "o9") if cache.get(k) is not None] == ["o7", "o8", "o9"]
    cache.get("o7")  # used: kept over o8 next time
    cache.set("o10", _output(10, 1_000_000))
    assert cache.get("o8") is None and cache.get("o7") is not None
    cache.set("huge", _output(11, 5_000_000))  # heavier than the whole cache: not kept
    assert cache.get("huge") is None and "o7" in cache


def test_heavy_events_are_remembered_by_weight_once_let_go():
    """What the fetches by id size their requests by (``FullEvents.events_for``): the weight
    of every event held, and of heavy ones (HEAVY_EVENT) after they left the cache; a few
    ints, never the events."""
    cache = EventCache(max_bytes=3_500_000, max_events=100)
    for i in range(5):
        cache.set(f"o{i}", _output(i, 1_100_000))
    cache.set("small", _output(9, 10))
    assert "o0" not in cache and "o4" in cache
    assert 1_100_000 < cache.weight_of("o0") == cache.weight_of("o4") < 1_200_000
    assert cache.weight_of("small") is not None and cache.weight_of("never") is None
    cache.set("huge", _output(11, 5_000_000))  # never held, but its weight is known
    assert "huge" not in cache and cache.weight_of("huge") > 5_000_000
    cache.discard("small")
    assert cache.weight_of("small") is None  # light: nothing kept of it


def test_the_count_bound_still_holds_for_small_events():
    cache = EventCache(max_bytes=10**9, max_events=5)
    for i in range(20):
        cache.set(f"o{i}", _output(i, 10))
    assert len(cache) == 5 and "o19" in cache and "o0" not in cache


async def test_pages_ask_for_fewer_events_after_heavy_ones(make_server, monkeypatch):
    import json

    from tui.app.store import conversation_events
    from tui.app.store.conversation_events import ConversationEvents

    # scaled down: pages of 20, about 500 kB a page, events of 50 kB
    monkeypatch.setattr(conversation_events, "PAGE", 20)
    monkeypatch.setattr(conversation_events, "PAGE_BYTES", 500_000)
    monkeypatch.setattr(conversation_events, "MIN_PAGE", 3)
    from tui.client import OpenHandsClient
    from tui.server import Store
    from tui.server.views import conversation_info

    store = Store()
    cid = "4ea74ea74ea74ea74ea74ea74ea74ea7"
    store.put_conversation(
        conversation_info(id=cid, sandbox_id="sb", title="heavy", created_at="2026-11-20T10:00:00Z")
    )
    events = []
    for i in range(60):
        event = json.loads(_output(i, 50_000).model_dump_json())
        event["timestamp"] = f"2026-11-20T10:{i // 60:02d}:{i % 60:02d}"
        events.append(event)
    store.append_serialized(cid, [(e, json.dumps(e)) for e in events])
    server = make_server(store)
    async with OpenHandsClient(server.base_url) as client:
        store_events = ConversationEvents(client, cid)
        assert store_events.page_size == 20
        assert await store_events.index_page() == 20
        assert 5 <= store_events.page_size <= 10  # ~500 kB of ~50 kB events
        while not store_events.base.complete:
            await store_events.index_page()
        ids = [row.id for row in store_events.base.head]
        assert ids == [f"o{i}" for i in range(60)]  # every event once, in order
