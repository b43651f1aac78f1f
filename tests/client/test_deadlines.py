"""Deadlines and patience in the client: a trickling server is given up on, a page cut off
mid-way is read again, a walk through many pages outlasts a failing one, ``Retry-After`` on
a 503 is kept for the caller.

The trickle server is a real loopback socket that answers one byte at a time (httpx's read
timeout never fires on it); the other faults come from the reference server's fault queue.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from tui.client import OpenHandsClient, RequestTimeout, ServerError
from tui.client import http as client_http
from tui.export import export_conversation
from tui.server import Store
from tui.server.demo import generate_conversation


@pytest.fixture
def no_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Retry pauses recorded instead of slept."""
    waited: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(client_http, "_sleep", fake_sleep)
    return waited


@contextlib.asynccontextmanager
async def trickle_server(gap: float = 0.05):
    """A loopback HTTP server that sends a 200 header, then its body one byte per ``gap``."""
    body = b'{"items": [], "next_page_id": null}' + b" " * 10_000
    started = asyncio.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            started.set()
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                + f"content-length: {len(body)}\r\n\r\n".encode()
            )
            for byte in body:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(gap)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", started
    finally:
        server.close()
        with contextlib.suppress(Exception):
            await server.wait_closed()


async def test_a_server_sending_a_byte_at_a_time_meets_the_call_deadline(no_waits):
    async with trickle_server() as (url, started):
        client = OpenHandsClient(url, timeout=5.0, max_retries=3, server_kind="app")
        client._http.deadline = 0.5  # the whole call, retries included
        async with client:
            with pytest.raises(RequestTimeout) as info:
                await client.search_events("c1")
    assert started.is_set()
    assert "no complete answer within 0.5 s" in str(info.value)
    assert no_waits == []  # past the deadline nothing is tried again


async def test_the_default_deadline_scales_with_the_read_timeout():
    client = OpenHandsClient("http://127.0.0.1:9", timeout=15.0)
    assert client._http.deadline is None  # computed per call: DEADLINE_FACTOR × read timeout
    assert client_http.DEADLINE_FACTOR * 15.0 == 60.0
    await client.aclose()


async def test_a_page_cut_off_mid_way_is_read_again(make_server, no_waits):
    store = Store()
    cid = generate_conversation(store, 30, seed=1)
    server = make_server(store)
    server.app.state.faults.add("malformed", f"/api/v1/conversation/{cid}/events/search", times=2)
    async with OpenHandsClient(server.base_url, max_retries=3) as client:
        page = await client.search_events(cid, limit=100)
    assert len(page.items) == 30
    assert len(no_waits) == 2
    assert server.app.state.faults.hits["malformed"] == 2


async def test_an_export_outlasts_a_page_failing_longer_than_the_client_retries(
    make_server, no_waits
):
    store = Store()
    cid = generate_conversation(store, 350, seed=2)
    server = make_server(store)
    faults = server.app.state.faults
    search = f"/api/v1/conversation/{cid}/events/search"
    # more failures in a row than one call's retries (3 + 1 tries), of every chaos kind
    faults.add("status", search, times=5, status=500, body='{"detail": "boom"}')
    faults.add("malformed", search, times=3)
    faults.add("status_then_close", search, times=2)
    faults.add("status", search, times=2, status=429, headers={"retry-after": "1"})
    # and the record's lookup (the title) fails longer than one call retries too
    faults.add("status", "/api/v1/app-conversations", times=5, status=503)
    out: list[str] = []
    async with OpenHandsClient(server.base_url, max_retries=3) as client:
        count = await export_conversation(client, cid, out.append, fmt="jsonl")
    assert faults.pending == 0
    lines = "".join(out).splitlines()
    assert count == len(lines) == len(list(store.iter_events(cid)))
    assert 1.0 in no_waits  # the 429's Retry-After was waited out, not a guessed backoff


async def test_a_walk_gives_up_on_a_retry_after_past_its_longest_pause(make_server, no_waits):
    store = Store()
    cid = generate_conversation(store, 10, seed=3)
    server = make_server(store)
    server.app.state.faults.add(
        "status",
        f"/api/v1/conversation/{cid}/events/search",
        times=-1,
        status=429,
        headers={"retry-after": "600"},
    )
    async with OpenHandsClient(server.base_url, max_retries=2) as client:
        with pytest.raises(Exception) as info:
            await export_conversation(client, cid, lambda _text: None, fmt="jsonl")
    assert getattr(info.value, "retry_after", None) == 600
    assert no_waits == []  # neither the call nor the walk sat out ten minutes


async def test_retry_after_on_a_503_is_kept_and_honoured(make_server, no_waits):
    store = Store()
    cid = generate_conversation(store, 5, seed=4)
    server = make_server(store)
    server.app.state.faults.add(
        "status",
        f"/api/v1/conversation/{cid}/events/search",
        times=-1,
        status=503,
        headers={"retry-after": "7"},
    )
    async with OpenHandsClient(server.base_url, max_retries=1) as client:
        with pytest.raises(ServerError) as info:
            await client.search_events(cid)
    assert info.value.retry_after == 7
    assert no_waits == [7]
