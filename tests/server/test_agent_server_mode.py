"""The reference server in agent-server mode (``create_app(kind="agent")``), spoken to with
plain httpx over loopback: the routes and semantics of a real agent server 1.58 (facts §1c,
§10), so the client's agent-server half can be tested without one.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tui.server import RunningServer, Store, add_live_demo, generate_conversation, load_demo

KEY = "agent-mode-key-7c1e"
QUALIFIED_MESSAGE = "openhands.sdk.event.llm_convertible.message.MessageEvent"


GENERATED = 230  # events of the generated conversation (three pages of 100)
_session = httpx.Client(headers={"X-Session-API-Key": KEY})


@pytest.fixture
def agent_server(make_server: Callable[..., RunningServer]) -> Iterator[RunningServer]:
    store = Store()
    load_demo(store)
    add_live_demo(store)
    server = make_server(store, session_key=KEY, kind="agent")
    server.generated = generate_conversation(store, GENERATED, seed=11)  # type: ignore[attr-defined]
    yield server
    server.stop()
    store.close()


def get(server: RunningServer, path: str, **kwargs: Any) -> httpx.Response:
    return _session.request(kwargs.pop("method", "GET"), server.base_url + path, **kwargs)


def conversation_ids(server: RunningServer) -> list[str]:
    return [item["id"] for item in get(server, "/api/conversations/search").json()["items"]]


def longest(server: RunningServer) -> str:
    return server.generated  # type: ignore[attr-defined]


def test_only_agent_server_routes(agent_server: RunningServer) -> None:
    info = httpx.get(agent_server.base_url + "/server_info").json()  # public, as on 1.58
    assert info["title"] == "OpenHands Agent Server" and "uptime" in info and info["version"]
    assert httpx.get(agent_server.base_url + "/health").json() == {"status": "ok"}
    for path in ("/api/v1/app-conversations/count", "/api/v1/sandboxes/search"):
        assert get(agent_server, path).status_code == 404
    shared = get(agent_server, "/api/shared-events/search", params={"conversation_id": "x"})
    assert shared.status_code == 404
    assert httpx.get(agent_server.base_url + "/api/conversations/count").status_code == 401
    wrong = {"X-Session-API-Key": "wrong"}
    assert get(agent_server, "/api/conversations/count", headers=wrong).status_code == 401


def test_app_mode_has_no_agent_server_listing(make_server: Callable[..., RunningServer]) -> None:
    server = make_server()
    assert httpx.get(server.base_url + "/server_info").status_code == 404
    assert httpx.get(server.base_url + "/api/conversations/search").status_code in (404, 405)
    assert httpx.get(server.base_url + "/api/v1/app-conversations/count").json() == 0
    with pytest.raises(ValueError, match="kind"):
        from tui.server import create_app

        create_app(kind="sandbox")


def test_conversation_records(agent_server: RunningServer) -> None:
    page = get(agent_server, "/api/conversations/search", params={"limit": 3}).json()
    assert len(page["items"]) == 3
    item = page["items"][0]
    assert uuid.UUID(item["id"]) and "-" in item["id"]  # dashed, as the real server writes
    assert item["agent"]["llm"]["api_key"] == "**********"
    assert item["metrics"] is None and "usage_to_metrics" in item["stats"]
    assert page["next_page_id"] == uuid.UUID(conversation_ids(agent_server)[3]).hex
    second = get(
        agent_server,
        "/api/conversations/search",
        params={"limit": 3, "page_id": page["next_page_id"]},
    ).json()
    assert [i["id"] for i in second["items"]] == conversation_ids(agent_server)[3:6]
    total = get(agent_server, "/api/conversations/count").json()
    assert total == len(conversation_ids(agent_server)) == 10
    one = get(agent_server, f"/api/conversations/{item['id']}").json()
    assert one["id"] == item["id"]
    unknown = str(uuid.UUID(int=1))
    assert get(agent_server, f"/api/conversations/{unknown}").status_code == 404
    assert get(agent_server, "/api/conversations/not-a-uuid").status_code == 422
    batch = get(agent_server, "/api/conversations", params={"ids": [item["id"], unknown]}).json()
    assert batch[0]["id"] == item["id"] and batch[1] is None
    too_many = get(agent_server, "/api/conversations", params={"ids": [unknown] * 100})
    assert too_many.status_code == 422


def test_event_pages_use_event_ids_both_ways(agent_server: RunningServer) -> None:
    cid = longest(agent_server)
    total = get(agent_server, f"/api/conversations/{cid}/events/count").json()
    assert total == GENERATED
    for order in ("TIMESTAMP", "TIMESTAMP_DESC"):
        seen: list[str] = []
        page_id = None
        while True:
            params: dict[str, Any] = {"limit": 100, "sort_order": order}
            if page_id:
                params["page_id"] = page_id
            page = get(agent_server, f"/api/conversations/{cid}/events/search", params=params)
            body = page.json()
            ids = [e["id"] for e in body["items"]]
            if body["next_page_id"]:  # the id of the next page's first event
                following = get(
                    agent_server,
                    f"/api/conversations/{cid}/events/search",
                    params={**params, "page_id": body["next_page_id"], "limit": 1},
                ).json()
                assert following["items"][0]["id"] == body["next_page_id"]
            seen += ids
            page_id = body["next_page_id"]
            if not page_id:
                break
        assert len(seen) == len(set(seen)) == total, order
    # the agent server's TIMESTAMP orders are log order, whatever the stamps say (facts §1c)
    newest_first = [
        e["id"]
        for e in get(
            agent_server,
            f"/api/conversations/{cid}/events/search",
            params={"sort_order": "TIMESTAMP_DESC"},
        ).json()["items"]
    ]
    logged = [json.loads(row.json)["id"] for row in agent_server.store.iter_events(cid)]
    assert newest_first == logged[::-1][:100]


def test_event_search_semantics(agent_server: RunningServer) -> None:
    cid = longest(agent_server)
    path = f"/api/conversations/{cid}/events"
    short = get(agent_server, path + "/count", params={"kind": "MessageEvent"}).json()
    qualified = get(agent_server, path + "/count", params={"kind": QUALIFIED_MESSAGE}).json()
    assert short == qualified > 0
    found = get(agent_server, path + "/search", params={"kind": QUALIFIED_MESSAGE}).json()
    assert {e["kind"] for e in found["items"]} == {"MessageEvent"}
    assert get(agent_server, path + "/search", params={"limit": 101}).status_code == 422
    assert get(agent_server, path + "/search", params={"limit": 0}).status_code == 422
    page = get(agent_server, path + "/search").json()
    assert all(None not in e.values() for e in page["items"])  # null fields left out
    first = page["items"][0]["id"]
    assert get(agent_server, f"{path}/{first}").json()["id"] == first
    assert get(agent_server, f"{path}/{uuid.uuid4()}").status_code == 404
    batch = get(agent_server, path, json=[first, "missing"]).json()
    assert batch[0]["id"] == first and batch[1] is None
    restart = get(agent_server, path + "/search", params={"page_id": "unknown", "limit": 2})
    assert restart.json()["items"][0]["id"] == first  # an unknown page id starts over
    unknown = f"/api/conversations/{uuid.UUID(int=2)}/events/search"
    assert get(agent_server, unknown).status_code == 404


def test_start_and_rename(agent_server: RunningServer) -> None:
    cid = uuid.uuid4().hex
    body = {
        "agent": {"kind": "Agent", "llm": {"model": "openai/fake-model", "api_key": "sk-x"}},
        "workspace": {"working_dir": "workspace/project"},
        "conversation_id": cid,
        "initial_message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        "tags": {"scenario": "start"},
    }
    first = get(agent_server, "/api/conversations", method="POST", json=body)
    assert first.status_code == 201
    record = first.json()
    assert record["id"] == str(uuid.UUID(cid)) and record["tags"] == {"scenario": "start"}
    assert record["agent"]["llm"]["model"] == "openai/fake-model"
    again = get(agent_server, "/api/conversations", method="POST", json=body)
    assert again.status_code == 200 and again.json()["id"] == record["id"]
    events = get(agent_server, f"/api/conversations/{cid}/events/search").json()["items"]
    assert any(e["kind"] == "MessageEvent" and e["source"] == "user" for e in events)
    patch = get(agent_server, f"/api/conversations/{cid}", method="PATCH", json={"title": "T"})
    assert patch.json() == {"success": True}
    assert get(agent_server, f"/api/conversations/{cid}").json()["title"] == "T"
    empty = get(agent_server, f"/api/conversations/{cid}", method="PATCH", json={"title": ""})
    assert empty.status_code == 422
