"""Server kinds: what the client finds out, what it costs, and what it says when it can't.

Every server here is real (uvicorn on loopback): the reference server in app and agent mode,
a server with only the shared routes, and one that is no OpenHands server at all. Requests
are counted with a real transport that records them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tui.client import (
    AuthError,
    ConnectionLost,
    InvalidParameter,
    NotFound,
    OpenHandsClient,
    ServerInfo,
    ServerKind,
    Unsupported,
    kinds,
)
from tui.server import (
    RunningServer,
    ServerThread,
    Store,
    generate_conversation,
    load_demo,
    routes_events,
)

KEY = "kinds-key-41f0"


class Recording(httpx.AsyncHTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        return await super().handle_async_request(request)


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    kinds.forget()
    yield
    kinds.forget()


def client(url: str, **kwargs: Any) -> tuple[OpenHandsClient, Recording]:
    transport = Recording()
    return OpenHandsClient(url, transport=transport, max_retries=0, **kwargs), transport


@pytest.fixture
def agent_server(make_server: Callable[..., RunningServer]) -> RunningServer:
    store = Store()
    load_demo(store)
    return make_server(store, session_key=KEY, kind="agent")


def serve(app: FastAPI) -> Iterator[str]:
    thread = ServerThread(app).start()
    try:
        yield thread.base_url
    finally:
        thread.stop()


@pytest.fixture
def shared_only() -> Iterator[str]:
    """Only ``/api/shared-events/*`` (a public shared-link host)."""
    store = Store()
    cid = generate_conversation(store, 12, seed=3)
    app = FastAPI()
    app.state.store = store
    app.state.options = {"shared_public_only": False}
    app.state.cid = cid
    app.include_router(routes_events.shared_router)
    yield from serve(app)
    store.close()


@pytest.fixture
def not_openhands() -> Iterator[str]:
    app = FastAPI()

    @app.get("/")
    def root() -> dict[str, str]:
        return {"hello": "world"}

    yield from serve(app)


# --- app servers: nothing extra ------------------------------------------------------------------


async def test_app_server_first_call_tells(demo_server: RunningServer) -> None:
    c, sent = client(demo_server.base_url)
    async with c:
        assert c.kind is None and c.info is None
        page = await c.search_conversations(limit=2)
        assert len(page.items) == 2
        assert sent.paths == ["/api/v1/app-conversations/search"]  # no probe at all
        assert c.kind is ServerKind.APP and c.info is not None
        assert {"sandboxes", "start_tasks", "start_conversation", "rename"} <= c.info.capabilities
        assert (await c.detect()).kind is ServerKind.APP and len(sent.paths) == 1


async def test_detect_costs_one_request_and_is_remembered(demo_server: RunningServer) -> None:
    c, sent = client(demo_server.base_url)
    async with c:
        info = await c.detect()
    assert info.kind is ServerKind.APP and info.describe() == "an OpenHands app server"
    assert sent.paths == ["/api/v1/app-conversations/count"]
    again, sent_again = client(demo_server.base_url)
    async with again:
        assert again.kind is ServerKind.APP  # remembered for this URL, for the process
        assert (await again.detect()) == info
    assert sent_again.paths == []


async def test_app_server_wanting_a_key(make_server: Callable[..., RunningServer]) -> None:
    server = make_server(session_key=KEY)
    c, _ = client(server.base_url)
    async with c:
        with pytest.raises(AuthError):
            await c.search_conversations()
        assert c.kind is ServerKind.APP  # a 401 on an app route is an app server


# --- agent servers ---------------------------------------------------------------------------


async def test_agent_server_is_found_and_spoken_to(agent_server: RunningServer) -> None:
    c, sent = client(agent_server.base_url, session_api_key=KEY)
    async with c:
        page = await c.search_conversations(limit=3)
        assert len(page.items) == 3
        assert sent.paths == [
            "/api/v1/app-conversations/search",  # 404: not an app server
            "/api/v1/app-conversations/count",  # the probe: app route
            "/server_info",  # … then the agent server's own page
            "/api/conversations/search",
        ]
        info = c.info
        assert info is not None and info.kind is ServerKind.AGENT
        assert info.title == "OpenHands Agent Server" and info.version
        assert "usable_tools" in info.details and "uptime" in info.details
        # no agent settings given (no start_conversation); a bare agent server forks and
        # navigates; and what the server names in its own capabilities joins them
        assert info.capabilities == {
            "server_info",
            "rename",
            "fork",
            "navigate",
            "conversation_runtime_routes_v1",
            "idempotent_conversation_create_v1",
        }
        await c.count_conversations()
        assert sent.paths[-1] == "/api/conversations/count"  # no probe again


async def test_forced_kinds_skip_the_probe(agent_server: RunningServer) -> None:
    c, sent = client(agent_server.base_url, session_api_key=KEY, server_kind="agent")
    async with c:
        assert c.kind is ServerKind.AGENT
        await c.count_conversations()
    assert sent.paths == ["/api/conversations/count"]
    wrong, _ = client(agent_server.base_url, session_api_key=KEY, server_kind="app")
    async with wrong:
        with pytest.raises(NotFound):  # forced: never second-guessed
            await wrong.count_conversations()
    with pytest.raises(InvalidParameter, match="server_kind"):
        OpenHandsClient(agent_server.base_url, server_kind="sandbox")
    assert kinds.parse_kind("AUTO") is None and kinds.parse_kind(" Shared ") is ServerKind.SHARED


async def test_a_remembered_kind_that_went_stale_is_rechecked(agent_server: RunningServer) -> None:
    # another kind of server answered at this address earlier (a reused port)
    kinds.remember(agent_server.base_url.rstrip("/"), kinds.base_info(ServerKind.APP))
    c, _ = client(agent_server.base_url, session_api_key=KEY)
    async with c:
        assert c.kind is ServerKind.APP
        assert await c.count_conversations() == 8
        assert c.kind is ServerKind.AGENT


async def test_app_only_calls_are_unsupported_before_any_request(
    agent_server: RunningServer,
) -> None:
    c, sent = client(agent_server.base_url, session_api_key=KEY)
    async with c:
        await c.detect()
        before = len(sent.paths)
        for call in (
            c.search_sandboxes,
            lambda: c.start_sandbox(),
            lambda: c.pause_sandbox("sb"),
            c.search_sandbox_specs,
            lambda: c.start_conversation({"title": "x"}),
            lambda: c.create_conversation(),
            lambda: c.get_start_tasks(["t"]),
        ):
            with pytest.raises(Unsupported) as info:
                await call()
            assert str(info.value).startswith("This is a bare agent server (OpenHands Agent")
        assert len(sent.paths) == before
        with pytest.raises(Unsupported, match="it has no sandboxes"):
            await c.search_sandboxes()
        with pytest.raises(Unsupported, match="needs agent settings"):
            await c.start_agent_conversation(message="hi")


async def test_agent_only_calls_on_an_app_server(demo_server: RunningServer) -> None:
    c, sent = client(demo_server.base_url, server_kind="app")
    async with c:
        with pytest.raises(Unsupported, match="has no /server_info"):
            await c.server_info()
        with pytest.raises(Unsupported, match="start tasks"):
            await c.start_agent_conversation({"llm": {"model": "m"}}, "hi")
    assert sent.paths == []


# --- shared-only servers, strangers, unreachable ones ----------------------------------------


async def test_shared_only_server(shared_only: str) -> None:
    c, sent = client(shared_only)
    async with c:
        info = await c.detect()
        assert info.kind is ServerKind.SHARED and info.can("shared_events")
        assert sent.paths == [
            "/api/v1/app-conversations/count",
            "/server_info",
            "/api/shared-events/search",
        ]
        with pytest.raises(Unsupported, match="shared conversations only"):
            await c.search_conversations()
    store_cid = generate_conversation(Store(), 1, seed=3)  # same seed: the same id
    c, sent = client(shared_only, server_kind="shared")
    async with c:
        page = await c.search_events(store_cid, limit=5)  # the shared route, as the kind says
        assert len(page.items) == 5 and await c.count_events(store_cid) == 12
    assert sent.paths == ["/api/shared-events/search", "/api/shared-events/count"]


async def test_a_server_that_is_not_openhands_says_so(not_openhands: str) -> None:
    c, _ = client(not_openhands)
    async with c:
        with pytest.raises(NotFound) as info:
            await c.search_conversations()
    assert str(info.value) == (
        f"{not_openhands} answered but is not an OpenHands server: 404 on "
        "/api/v1/app-conversations/count, /server_info and /api/shared-events/search"
    )


async def test_unreachable_is_connection_lost(make_server: Callable[..., RunningServer]) -> None:
    server = make_server()
    server.stop()
    c, _ = client(server.base_url)
    async with c:
        with pytest.raises(ConnectionLost, match="cannot connect"):
            await c.detect()
        assert c.kind is None


# --- --shared against servers without the route (issue item 11) ------------------------------


async def test_shared_against_a_self_hosted_app_server(
    make_server: Callable[..., RunningServer],
) -> None:
    server = make_server()
    cid = generate_conversation(server.store, 5, seed=1)
    # the self-hosted openhands-ai has no /api/shared-events (an enterprise route): 404
    server.app.state.faults.add(
        "status", "/api/shared-events", times=-1, status=404, body='{"detail":"Not Found"}'
    )
    c, _ = client(server.base_url)
    async with c:
        with pytest.raises(Unsupported) as info:
            await c.search_shared_events(cid, limit=1)
        assert str(info.value) == (
            "this server does not share conversations (it is a self-hosted app server)"
        )
        assert c.kind is ServerKind.APP and not c.info.can("shared_events")  # type: ignore[union-attr]
    working, _ = client(make_server().base_url)
    async with working:
        await working.search_shared_events(cid, limit=1)
        assert working.info is None or working.info.kind is ServerKind.APP


async def test_shared_against_an_agent_server(agent_server: RunningServer) -> None:
    c, sent = client(agent_server.base_url, session_api_key=KEY)
    async with c:
        await c.detect()
        before = len(sent.paths)
        with pytest.raises(Unsupported, match=r"does not share conversations \(it is a bare"):
            await c.search_shared_events("0" * 32)
        assert len(sent.paths) == before


def test_server_info_is_plain_data() -> None:
    info = kinds.agent_info(
        {"uptime": 3.0, "version": "1.58.2", "title": "T", "api_key": "sk-1", "docs": "/docs"}
    )
    assert isinstance(info, ServerInfo) and info.version == "1.58.2" and info.title == "T"
    assert info.details["api_key"] != "sk-1" and "docs" not in info.details
    assert info.with_capability("start_conversation").can("start_conversation")
    assert not info.with_capability("rename", False).can("rename")
