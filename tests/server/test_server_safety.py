"""The reference server as a safe neighbour: loopback names only, a key for local folders,
session keys from the environment or a file, shared events only when public."""

from __future__ import annotations

import json
import os

import httpx
import pytest
import websockets

from tests.helpers.folder_helpers import write_folder
from tui.server import Store, generate_conversation, load_demo
from tui.server.folder_server import start_folder_server
from tui.server.loopback_guard import host_allowed, origin_allowed
from tui.server.serve import SessionKeyError, resolve_session_key, serve_main

SEARCH = "/api/v1/app-conversations/search"


# -- the loopback guard -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("127.0.0.1:8000", True),
        ("localhost:8000", True),
        ("LOCALHOST:8000", True),
        ("[::1]:8000", True),
        ("127.0.0.1", True),
        ("127.0.0.1:8001", False),  # another port: not this server
        ("evil.example:8000", False),  # DNS rebinding
        ("127.0.0.1.evil.example:8000", False),
        ("", False),
        (None, False),
        ("[::1:8000", False),
    ],
)
def test_host_names(host, ok):
    assert host_allowed(host, 8000) is ok


@pytest.mark.parametrize(
    ("origin", "ok"),
    [
        (None, True),  # not a browser
        ("http://127.0.0.1:8000", True),  # the server's own pages, by any loopback name
        ("http://localhost:8000", True),
        ("http://[::1]:8000", True),
        ("http://LOCALHOST:8000", True),
        ("http://localhost:3000", False),  # another local page: another origin
        ("http://127.0.0.1:9999", False),
        ("http://localhost", False),  # port 80
        ("https://localhost:8000", False),  # another scheme
        ("ws://localhost:8000", False),
        ("http://user@localhost:8000", False),
        ("http://localhost:8000/path", False),
        ("https://evil.example", False),
        ("http://evil.example:8000", False),
        ("null", False),
        ("file://", False),
        ("http://localhost:99999", False),
        ("", False),
    ],
)
def test_origins(origin, ok):
    assert origin_allowed(origin, 8000, "http") is ok


def test_origins_of_a_server_on_a_default_port():
    assert origin_allowed("http://localhost", 80, "http")
    assert origin_allowed("https://localhost", 443, "https")
    assert origin_allowed("https://localhost:8000", 8000, "wss")  # a websocket: http(s) origin
    assert not origin_allowed("http://localhost:8000", None, "http")  # no port known: no page


def test_a_page_on_another_local_port_cannot_change_anything(make_server):
    """``ohtui serve`` without a key: a page on localhost:3000 (another origin) may not pause
    a sandbox; the server's own origin and clients that send no Origin (a CLI) may."""
    store = Store()
    load_demo(store)
    server = make_server(store, loopback_only=True)
    port = server.thread.port
    rows = store.search_sandboxes()[0]
    first, second = [row["id"] for row in rows if row["status"] == "RUNNING"][:2]
    with httpx.Client(base_url=server.base_url) as http:
        posted = http.post(
            f"/api/v1/sandboxes/{first}/pause", headers={"origin": "http://localhost:3000"}
        )
        assert posted.status_code == 403
        assert "origin" in posted.json()["detail"] and f":{port}" in posted.json()["detail"]
        assert store.get_sandbox(first)["status"] != "PAUSED"
        read = http.get(SEARCH, headers={"origin": "http://localhost:3000"})
        assert read.status_code == 403
        own = http.post(
            f"/api/v1/sandboxes/{first}/pause", headers={"origin": f"http://localhost:{port}"}
        )
        assert own.is_success and store.get_sandbox(first)["status"] == "PAUSED"
        cli = http.post(f"/api/v1/sandboxes/{second}/pause")
        assert cli.is_success and store.get_sandbox(second)["status"] == "PAUSED"


def test_guarded_server_answers_only_to_loopback_names(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store, loopback_only=True)
    port = server.thread.port
    with httpx.Client(base_url=server.base_url) as http:
        assert http.get(SEARCH).status_code == 200
        assert http.get(SEARCH, headers={"host": f"localhost:{port}"}).status_code == 200
        rebound = http.get(SEARCH, headers={"host": f"evil.example:{port}"})
        assert rebound.status_code == 400 and "loopback" in rebound.json()["detail"]
        # a page elsewhere posting a form to the loopback port (no preflight for that)
        sandbox = store.search_sandboxes()[0][0]["id"]
        posted = http.post(
            f"/api/v1/sandboxes/{sandbox}/pause", headers={"origin": "https://evil.example"}
        )
        assert posted.status_code == 403
        assert store.get_sandbox(sandbox)["status"] != "PAUSED"
        assert http.get("/alive", headers={"origin": f"http://127.0.0.1:{port}"}).is_success


def test_unguarded_server_is_unchanged(make_server):
    server = make_server()
    with httpx.Client(base_url=server.base_url) as http:
        assert http.get(SEARCH, headers={"host": "anything.example"}).status_code == 200


async def test_guarded_websocket_refuses_foreign_hosts_and_origins(make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store, loopback_only=True)
    path = f"/sockets/events/{names['hello']}"
    url = server.ws_url + path
    for origin in ("https://evil.x", "http://localhost:3000"):
        with pytest.raises(websockets.InvalidStatus) as refused:
            async with websockets.connect(url, additional_headers={"Origin": origin}):
                pass
        assert refused.value.response.status_code == 403
    upgrade = {
        "connection": "Upgrade",
        "upgrade": "websocket",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
        "host": "evil.example",
    }
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        assert (await http.get(path, headers=upgrade)).status_code == 403
    sandbox = store.get_sandbox(store.get_conversation(names["hello"])["sandbox_id"])
    key = sandbox["session_api_key"]
    async with websockets.connect(f"{url}?session_api_key={key}") as ws:  # not a browser
        first = json.loads(await ws.recv())
        assert first["key"] == "full_state"


def test_demo_server_is_guarded():
    from tui.server.embedded import start_demo_server

    url, stop = start_demo_server()
    try:
        assert httpx.get(url + SEARCH).status_code == 200
        assert httpx.get(url + SEARCH, headers={"host": "evil.example"}).status_code == 400
    finally:
        stop()


# -- local folders: a key made for this run ---------------------------------------------------


@pytest.fixture
def folders(tmp_path):
    sqlite = Store()
    cid = generate_conversation(sqlite, 12)
    write_folder(tmp_path, cid, [json.loads(r.json) for r in sqlite.iter_events(cid)])
    served = start_folder_server(tmp_path, watch=False)
    assert served is not None
    try:
        yield served, cid
    finally:
        served.stop()
        sqlite.close()


def test_folder_server_needs_its_own_key(folders):
    served, cid = folders
    events = f"/api/v1/conversation/{cid}/events/search"
    with httpx.Client(base_url=served.base_url) as http:
        for path in (SEARCH, events, f"/api/conversations/{cid}/events/search"):
            assert http.get(path).status_code in (401, 404), path
        assert http.get(SEARCH).status_code == 401
        assert http.get(events).status_code == 401
        assert http.get(SEARCH, headers={"x-session-api-key": "guess"}).status_code == 401
        keyed = {"x-session-api-key": served.session_key}
        assert http.get(SEARCH, headers=keyed).json()["items"][0]["id"] == cid
        assert len(http.get(events, headers=keyed).json()["items"]) == 12
        assert (
            http.get(SEARCH, headers={**keyed, "host": "evil.example"}).status_code == 400
        )  # and the key alone is not enough from a rebound name
    assert served.session_key not in repr(served)
    assert len(served.session_key) >= 40


async def test_folder_websocket_needs_the_key(folders):
    served, cid = folders
    url = served.base_url.replace("http", "ws", 1) + f"/sockets/events/{cid}"
    async with websockets.connect(url) as ws:
        await ws.send(json.dumps({"type": "auth", "session_api_key": "guess"}))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd.code == 4001
    async with websockets.connect(url + f"?session_api_key={served.session_key}") as ws:
        assert json.loads(await ws.recv())["key"] == "full_state"


def test_two_folder_servers_have_different_keys(tmp_path):
    sqlite = Store()
    cid = generate_conversation(sqlite, 3)
    write_folder(tmp_path, cid, [json.loads(r.json) for r in sqlite.iter_events(cid)])
    first, second = start_folder_server(tmp_path, watch=False), start_folder_server(tmp_path)
    try:
        assert first.session_key != second.session_key
    finally:
        first.stop()
        second.stop()
    assert start_folder_server(tmp_path / "nothing-here") is None


# -- ohtui serve: the key from a file or the environment ---------------------------------------


def test_session_key_sources(tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text("s3cret-from-file\n")
    key_file.chmod(0o600)
    env = {"OHTUI_SESSION_KEY": "s3cret-from-env"}
    assert resolve_session_key(None, None, {}) == (None, None, [])
    assert resolve_session_key(None, None, env)[:2] == ("s3cret-from-env", "OHTUI_SESSION_KEY")
    assert resolve_session_key(None, str(key_file), env) == ("s3cret-from-file", str(key_file), [])
    key, source, warnings = resolve_session_key("s3cret-flag", None, env)
    assert (key, source) == ("s3cret-flag", "--session-key")
    assert "process list" in warnings[0] and "s3cret" not in warnings[0]


def test_session_key_file_problems(tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text("s3cret\n")
    if os.name == "posix":
        key_file.chmod(0o644)
        assert "chmod 600" in resolve_session_key(None, str(key_file), {})[2][0]
    for content in ("", "\n\n", "two\nlines"):
        key_file.write_text(content)
        with pytest.raises(SessionKeyError, match="one line"):
            resolve_session_key(None, str(key_file), {})
    with pytest.raises(SessionKeyError, match="cannot read") as missing:
        resolve_session_key(None, str(tmp_path / "missing"), {})
    assert "s3cret" not in str(missing.value)
    with pytest.raises(SessionKeyError, match="not both"):
        resolve_session_key("a", str(key_file), {})


def test_serve_refuses_an_unreadable_key_file(tmp_path, capsys):
    code = serve_main("127.0.0.1", 0, None, False, None, session_key_file=str(tmp_path / "missing"))
    assert code == 2
    assert "cannot read --session-key-file" in capsys.readouterr().err


# -- shared events: public conversations only -------------------------------------------------


def test_shared_events_only_for_public_conversations(make_server):
    store = Store()
    names = load_demo(store)
    private = names["confirm"]  # not marked public
    assert not store.get_conversation(private)["public"]
    server = make_server(store, session_key="k")
    with httpx.Client(base_url=server.base_url) as http:
        shared = "/api/shared-events/search"
        assert http.get(shared, params={"conversation_id": names["hello"]}).json()["items"]
        assert http.get(shared, params={"conversation_id": private}).json() == {
            "items": [],
            "next_page_id": None,
        }
        assert http.get("/api/shared-events/count", params={"conversation_id": private}).json() == 0
        event_id = json.loads(next(store.iter_events(private)).json)["id"]
        assert http.get(f"/api/shared-events/{private}/{event_id}").json() is None
        assert http.get(
            "/api/shared-events", params={"conversation_id": private, "id": [event_id]}
        ).json() == [None]
