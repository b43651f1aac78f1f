"""Connections and long operations (issue 14, items 4 and 6, client half).

The connection faults are made by real servers on loopback: a scripted HTTP/1.1 server
(``scripted_http.py``) for uvicorn's "500 then close" and for a server that drops a request
unanswered, the reference server's fault queue for slow answers. A mock transport appears
only for a write failing on a dead pooled connection, which a real server cannot be made
to cause on cue.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.helpers.scripted_http import Answer, ScriptedHttpServer, Seen
from tui.client import (
    ApiValidationError,
    ConnectionLost,
    OpenHandsClient,
    OutcomeUnknown,
    RequestTimeout,
    ServerError,
    StartTaskFailed,
    StartTaskTimeout,
    kinds,
)
from tui.models import AppConversationStartTask, StartTaskStatus
from tui.server import RunningServer, Store, load_demo

SANDBOX = {
    "id": "sb-1",
    "created_by_user_id": None,
    "sandbox_spec_id": "spec",
    "status": "STARTING",
    "session_api_key": None,
    "exposed_urls": None,
    "created_at": "2026-11-24T06:00:00Z",
}
STARTED = "The server may have started the sandbox: refresh to see."


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    kinds.forget()
    yield
    kinds.forget()


def app_client(url: str, **kwargs: Any) -> OpenHandsClient:
    kwargs.setdefault("max_retries", 0)
    return OpenHandsClient(url, server_kind="app", backoff=0.0, **kwargs)


# --- uvicorn's 500 without Connection: close, then close -------------------------------------


def close_after_500(seen: Seen) -> Answer:
    """The first request fails with uvicorn's text/plain 500 on a connection the server
    then closes — as the client's next request arrives on it. Fresh connections work."""
    if seen.connection == 1:
        return Answer(
            500, b"Internal Server Error", "text/plain; charset=utf-8", close_before_next=True
        )
    if seen.path == "/api/v1/sandboxes/search":
        return Answer(body={"items": [SANDBOX], "next_page_id": None})
    return Answer(body=SANDBOX)


async def test_the_fault_is_real_for_a_plain_pool() -> None:
    """Without closing the connection that answered 500, the next POST dies on it."""
    with ScriptedHttpServer(close_after_500) as server:
        async with httpx.AsyncClient(base_url=server.base_url) as plain:
            assert (await plain.post("/api/v1/sandboxes")).status_code == 500
            with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
                await plain.post("/api/v1/sandboxes")
        assert [(s.connection, s.number) for s in server.seen] == [(1, 1)]


@pytest.mark.parametrize("first", ["start_sandbox", "search_sandboxes"])
@pytest.mark.parametrize(
    "then", ["start_sandbox", "delete_sandbox", "search_sandboxes", "pause_sandbox"]
)
async def test_after_a_500_the_next_request_goes_on_a_fresh_connection(
    first: str, then: str
) -> None:
    with ScriptedHttpServer(close_after_500) as server:
        async with app_client(server.base_url) as client:
            with pytest.raises(ServerError) as info:
                await call(client, first)
            assert info.value.status == 500 and "Internal Server Error" in str(info.value)
            assert await call(client, then)  # no "connection lost", nothing repeated
        assert [(s.connection, s.number) for s in server.seen] == [(1, 1), (2, 1)]
        assert client._http.transport.closed_after_error == 1


async def call(client: OpenHandsClient, name: str) -> Any:
    if name == "start_sandbox":
        return await client.start_sandbox()
    if name == "search_sandboxes":
        return await client.search_sandboxes()
    if name == "delete_sandbox":
        return await client.delete_sandbox("sb-1")
    return await client.pause_sandbox("sb-1")


async def test_a_retried_read_after_a_500_uses_a_fresh_connection() -> None:
    with ScriptedHttpServer(close_after_500) as server:
        async with app_client(server.base_url, max_retries=1) as client:
            page = await client.search_sandboxes()
        assert page.items[0].id == "sb-1"
        assert [(s.connection, s.number) for s in server.seen] == [(1, 1), (2, 1)]


# --- a request that may have arrived ---------------------------------------------------------


def drop_first_two(seen: Seen) -> Answer:
    if seen.connection <= 2:
        return Answer(drop=True)  # read it, answer nothing, hang up
    if seen.path == "/api/v1/sandboxes/search":
        return Answer(body={"items": [SANDBOX], "next_page_id": None})
    return Answer(body=SANDBOX)


async def test_a_dropped_post_is_never_repeated_and_says_what_is_unknown() -> None:
    with ScriptedHttpServer(drop_first_two) as server:
        async with app_client(server.base_url, max_retries=3) as client:
            with pytest.raises(OutcomeUnknown) as info:
                await client.start_sandbox()
        assert [s.method for s in server.seen] == ["POST"]  # sent once, never again
    error = info.value
    assert str(error) == STARTED and isinstance(error, ConnectionLost)
    assert "connection lost" in error.reason and error.method == "POST"


async def test_a_dropped_read_is_repeated() -> None:
    with ScriptedHttpServer(drop_first_two) as server:
        async with app_client(server.base_url, max_retries=3) as client:
            assert (await client.search_sandboxes()).items
        assert [s.connection for s in server.seen] == [1, 2, 3]


async def test_a_write_on_a_dead_pooled_connection_is_repeated_for_any_call() -> None:
    answers: list[Any] = [httpx.WriteError("broken pipe"), httpx.Response(200, json=SANDBOX)]
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.method)
        answer = answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    async with app_client("http://oh.test", transport=httpx.MockTransport(handler)) as client:
        assert (await client.start_sandbox()).id == "sb-1"
    assert sent == ["POST", "POST"]


# --- long operations: the sandbox start ------------------------------------------------------


@pytest.fixture
def slow_app(make_server: Callable[..., RunningServer]) -> RunningServer:
    store = Store()
    load_demo(store)
    return make_server(store, sandbox_start_delay=0.0)


async def test_start_sandbox_outwaits_the_client_timeout(slow_app: RunningServer) -> None:
    slow_app.app.state.faults.add("slow", "/api/v1/sandboxes", delay=0.6, methods=("POST",))
    async with app_client(slow_app.base_url, timeout=0.2) as client:
        started = await client.start_sandbox()  # the server took 0.6 s, 3× the client timeout
        assert started.id
        sandboxes = [s.id async for s in client.iter_sandboxes()]
        assert sandboxes.count(started.id) == 1
    assert inspect.signature(OpenHandsClient.start_sandbox).parameters["timeout"].default is None


async def test_no_answer_in_time_is_an_unknown_outcome(slow_app: RunningServer) -> None:
    slow_app.app.state.faults.add("slow", "/api/v1/sandboxes", delay=0.6, methods=("POST",))
    async with app_client(slow_app.base_url, max_retries=3) as client:
        before = len((await client.search_sandboxes()).items)
        with pytest.raises(OutcomeUnknown) as info:
            await client.start_sandbox(timeout=0.1)
    assert str(info.value) == STARTED and isinstance(info.value, RequestTimeout)
    assert slow_app.app.state.faults.hits["slow"] == 1  # not sent a second time
    assert before >= 1


# --- long operations: starting a conversation ------------------------------------------------


class TickingClock:
    """Seconds since the epoch that move ``step`` each time they are read."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = time.time()

    def __call__(self) -> float:
        self.now += self.step
        return self.now


async def test_create_conversation_follows_every_status(
    make_server: Callable[..., RunningServer],
) -> None:
    # the server's clock moves 10 ms each time it is read: the start advances with the polls,
    # so every status is seen whatever the machine's speed (real seconds let a slow poll skip one)
    server = make_server(start_delay=0.3, clock=TickingClock(0.01))
    load_demo(server.store)
    seen: list[str] = []
    server.app.state.faults.add(
        "status", "/api/v1/app-conversations/start-tasks", times=3, status=503
    )
    async with app_client(server.base_url) as client:  # a failed poll is shrugged off
        task = await client.create_conversation(
            {"title": "Mine"},
            poll_interval=0.01,
            on_progress=lambda t: seen.append(str(getattr(t.status, "value", t.status))),
        )
        assert task.status == StartTaskStatus.READY and task.app_conversation_id
        (conversation,) = await client.get_conversations([task.app_conversation_id])
    assert conversation is not None and conversation.title == "Mine"
    assert seen[0] == "WORKING" and seen[-1] == "READY" and len(seen) >= 3
    assert server.app.state.faults.hits["status"] == 3
    default = inspect.signature(OpenHandsClient.create_conversation).parameters["timeout"].default
    assert default >= 600  # minutes, not the 120 s the real server needs for the sandbox alone


async def test_create_conversation_reports_the_servers_own_error(
    make_server: Callable[..., RunningServer],
) -> None:
    server = make_server(start_delay=0.05)
    load_demo(server.store)
    async with app_client(server.base_url) as client:
        with pytest.raises(StartTaskFailed) as info:
            await client.create_conversation({"sandbox_id": "gone"}, poll_interval=0.01)
    assert info.value.detail == "Sandbox not found: gone"
    assert str(info.value) == "The server could not start the conversation: Sandbox not found: gone"


async def test_cancelling_stops_the_waiting_not_the_start(
    make_server: Callable[..., RunningServer],
) -> None:
    # a clock that moves with the polls: the start is still going when the first status comes
    server = make_server(start_delay=0.4, clock=TickingClock(0.01))
    load_demo(server.store)
    first: asyncio.Future[AppConversationStartTask] = asyncio.get_running_loop().create_future()

    def progress(task: AppConversationStartTask) -> None:
        if not first.done():
            first.set_result(task)

    async with app_client(server.base_url) as client:
        waiting = asyncio.create_task(
            client.create_conversation(poll_interval=0.01, on_progress=progress)
        )
        task = await first
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while True:  # the server carries on and finishes the start on its own
            (now,) = await client.get_start_tasks([task.id])
            if now is not None and now.status == StartTaskStatus.READY:
                break
            assert loop.time() < deadline
            await asyncio.sleep(0.02)
        assert now.app_conversation_id


async def test_a_start_still_going_at_the_deadline_says_so(
    make_server: Callable[..., RunningServer],
) -> None:
    server = make_server(start_delay=30.0)
    load_demo(server.store)
    async with app_client(server.base_url) as client:
        with pytest.raises(StartTaskTimeout) as info:
            await client.create_conversation(poll_interval=0.01, timeout=0.1)
    assert "the server may finish it: refresh to see" in str(info.value)


# --- secrets of the agent settings stay out of errors ----------------------------------------


async def test_agent_settings_keys_never_reach_an_error() -> None:
    secret = "sk-live-SETTINGS-0123456789"

    def echo(request: httpx.Request) -> httpx.Response:
        body = {"detail": [{"type": "x", "loc": ["body"], "msg": f"bad {secret}", "input": secret}]}
        return httpx.Response(422, json=body)

    client = OpenHandsClient(
        "http://agent.test",
        server_kind="agent",
        transport=httpx.MockTransport(echo),
        agent_settings={"llm": {"model": "m", "api_key": secret}},
    )
    async with client:
        with pytest.raises(ApiValidationError) as info:
            await client.start_agent_conversation(message="hi")
    assert secret not in str(info.value) and secret not in repr(info.value.detail)
    assert secret not in repr(client)


async def test_agent_controls_say_what_is_unknown() -> None:
    from tui.client import AgentServerClient, endpoint_from_url

    with ScriptedHttpServer(lambda seen: Answer(drop=True)) as server:
        endpoint = endpoint_from_url(f"{server.base_url}/api/conversations/{'a' * 32}", "k")
        async with AgentServerClient(endpoint, backoff=0.0) as control:
            with pytest.raises(OutcomeUnknown, match="^The message may have reached the agent"):
                await control.send_message("hello")
            with pytest.raises(OutcomeUnknown, match="^The agent may have received your answer"):
                await control.respond_to_confirmation(True)
            assert requests_seen(server) == 2  # neither was sent twice
            with pytest.raises(ConnectionLost):
                await control.pause()  # safe to repeat: repeated, then given up
        assert requests_seen(server) == 2 + 4


def requests_seen(server: ScriptedHttpServer) -> int:
    return len(server.seen)
