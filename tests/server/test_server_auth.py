"""Reference server: session-key auth, profile validation secrecy, directory creation."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import httpx
import pytest

from tui.server import Store, load_demo

KEY = "s3cr3t-session-key-for-tests"
PROTECTED = [
    ("GET", "/api/v1/app-conversations/search", {}),
    ("GET", "/api/v1/app-conversations/count", {}),
    ("GET", "/api/v1/app-conversations", {"ids": "0" * 32}),
    ("GET", "/api/v1/app-conversations/start-tasks/search", {}),
    ("GET", "/api/v1/sandboxes/search", {}),
    ("GET", "/api/v1/sandboxes", {"id": "x"}),
    ("GET", "/api/v1/sandbox-specs/search", {}),
    ("GET", f"/api/v1/conversation/{'0' * 32}/events/search", {}),
    ("GET", f"/api/v1/conversation/{'0' * 32}/events/count", {}),
    ("POST", "/api/v1/sandboxes/x/pause", {}),
    ("POST", "/api/profiles/default/validate", {}),
    ("POST", "/api/file/create_directory", {"path": "/workspace/x"}),
]


@pytest.fixture
def secured(make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store, session_key=KEY)
    with httpx.Client(base_url=server.base_url, timeout=10) as c:
        yield c, names


@pytest.mark.parametrize(("method", "path", "params"), PROTECTED)
def test_protected_routes_need_the_key(secured, method, path, params):
    c, _ = secured
    response = c.request(method, path, params=params)
    assert response.status_code == 401
    assert response.json() == {"detail": "Unauthorized"}
    wrong = c.request(method, path, params=params, headers={"X-Session-API-Key": KEY + "x"})
    assert wrong.status_code == 401
    for headers in ({"X-Session-API-Key": KEY}, {"Authorization": f"Bearer {KEY}"}):
        ok = c.request(method, path, params=params, headers=headers)
        assert ok.status_code in (200, 404), ok.text


def test_unauthorized_comes_before_validation(secured):
    c, _ = secured
    response = c.get("/api/v1/app-conversations/search", params={"limit": 0})
    assert response.status_code == 401
    assert KEY not in response.text


def test_shared_search_stays_public(secured):
    c, names = secured
    response = c.get("/api/shared-events/search", params={"conversation_id": names["hello"]})
    assert response.status_code == 200 and response.json()["items"]
    assert (
        c.get("/api/shared-events/count", params={"conversation_id": names["hello"]}).status_code
        == 200
    )


def test_open_by_default(demo_server):
    with httpx.Client(base_url=demo_server.base_url) as c:
        assert c.get("/api/v1/app-conversations/search").status_code == 200
        assert c.get("/api/v1/sandboxes/search").status_code == 200


def test_other_schemes_are_rejected(secured):
    c, _ = secured
    for header in (f"Basic {KEY}", f"Token {KEY}", KEY, "Bearer", f"Bearer {KEY[:-1]}"):
        assert (
            c.get("/api/v1/sandboxes/search", headers={"Authorization": header}).status_code == 401
        )


# -- profile validation never shows the key ---------------------------------------------------

SECRET = "sk-live-THIS-MUST-NEVER-APPEAR-0123456789"


@pytest.mark.parametrize(
    "body",
    [
        {"model": "anthropic/claude-sonnet-4-5", "api_key": SECRET},
        {"model": "claude-sonnet", "api_key": SECRET, "base_url": "localhost:4000"},
        {"llm": {"model": "openai/gpt-5.5", "api_key": SECRET}},
        {"model": {"nested": SECRET}, "api_key": SECRET},
        {"model": "a/b", "api_key": 12345, "base_url": SECRET},
        {"llm": SECRET},
        SECRET,
        [SECRET],
    ],
)
def test_validate_never_echoes_the_key(demo_server, caplog, body):
    caplog.set_level(logging.DEBUG)
    with httpx.Client(base_url=demo_server.base_url) as c:
        response = c.post("/api/profiles/my-profile/validate", json=body)
    assert response.status_code in (200, 422)
    assert SECRET not in response.text
    assert SECRET not in caplog.text
    if response.status_code == 422:
        assert all({"loc", "msg", "type"} <= set(e) for e in response.json()["detail"])


def test_validate_results(demo_server, caplog):
    caplog.set_level(logging.INFO, logger="tui.server")
    with httpx.Client(base_url=demo_server.base_url) as c:
        good = c.post(
            "/api/profiles/p1/validate",
            json={"model": "anthropic/claude-sonnet-4-5", "api_key": SECRET},
        ).json()
        assert good == {
            "valid": True,
            "name": "p1",
            "model": "anthropic/claude-sonnet-4-5",
            "errors": [],
            "error": None,
        }
        bad_key = c.post(
            "/api/profiles/p1/validate", json={"model": "a/b", "api_key": "short"}
        ).json()
        assert not bad_key["valid"] and bad_key["errors"][0]["type"] == "authentication_error"
        bad = c.post(
            "/api/profiles/p1/validate", json={"model": "gpt", "base_url": "ftp://x"}
        ).json()
        assert {e["type"] for e in bad["errors"]} == {"invalid_model", "invalid_base_url"}
        assert bad["error"] == bad["errors"][0]
        stored = c.post("/api/profiles/default/validate").json()
        assert stored["valid"] and stored["model"]
        assert not c.post("/api/profiles/broken/validate").json()["valid"]
        assert c.post("/api/profiles/unknown/validate").status_code == 404
        assert c.post("/api/profiles/-bad-name/validate", json={"model": "a/b"}).status_code == 422
    assert "p1 validated" in caplog.text
    assert "sk-demo" not in caplog.text and SECRET not in caplog.text


# -- create_directory -------------------------------------------------------------------------


def test_create_directory_is_in_memory(make_server):
    server = make_server()
    probe = f"/tmp/ohtui-never-created-{uuid.uuid4().hex}"
    with httpx.Client(base_url=server.base_url) as c:
        body = c.post("/api/file/create_directory", json={"path": probe + "/a/b"}).json()
        assert body == {"success": True, "path": probe + "/a/b"}
        assert c.post("/file/create_directory", json={"path": "/workspace/legacy"}).json()[
            "success"
        ]
        assert (
            c.post("/api/file/create_directory", params={"path": "/workspace/q"}).json()["path"]
            == "/workspace/q"
        )
        assert (
            c.post("/api/file/create_directory", json={"path": "rel/dir"}).json()["path"]
            == "/workspace/project/rel/dir"
        )
        for bad in ("/workspace/../etc", "..", "a/../../b", ""):
            response = c.post("/api/file/create_directory", json={"path": bad})
            assert response.status_code == 400, bad
        assert c.post("/api/file/create_directory").status_code == 400
    assert {probe, probe + "/a", probe + "/a/b", "/workspace/legacy"} <= server.store.directories
    assert not Path(probe).exists()


def test_shared_public_only_serves_public_conversations_only(make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store, shared_public_only=True)
    with httpx.Client(base_url=server.base_url) as c:
        public = c.get(
            "/api/shared-events/search", params={"conversation_id": names["hello"]}
        ).json()
        assert public["items"]
        hidden = names["confirm"]  # public is null in the demo
        assert c.get("/api/shared-events/search", params={"conversation_id": hidden}).json() == {
            "items": [],
            "next_page_id": None,
        }
        assert c.get("/api/shared-events/count", params={"conversation_id": hidden}).json() == 0
        # the authenticated search is not affected
        assert c.get(f"/api/v1/conversation/{hidden}/events/count").json() > 0
