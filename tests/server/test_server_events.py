"""Reference server: event search, count and batch get (shared and authenticated)."""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Iterator

import httpx
import pytest

from tui.models import EVENT_KINDS, NON_VIEWABLE_KINDS, RawEvent, parse_event
from tui.server import (
    RunningServer,
    Store,
    add_state_update_stretch,
    generate_conversation,
    start_server,
)

SHARED = "/api/shared-events/search"


def v1(conversation_id: str, suffix: str = "search") -> str:
    return f"/api/v1/conversation/{conversation_id}/events/{suffix}".rstrip("/")


def stored(store: Store, conversation_id: str, *, viewable_only: bool = False) -> list[dict]:
    """Every stored event sorted like the service sorts: (timestamp, log position)."""
    rows = sorted(store.iter_events(conversation_id), key=lambda r: (r.timestamp, r.seq))
    events = [json.loads(r.json) for r in rows]
    if viewable_only:
        events = [e for e in events if e["kind"] not in NON_VIEWABLE_KINDS]
    return events


def walk(client: httpx.Client, path: str, **params) -> tuple[list[dict], list[int]]:
    """Follow next_page_id to the end; returns all items and the size of every page."""
    items, sizes, page_id = [], [], None
    for _ in range(10_000):
        query = dict(params, **({"page_id": page_id} if page_id else {}))
        response = client.get(path, params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        items.extend(body["items"])
        sizes.append(len(body["items"]))
        page_id = body["next_page_id"]
        if page_id is None:
            return items, sizes
    raise AssertionError("paging did not end")


@pytest.fixture(scope="module")
def client(demo_server: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=demo_server.base_url, timeout=10) as c:
        yield c


@pytest.fixture(scope="module")
def big() -> Iterator[tuple[RunningServer, httpx.Client, str, str]]:
    """A server with a 10,000-event conversation and one with a long non-viewable stretch."""
    store = Store()
    big_id = generate_conversation(store, 10_000, seed=7, branches=2)
    stretch_id = generate_conversation(store, 30, seed=8)
    add_state_update_stretch(store, stretch_id, 600, viewable_every=40, seed=8)
    server = start_server(store)
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        yield server, c, big_id, stretch_id
    server.stop()
    store.close()


# -- shared search: basic shape ---------------------------------------------------------------


def test_shared_search_returns_viewable_events_in_timestamp_order(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    body = client.get(SHARED, params={"conversation_id": cid}).json()
    expected = stored(demo_server.store, cid, viewable_only=True)
    assert [e["id"] for e in body["items"]] == [e["id"] for e in expected]
    assert body["next_page_id"] is None
    assert not any(e["kind"] == "ConversationStateUpdateEvent" for e in body["items"])


def test_items_are_full_dumps_with_nulls(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    items = client.get(SHARED, params={"conversation_id": cid}).json()["items"]
    user = next(e for e in items if e["kind"] == "MessageEvent" and e["source"] == "user")
    assert user["llm_response_id"] is None and "critic_result" in user
    for item in items:
        parsed = parse_event(item)
        assert not isinstance(parsed, RawEvent)
        assert set(item) == set(parsed.model_dump(mode="json"))


def test_conversation_id_accepts_dashed_uuid(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    dashed = f"{cid[:8]}-{cid[8:12]}-{cid[12:16]}-{cid[16:20]}-{cid[20:]}"
    plain = client.get(SHARED, params={"conversation_id": cid, "limit": 7}).json()
    other = client.get(SHARED, params={"conversation_id": dashed, "limit": 7}).json()
    assert plain["items"] == other["items"]


@pytest.mark.parametrize("conversation_id", ["0" * 32, "not-a-uuid", "' OR 1=1 --"])
def test_unknown_conversation_is_an_empty_page(client, conversation_id):
    response = client.get(SHARED, params={"conversation_id": conversation_id})
    assert response.status_code == 200
    assert response.json() == {"items": [], "next_page_id": None}


def test_descending_is_the_exact_reverse(demo_server, client):
    for cid in demo_server.store.conversation_ids():
        asc, _ = walk(client, SHARED, conversation_id=cid)
        desc, _ = walk(client, SHARED, conversation_id=cid, sort_order="TIMESTAMP_DESC")
        assert [e["id"] for e in desc] == [e["id"] for e in reversed(asc)]


# -- filters ----------------------------------------------------------------------------------


def test_kind_filter(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    for kind in ("ActionEvent", "HookExecutionEvent", "AgentErrorEvent"):
        items = client.get(SHARED, params={"conversation_id": cid, "kind__eq": kind}).json()[
            "items"
        ]
        assert items and {e["kind"] for e in items} == {kind}
        assert len(items) == sum(1 for e in stored(demo_server.store, cid) if e["kind"] == kind)


def test_state_updates_never_come_out_of_shared_search(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    body = client.get(
        SHARED, params={"conversation_id": cid, "kind__eq": "ConversationStateUpdateEvent"}
    ).json()
    assert body == {"items": [], "next_page_id": None}


def test_timestamp_bounds_are_inclusive_then_exclusive(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    events = stored(demo_server.store, cid, viewable_only=True)
    lo, hi = events[3]["timestamp"], events[10]["timestamp"]
    items = client.get(
        SHARED, params={"conversation_id": cid, "timestamp__gte": lo, "timestamp__lt": hi}
    ).json()["items"]
    assert [e["id"] for e in items] == [e["id"] for e in events if lo <= e["timestamp"] < hi]
    assert items[0]["timestamp"] == lo and all(e["timestamp"] != hi for e in items)


def test_tz_aware_filters_compare_their_wall_clock_digits(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    events = stored(demo_server.store, cid, viewable_only=True)
    naive = events[5]["timestamp"]
    a = client.get(SHARED, params={"conversation_id": cid, "timestamp__gte": naive}).json()
    b = client.get(SHARED, params={"conversation_id": cid, "timestamp__gte": naive + "Z"}).json()
    c = client.get(
        SHARED, params={"conversation_id": cid, "timestamp__gte": naive + "+05:00"}
    ).json()
    assert a == b == c and len(a["items"]) == len(events) - 5


def test_filters_combined_with_both_orders_and_paging(demo_server, client):
    store = demo_server.store
    cid = max(store.conversation_ids(), key=store.count_events)  # the long one
    events = [e for e in stored(store, cid) if e["kind"] == "ObservationEvent"]
    lo, hi = events[10]["timestamp"], events[-10]["timestamp"]
    expected = [e["id"] for e in events if lo <= e["timestamp"] < hi]
    params = {
        "conversation_id": cid,
        "kind__eq": "ObservationEvent",
        "timestamp__gte": lo,
        "timestamp__lt": hi,
        "limit": 17,
    }
    asc, sizes = walk(client, SHARED, **params)
    desc, _ = walk(client, SHARED, sort_order="TIMESTAMP_DESC", **params)
    assert [e["id"] for e in asc] == expected
    assert [e["id"] for e in desc] == expected[::-1]
    assert all(size == 17 for size in sizes[:-1])


# -- paging a 10,000-event conversation -------------------------------------------------------


@pytest.mark.parametrize("order", ["TIMESTAMP", "TIMESTAMP_DESC"])
@pytest.mark.parametrize("limit", [100, 37])
def test_paging_collects_every_viewable_event_once_in_order(big, order, limit):
    server, c, cid, _ = big
    expected = [e["id"] for e in stored(server.store, cid, viewable_only=True)]
    if order == "TIMESTAMP_DESC":
        expected.reverse()
    items, sizes = walk(c, SHARED, conversation_id=cid, sort_order=order, limit=limit)
    ids = [e["id"] for e in items]
    assert ids == expected
    assert len(set(ids)) == len(ids) > 6000
    assert all(size == limit for size in sizes[:-1]) and 0 < sizes[-1] <= limit


def test_generated_log_has_ties_and_out_of_order_timestamps(big):
    server, _, cid, _ = big
    rows = list(server.store.iter_events(cid))
    stamps = [r.timestamp for r in rows]
    assert len(set(stamps)) < len(stamps)  # ties, broken by log position
    assert any(b < a for a, b in itertools.pairwise(stamps))  # log order != timestamp order


def test_refill_rule_keeps_pages_full_across_non_viewable_stretches(big):
    server, c, _, cid = big
    expected = [e["id"] for e in stored(server.store, cid, viewable_only=True)]
    for order in ("TIMESTAMP", "TIMESTAMP_DESC"):
        items, sizes = walk(c, SHARED, conversation_id=cid, limit=10, sort_order=order)
        want = expected if order == "TIMESTAMP" else expected[::-1]
        assert [e["id"] for e in items] == want
        assert all(size == 10 for size in sizes[:-1])
        assert sizes[-1] > 0  # never an empty trailing page when items exist


def test_next_page_id_is_null_exactly_at_the_end(big):
    server, c, cid, _ = big
    events = stored(server.store, cid, viewable_only=True)
    # cut the log with timestamp__lt so the count divides the limit: the last page is then
    # full and must still end the walk (no trailing empty page)
    for cut in range(len(events) - 1, 0, -1):
        n = sum(e["timestamp"] < events[cut]["timestamp"] for e in events)
        if n % 50 == 0:
            break
    for limit in (50, 100):
        _, sizes = walk(
            c, SHARED, conversation_id=cid, limit=limit, timestamp__lt=events[cut]["timestamp"]
        )
        if n % limit == 0:
            assert sizes == [limit] * (n // limit)
        else:
            assert sum(sizes) == n and 0 < sizes[-1] < limit


def test_deep_pages_use_an_index_without_sorting(big):
    server, _, cid, _ = big
    sql = (
        "SELECT timestamp, seq, json FROM events WHERE conversation_id = ? AND viewable = 1"
        " AND (timestamp, seq) > (?, ?) ORDER BY timestamp, seq LIMIT 101"
    )
    plan = " ".join(server.store.explain(sql, (cid, "2026-08-20T10:00:00", 5000)))
    assert "USING INDEX ix_events_view" in plan and "TEMP B-TREE" not in plan


# -- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "where"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"limit": -5}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"timestamp__gte": "yesterday"}, "timestamp__gte"),
        ({"timestamp__lt": "2026-13-45T99:00:00"}, "timestamp__lt"),
        ({"kind__eq": "Event"}, "kind__eq"),
        ({"kind__eq": "openhands.sdk.event.llm_convertible.message.MessageEvent"}, "kind__eq"),
        ({"sort_order": "NEWEST"}, "sort_order"),
        ({"page_id": "not a token"}, "page_id"),
        ({"page_id": base64.urlsafe_b64encode(b'["cv","x","y"]').decode()}, "page_id"),
        ({"page_id": base64.urlsafe_b64encode(b'["ev","x","5"]').decode()}, "page_id"),
        ({"page_id": "%%%"}, "page_id"),
    ],
)
@pytest.mark.parametrize("authenticated", [False, True])
def test_bad_parameters_are_fastapi_422s(demo_server, client, params, where, authenticated):
    cid = demo_server.store.conversation_ids()[0]
    if authenticated:
        response = client.get(v1(cid), params=params)
    else:
        response = client.get(SHARED, params={"conversation_id": cid, **params})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, list) and detail
    for error in detail:
        assert {"loc", "msg", "type"} <= set(error)
        assert error["loc"] == ["query", where]


def test_missing_conversation_id_is_422(client):
    response = client.get(SHARED)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "conversation_id"]
    assert response.json()["detail"][0]["type"] == "missing"


def test_every_kind_is_accepted_by_the_filter(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    for kind in EVENT_KINDS:
        assert (
            client.get(SHARED, params={"conversation_id": cid, "kind__eq": kind}).status_code == 200
        )


# -- authenticated search, count, batch -------------------------------------------------------


def test_authenticated_search_includes_state_updates(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    items, _ = walk(client, v1(cid), limit=13)
    assert [e["id"] for e in items] == [e["id"] for e in stored(demo_server.store, cid)]
    updates = client.get(v1(cid), params={"kind__eq": "ConversationStateUpdateEvent"}).json()[
        "items"
    ]
    assert updates and all(e["kind"] == "ConversationStateUpdateEvent" for e in updates)
    assert {e["key"] for e in updates} >= {"execution_status", "stats", "last_user_message_id"}


def test_counts(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    events = stored(demo_server.store, cid)
    total = client.get(v1(cid, "count")).json()
    assert total == len(events)
    # like the real service, the shared count does not drop non-viewable events
    assert client.get("/api/shared-events/count", params={"conversation_id": cid}).json() == total
    assert client.get(v1(cid, "count"), params={"kind__eq": "ActionEvent"}).json() == sum(
        e["kind"] == "ActionEvent" for e in events
    )
    lo = events[10]["timestamp"]
    assert client.get(v1(cid, "count"), params={"timestamp__gte": lo}).json() == sum(
        e["timestamp"] >= lo for e in events
    )
    assert client.get(v1("0" * 32, "count")).json() == 0
    assert client.get(v1(cid, "count"), params={"kind__eq": "Bogus"}).status_code == 422


def test_batch_get(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    events = stored(demo_server.store, cid)
    state = next(e for e in events if e["kind"] == "ConversationStateUpdateEvent")
    first = next(e for e in events if e["kind"] not in NON_VIEWABLE_KINDS)
    ids = [first["id"], "missing-id", state["id"]]
    got = client.get(v1(cid, ""), params={"id": ids}).json()
    assert [g and g["id"] for g in got] == [ids[0], None, state["id"]]
    shared = client.get("/api/shared-events", params={"conversation_id": cid, "id": ids}).json()
    assert [g and g["id"] for g in shared] == [ids[0], None, None]  # non-viewable -> null
    one = client.get(f"/api/shared-events/{cid}/{ids[0]}").json()
    assert one["id"] == ids[0]
    assert client.get(f"/api/shared-events/{cid}/nope").json() is None


def test_batch_get_limits(demo_server, client):
    cid = demo_server.store.conversation_ids()[0]
    assert client.get(v1(cid, ""), params={"id": [f"x{i}" for i in range(100)]}).status_code == 200
    too_many = client.get(v1(cid, ""), params={"id": [f"x{i}" for i in range(101)]})
    assert too_many.status_code == 400 and "100" in too_many.json()["detail"]
    assert client.get(v1(cid, "")).status_code == 422
