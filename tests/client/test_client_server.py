"""The client against the bundled reference server (real uvicorn on loopback, real sockets).

``demo_server`` is shared and read only; anything that writes gets its own ``make_server``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable
from datetime import datetime
from itertools import pairwise
from typing import Any

import httpx
import pytest

from tui.client import (
    ApiValidationError,
    AuthError,
    BadRequest,
    ConnectionLost,
    InvalidParameter,
    NotFound,
    OpenHandsClient,
    OpenHandsError,
    StartTaskFailed,
)
from tui.models import (
    EVENT_KINDS,
    NON_VIEWABLE_KINDS,
    AppConversation,
    AppConversationStartTask,
    EventBase,
    HTTPValidationError,
    RawEvent,
    SandboxInfo,
    SandboxSpecInfo,
    SandboxStatus,
    StartTaskStatus,
)
from tui.server import Store, generate_conversation, load_demo

KEY = "oh-test-SESSION-KEY-5e1f2a9c"


class Recording(httpx.AsyncHTTPTransport):
    """A real transport that remembers what was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await super().handle_async_request(request)


def client_for(server: Any, **kwargs: Any) -> OpenHandsClient:
    kwargs.setdefault("backoff", 0.01)
    return OpenHandsClient(server.base_url, **kwargs)


def stored_order(
    store: Store, conversation_id: str, *, viewable_only: bool = False
) -> list[dict[str, Any]]:
    """The server's event order, worked out independently: (timestamp, log position)."""
    rows = sorted(store.iter_events(conversation_id), key=lambda r: (r.timestamp, r.seq))
    events = [json.loads(r.json) for r in rows]
    if viewable_only:
        events = [e for e in events if e["kind"] not in NON_VIEWABLE_KINDS]
    return events


async def wait_until(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = await check()
        if result:
            return result
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        await asyncio.sleep(0.02)


@pytest.fixture
def demo_copy(make_server: Callable[..., Any]):
    """A writable demo server: ``(server, {short name: conversation id})``."""
    store = Store()
    names = load_demo(store)
    server = make_server(store, start_delay=0.3, sandbox_start_delay=0.1, resume_delay=0.1)
    yield server, names
    server.stop()
    store.close()


# --- every read method against the shared demo server ----------------------------------------


async def test_conversations_against_demo(demo_server: Any) -> None:
    async with client_for(demo_server) as client:
        page = await client.search_conversations()
        assert page.next_page_id is None and len(page.items) >= 5
        assert all(isinstance(c, AppConversation) for c in page.items)
        total = await client.count_conversations()
        assert total == len(page.items)
        # newest first, and small pages walk the same list
        created = [c.created_at for c in page.items]
        assert created == sorted(created, reverse=True)
        walked = [c.id async for c in client.iter_conversations(limit=2)]
        assert walked == [c.id for c in page.items]
        # filters
        hello = await client.search_conversations(title_contains="hello")
        assert [c.title for c in hello.items] == ["Write hello.py and run it"]
        assert await client.count_conversations(title_contains="hello") == 1
        first = page.items[0]
        by_sandbox = await client.search_conversations(sandbox_id=first.sandbox_id)
        assert first.id in {c.id for c in by_sandbox.items}
        assert all(c.sandbox_id == first.sandbox_id for c in by_sandbox.items)
        newest = await client.search_conversations(created_at_gte=first.created_at)
        assert [c.id for c in newest.items] == [first.id]
        older = await client.count_conversations(
            created_at_lt=datetime.fromisoformat(first.created_at)
        )
        assert older == total - 1
        # batch get keeps order and answers None for unknown ids
        ids = [c.id for c in page.items[:3]]
        unknown = uuid.uuid4().hex
        got = await client.get_conversations([ids[2], unknown, ids[0]])
        assert [g.id if g else None for g in got] == [ids[2], None, ids[0]]
        assert (await client.get_conversations([uuid.uuid4().hex for _ in range(99)])) == [
            None
        ] * 99
        with pytest.raises(BadRequest):
            await client.get_conversations(["not-a-uuid"])
        assert await client.get_start_tasks([uuid.uuid4().hex]) == [None]


async def test_sandboxes_and_specs_against_demo(demo_server: Any) -> None:
    async with client_for(demo_server) as client:
        page = await client.search_sandboxes()
        assert page.items and all(isinstance(s, SandboxInfo) for s in page.items)
        statuses = {s.status for s in page.items}
        assert {SandboxStatus.RUNNING, SandboxStatus.PAUSED} <= statuses
        assert [s.id async for s in client.iter_sandboxes(limit=2)] == [s.id for s in page.items]
        ids = [s.id for s in page.items]
        got = await client.get_sandboxes([ids[-1], "oh-agent-server-missing", ids[0]])
        assert [g.id if g else None for g in got] == [ids[-1], None, ids[0]]

        specs = await client.search_sandbox_specs()
        assert specs.items and all(isinstance(s, SandboxSpecInfo) for s in specs.items)
        assert [s.id async for s in client.iter_sandbox_specs(limit=1)] == [
            s.id for s in specs.items
        ]
        spec_ids = [s.id for s in specs.items]
        found = await client.get_sandbox_specs([spec_ids[0], "no/such:spec"])
        assert found[0] is not None and found[0].id == spec_ids[0] and found[1] is None


async def test_events_against_demo(demo_server: Any) -> None:
    store = demo_server.store
    async with client_for(demo_server) as client:
        conversations = [c async for c in client.iter_conversations()]
        assert len(conversations) >= 5
        for conv in conversations:
            expected = stored_order(store, conv.id)
            events = [e async for e in client.iter_events(conv.id, limit=25)]
            assert [e.id for e in events] == [e["id"] for e in expected], conv.title
            assert not [e for e in events if isinstance(e, RawEvent)], conv.title
            assert all(isinstance(e, EventBase) for e in events)
            assert await client.count_events(conv.id) == len(expected)

            page = await client.search_events(conv.id, limit=5, sort_order="TIMESTAMP_DESC")
            assert [e.id for e in page.items] == [e["id"] for e in expected[::-1][:5]]

            # the shared view drops ConversationStateUpdateEvent, needs no key and serves
            # only conversations marked public (as the real service)
            viewable = [e["id"] for e in expected if e["kind"] not in NON_VIEWABLE_KINDS]
            shared = [e async for e in client.iter_events(conv.id, shared=True, limit=30)]
            assert [e.id for e in shared] == (viewable if conv.public else [])
            assert await client.count_shared_events(conv.id) == (
                len(expected) if conv.public else 0
            )  # count does not filter

            # batch get by id, in request order, None for unknown / non-viewable
            some = [expected[0]["id"], "00000000-0000-0000-0000-000000000000", expected[-1]["id"]]
            got = await client.get_events(conv.id, some)
            assert [g.id if g else None for g in got] == [some[0], None, some[2]]
            assert got[0] == events[0]
            state = next((e["id"] for e in expected if e["kind"] in NON_VIEWABLE_KINDS), None)
            if state is not None:
                assert (await client.get_shared_events(conv.id, [state, viewable[0]]))[0] is None
        # 100 ids is the server's batch limit too
        conv = conversations[0]
        ids = [e["id"] for e in stored_order(store, conv.id)][:100]
        ids += [str(uuid.uuid4()) for _ in range(100 - len(ids))]
        assert len(await client.get_events(conv.id, ids)) == 100
        # an unknown conversation is an empty page, not an error
        empty = await client.search_shared_events(uuid.uuid4().hex)
        assert empty.items == [] and empty.next_page_id is None


async def test_agent_routes_against_demo(demo_server: Any) -> None:
    async with client_for(demo_server) as client:
        result = await client.validate_profile("default")
        assert isinstance(result, dict) and "valid" in result
        checked = await client.validate_profile(
            "draft",
            {"llm": {"model": "anthropic/claude-sonnet-4-5", "api_key": "sk-draft-key-123456"}},
        )
        assert checked["valid"] is True
        assert "sk-draft-key-123456" not in json.dumps(checked)
        bad = await client.validate_profile("draft", {"llm": {"model": "no-provider"}})
        assert bad["valid"] is False
        with pytest.raises(NotFound):
            await client.validate_profile("no-such-profile")
        with pytest.raises(ApiValidationError):
            await client.validate_profile("bad name with spaces")


async def test_create_directory(make_server: Callable[..., Any]) -> None:
    server = make_server()
    async with client_for(server) as client:
        result = await client.create_directory("/workspace/project/new/dir")
    assert result["success"] is True
    assert "/workspace/project/new/dir" in server.store.directories


# --- paging a large log ----------------------------------------------------------------------


@pytest.fixture
def big(make_server: Callable[..., Any]):
    server = make_server()
    conversation_id = generate_conversation(server.store, 10_000, seed=7)
    return server, conversation_id


async def test_paging_10000_events_every_event_once_in_order(big: Any) -> None:
    server, cid = big
    expected = stored_order(server.store, cid)
    assert len(expected) == 10_000
    expected_ids = [e["id"] for e in expected]
    async with client_for(server) as client:
        for sort_order, want in (
            ("TIMESTAMP", expected_ids),
            ("TIMESTAMP_DESC", expected_ids[::-1]),
        ):
            got = [e.id async for e in client.iter_events(cid, sort_order=sort_order)]
            assert len(got) == 10_000 and len(set(got)) == 10_000, sort_order
            assert got == want, sort_order
        # an odd page size that does not divide the log (ties every 37th event)
        pages = [p async for p in client.iter_event_pages(cid, limit=37)]
        assert [e.id for p in pages for e in p.items] == expected_ids
        assert all(len(p.items) == 37 for p in pages[:-1]) and 0 < len(pages[-1].items) <= 37
        assert pages[-1].next_page_id is None
        assert sum(isinstance(e, RawEvent) for p in pages for e in p.items) == 0
        # the shared view: the same walk minus state updates
        viewable = [e["id"] for e in expected if e["kind"] not in NON_VIEWABLE_KINDS]
        shared = [
            e.id async for e in client.iter_events(cid, shared=True, sort_order="TIMESTAMP_DESC")
        ]
        assert shared == viewable[::-1]
        assert await client.count_events(cid) == 10_000


async def test_filters_combine(big: Any) -> None:
    server, cid = big
    expected = stored_order(server.store, cid)
    low = expected[2_000]["timestamp"]
    high = expected[6_500]["timestamp"]
    async with client_for(server) as client:
        for kind in ("ActionEvent", "MessageEvent", "ConversationStateUpdateEvent"):
            want = [e["id"] for e in expected if e["kind"] == kind and low <= e["timestamp"] < high]
            assert want, kind
            got = [
                e
                async for e in client.iter_events(
                    cid, kind=kind, timestamp_gte=low, timestamp_lt=high
                )
            ]
            assert [e.id for e in got] == want, kind
            assert {type(e).__name__ for e in got} == {kind}
            desc = [
                e.id
                async for e in client.iter_events(
                    cid,
                    kind=kind,
                    timestamp_gte=datetime.fromisoformat(low),
                    timestamp_lt=datetime.fromisoformat(high),
                    sort_order="TIMESTAMP_DESC",
                    limit=50,
                )
            ]
            assert desc == want[::-1], kind
            assert await client.count_events(
                cid, kind=kind, timestamp_gte=low, timestamp_lt=high
            ) == len(want)
        # shared search never returns the non-viewable kind, even when asked for it
        assert [
            e
            async for e in client.iter_events(cid, shared=True, kind="ConversationStateUpdateEvent")
        ] == []
        # kinds absent from the log give empty results, not errors
        absent = set(EVENT_KINDS) - {e["kind"] for e in expected}
        for kind in sorted(absent)[:3]:
            assert (await client.search_events(cid, kind=kind)).items == []


# --- parameter validation, client side and server side ---------------------------------------


async def test_limits_rejected_client_side_and_422_from_server(demo_server: Any) -> None:
    recording = Recording()
    async with client_for(demo_server, transport=recording) as client:
        conv = (await client.search_conversations(limit=1)).items[0]
        sent = len(recording.requests)
        for limit in (0, 101):
            with pytest.raises(InvalidParameter, match="limit"):
                await client.search_events(conv.id, limit=limit)
            with pytest.raises(InvalidParameter, match="limit"):
                await client.search_shared_events(conv.id, limit=limit)
            with pytest.raises(InvalidParameter, match="limit"):
                await client.search_conversations(limit=limit)
            with pytest.raises(InvalidParameter, match="limit"):
                client.iter_events(conv.id, limit=limit)
        with pytest.raises(InvalidParameter, match="timestamp_gte"):
            await client.search_events(conv.id, timestamp_gte="not-a-date")
        assert len(recording.requests) == sent, "nothing may be sent for a rejected parameter"

        # the server enforces the same rules: a raw call gets FastAPI's 422 body
        async with httpx.AsyncClient(base_url=demo_server.base_url) as raw:
            for path, params in (
                ("/api/shared-events/search", {"conversation_id": conv.id}),
                (f"/api/v1/conversation/{conv.id}/events/search", {}),
            ):
                response = await raw.get(
                    path, params={**params, "limit": 101, "timestamp__gte": "not-a-date"}
                )
                assert response.status_code == 422
                validation = HTTPValidationError.model_validate(response.json())
                locs = {tuple(item.loc) for item in validation.detail}
                assert {("query", "limit"), ("query", "timestamp__gte")} <= locs
                assert all(item.msg and item.type for item in validation.detail)

        # a 422 reaching the client is mapped and parsed (a malformed opaque page id)
        with pytest.raises(ApiValidationError) as info:
            await client.search_events(conv.id, page_id="garbage")
        assert info.value.status == 422
        assert [tuple(item.loc) for item in info.value.validation.detail] == [("query", "page_id")]
        assert "query.page_id" in str(info.value)


# --- control operations ----------------------------------------------------------------------


async def test_pause_resume_delete_sandbox(demo_copy: Any) -> None:
    server, _ = demo_copy
    async with client_for(server) as client:
        running = [s async for s in client.iter_sandboxes() if s.status == SandboxStatus.RUNNING]
        assert running
        box = running[0]

        async def status() -> str:
            (found,) = await client.get_sandboxes([box.id])
            return found.status

        assert await client.pause_sandbox(box.id) is True
        assert await status() == SandboxStatus.PAUSED
        paused = (await client.get_sandboxes([box.id]))[0]
        assert paused.session_api_key is None  # no key while paused
        assert await client.resume_sandbox(box.id) is True
        await wait_until(lambda: _is(status, SandboxStatus.RUNNING))
        resumed = (await client.get_sandboxes([box.id]))[0]
        assert resumed.session_api_key
        # conversations on it report the sandbox status too
        convs = [c async for c in client.iter_conversations(sandbox_id=box.id)]
        assert convs and all(c.sandbox_status == SandboxStatus.RUNNING for c in convs)

        with pytest.raises(NotFound):
            await client.pause_sandbox("oh-agent-server-does-not-exist")
        with pytest.raises(NotFound):
            await client.resume_sandbox("oh-agent-server-does-not-exist")
        assert await client.delete_sandbox(box.id) is True
        assert await client.get_sandboxes([box.id]) == [None]
        with pytest.raises(NotFound):
            await client.delete_sandbox(box.id)


async def _is(read: Callable[[], Any], wanted: Any) -> bool:
    return (await read()) == wanted


async def test_start_sandbox_from_spec(demo_copy: Any) -> None:
    server, _ = demo_copy
    async with client_for(server) as client:
        specs = (await client.search_sandbox_specs()).items
        spec = specs[-1]
        box = await client.start_sandbox(spec.id)
        assert isinstance(box, SandboxInfo) and box.sandbox_spec_id == spec.id
        assert box.status in (SandboxStatus.STARTING, SandboxStatus.RUNNING)

        async def running() -> bool:
            (found,) = await client.get_sandboxes([box.id])
            return found is not None and found.status == SandboxStatus.RUNNING

        await wait_until(running)
        assert box.id in {s.id async for s in client.iter_sandboxes()}
        default = await client.start_sandbox()
        assert default.sandbox_spec_id == specs[0].id
        with pytest.raises(NotFound):
            await client.start_sandbox("registry.example.com/no/such:spec")


async def test_create_conversation_reaches_ready_with_progress(demo_copy: Any) -> None:
    server, _ = demo_copy
    seen: list[str] = []
    tasks: list[AppConversationStartTask] = []

    def progress(task: AppConversationStartTask) -> None:
        tasks.append(task)
        seen.append(str(getattr(task.status, "value", task.status)))

    async with client_for(server) as client:
        request = {
            "title": "Client test conversation",
            "initial_message": {
                "role": "user",
                "content": [{"type": "text", "text": "Say hi"}],
                "run": True,
            },
        }
        task = await client.create_conversation(
            request, poll_interval=0.02, timeout=20, on_progress=progress
        )
        assert task.status == StartTaskStatus.READY and task.app_conversation_id
        assert seen[0] == "WORKING" and seen[-1] == "READY" and len(seen) >= 3
        assert all(a != b for a, b in pairwise(seen)), "on_progress fires on changes only"
        assert len({t.id for t in tasks}) == 1
        (conv,) = await client.get_conversations([task.app_conversation_id])
        assert conv is not None and conv.title == "Client test conversation"
        (again,) = await client.get_start_tasks([task.id])
        assert again is not None and again.status == StartTaskStatus.READY
        assert await client.count_events(conv.id) >= 1

        # the two steps by hand: POST answers WORKING at once, the task advances on its own
        started = await client.start_conversation(title="Direct start")
        assert started.status == StartTaskStatus.WORKING and started.app_conversation_id is None

        async def ready() -> AppConversationStartTask | None:
            (current,) = await client.get_start_tasks([started.id])
            return (
                current if current is not None and current.status == StartTaskStatus.READY else None
            )

        done = await wait_until(ready)
        assert done.app_conversation_id and done.request["title"] == "Direct start"

        # a start on a sandbox in ERROR fails, carrying the task
        broken = [s async for s in client.iter_sandboxes() if s.status == SandboxStatus.ERROR]
        assert broken
        with pytest.raises(StartTaskFailed) as info:
            await client.create_conversation(
                {"sandbox_id": broken[0].id}, poll_interval=0.02, timeout=20
            )
        assert info.value.task.status == StartTaskStatus.ERROR and info.value.task.detail


# --- authentication --------------------------------------------------------------------------


async def test_auth_on(make_server: Callable[..., Any], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server = make_server(session_key=KEY)
    cid = generate_conversation(server.store, 150, seed=3)
    errors: list[OpenHandsError] = []

    async with client_for(server) as anonymous:
        for call in (
            anonymous.search_conversations(),
            anonymous.search_sandboxes(),
            anonymous.search_events(cid),
            anonymous.count_events(cid),
            anonymous.pause_sandbox("x"),
        ):
            with pytest.raises(AuthError) as info:
                await call
            assert info.value.status == 401
            errors.append(info.value)
        # the shared search is public
        shared = [e async for e in anonymous.iter_events(cid, shared=True)]
        assert len(shared) == len(stored_order(server.store, cid, viewable_only=True))

    async with client_for(server, session_api_key="wrong-key") as wrong:
        with pytest.raises(AuthError) as info:
            await wrong.search_conversations()
        errors.append(info.value)

    for kwargs in ({"session_api_key": KEY}, {"api_key": KEY}):
        async with client_for(server, **kwargs) as client:
            page = await client.search_conversations()
            assert [c.id for c in page.items] == [cid]
            assert len([e async for e in client.iter_events(cid)]) == 150
            assert (await client.search_shared_events(cid, limit=1)).items
            with pytest.raises(NotFound) as info:
                await client.pause_sandbox("oh-agent-server-missing")
            errors.append(info.value)
            assert KEY not in repr(client)

    for err in errors:
        assert KEY not in str(err) and KEY not in repr(err) and KEY not in repr(err.args)
    for record in caplog.records:
        assert KEY not in record.getMessage(), record.getMessage()


async def test_auth_off_accepts_any_client(make_server: Callable[..., Any]) -> None:
    server = make_server()
    cid = generate_conversation(server.store, 20, seed=4)
    for kwargs in ({}, {"session_api_key": KEY}, {"api_key": KEY}):
        async with client_for(server, **kwargs) as client:
            assert await client.count_conversations() == 1
            assert await client.count_events(cid) == 20


async def test_stopped_server_is_connection_lost(make_server: Callable[..., Any]) -> None:
    server = make_server()
    server.stop()
    async with client_for(server, max_retries=1) as client:
        with pytest.raises(ConnectionLost) as info:
            await client.search_sandboxes()
    assert info.value.method == "GET" and info.value.url.startswith(server.base_url)
