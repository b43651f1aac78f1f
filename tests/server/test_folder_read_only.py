"""A server over local conversation folders changes nothing and shows no secret: every
mutating request is refused with a reason, messages over the websocket too, the folders are
byte-for-byte unchanged afterwards, and nothing of base_state.json's agent settings is served."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets

from tests.helpers.folder_helpers import tree_digest, write_folder
from tui.client import HTTPStatusError, OpenHandsClient
from tui.server import Store
from tui.server.demo import generate_conversation
from tui.server.folder_watch import start_following, sweep
from tui.server.folders import LOCAL_SANDBOX, FolderStore
from tui.server.read_only import REFUSAL

SENTINEL = "sk-ohtui-SENTINEL-7f3a9c"
MASKED = "**********"


def base_state(cid: str) -> dict:
    """A base_state.json as the SDK writes it, with a key (and a masked one) to leak."""
    return {
        "id": cid,
        "execution_status": "running",
        "agent": {
            "llm": {
                "model": "openai/fake-model",
                "api_key": SENTINEL,
                "base_url": f"http://{SENTINEL}.example",
            },
            "condenser": {"llm": {"api_key": MASKED}},
            "kind": "Agent",
        },
        "secret_registry": {"secret_sources": {"GITHUB_TOKEN": {"value": SENTINEL}}},
    }


@pytest.fixture
def folder_server(make_server, tmp_path):
    sqlite = Store()
    cid = generate_conversation(sqlite, 30, seed=4)
    write_folder(
        tmp_path, cid, [json.loads(r.json) for r in sqlite.iter_events(cid)], state=base_state(cid)
    )
    sqlite.close()
    store = FolderStore(tmp_path)
    server = make_server(store)
    start_following(server, store)
    return server, store, cid, tmp_path


MUTATIONS = [
    (
        "POST",
        "/api/v1/app-conversations",
        {"initial_message": {"content": [{"type": "text", "text": "hi"}]}},
    ),
    ("PATCH", "/api/v1/app-conversations/{cid}", {"title": "renamed"}),
    ("DELETE", "/api/v1/app-conversations/{cid}", None),
    (
        "POST",
        "/api/v1/app-conversations/{cid}/send-message",
        {"content": [{"type": "text", "text": "hi"}]},
    ),
    ("POST", "/api/v1/sandboxes", None),
    ("POST", "/api/v1/sandboxes/{sandbox}/pause", None),
    ("POST", "/api/v1/sandboxes/{sandbox}/resume", None),
    ("DELETE", "/api/v1/sandboxes/{sandbox}", None),
    (
        "POST",
        "/api/conversations/{cid}/events",
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ),
    ("POST", "/api/conversations/{cid}/run", None),
    ("POST", "/api/conversations/{cid}/pause", None),
    ("POST", "/api/conversations/{cid}/interrupt", None),
    ("POST", "/api/conversations/{cid}/events/respond_to_confirmation", {"accept": True}),
    ("POST", "/api/file/create_directory?path=/tmp/x", {"path": "/tmp/x"}),
]


async def test_every_mutation_is_refused_and_the_folders_stay_unchanged(folder_server):
    server, store, cid, root = folder_server
    before = tree_digest(root)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        for method, path, body in MUTATIONS:
            response = await http.request(
                method, path.format(cid=cid, sandbox=LOCAL_SANDBOX), json=body
            )
            assert response.status_code == 405, (method, path, response.text)
            assert response.json() == {"detail": REFUSAL}
    async with OpenHandsClient(server.base_url) as client:  # the client says why, as an error
        with pytest.raises(HTTPStatusError) as refused:
            await client.pause_sandbox(LOCAL_SANDBOX)
        assert refused.value.status == 405 and "read-only" in str(refused.value)
        assert [e.id async for e in client.iter_events(cid)] == store.logs[cid].ids  # reading works
        assert await client.count_events(cid) == 30
        (conv,) = await client.get_conversations([cid])
    info = store.get_conversation(cid)
    key = store.get_sandbox(info["sandbox_id"])["session_api_key"]
    async with websockets.connect(f"{server.ws_url}/sockets/events/{cid}") as ws:
        await ws.send(json.dumps({"type": "auth", "session_api_key": key}))
        await ws.send(
            json.dumps({"role": "user", "content": [{"type": "text", "text": "do something"}]})
        )

        async def error_frame() -> dict:
            while True:
                frame = json.loads(await ws.recv())
                if frame["kind"] == "ServerErrorEvent":
                    return frame

        frame = await asyncio.wait_for(error_frame(), 5)
        assert frame["code"] == "ReadOnly" and frame["detail"] == REFUSAL
        # and a sweep of the follower, in the server's loop, while the conversation is followed
        hub = server.app.state.live
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(sweep(hub, store), hub.loop))
    assert conv.title == "local " + cid[:6]
    assert tree_digest(root) == before
    assert store.count_events(cid) == 30


async def test_no_key_from_base_state_is_ever_served(folder_server):
    server, store, cid, _ = folder_server
    bodies: list[str] = []
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        for path in (
            "/api/v1/app-conversations/search",
            f"/api/v1/app-conversations?ids={cid}",
            "/api/v1/sandboxes/search",
            f"/api/v1/sandboxes?id={LOCAL_SANDBOX}",
            f"/api/v1/conversation/{cid}/events/search?limit=100",
            f"/api/conversations/{cid}/events/search?limit=100",
            f"/api/shared-events/search?conversation_id={cid}",
        ):
            response = await http.get(path)
            bodies.append(response.text)
    assert cid in bodies[0] and '"execution_status":"running"' in bodies[0].replace(
        " ", ""
    )  # what is served
    info = store.get_conversation(cid)
    key = store.get_sandbox(info["sandbox_id"])["session_api_key"]
    async with websockets.connect(f"{server.ws_url}/sockets/events/{cid}?resend_mode=all") as ws:
        await ws.send(json.dumps({"type": "auth", "session_api_key": key}))
        for _ in range(31):  # full_state and the 30 events
            bodies.append(await asyncio.wait_for(ws.recv(), 5))
    everything = "\n".join(bodies)
    assert SENTINEL not in everything
