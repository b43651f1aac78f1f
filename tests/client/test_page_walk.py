"""The index's pages fetched by the helper itself (tui/client/page_fetch.py,
tui/app/helper/page_walker.py): the same rows as in-line, the session key carried over its pipe
(never its command line, never shown), outages and dropped connections read the ordinary
way, a looping server stopped, and the old path (the UI fetches, the helper reads) where
the helper cannot make the requests itself."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
import pytest

from tests.helpers.app_helpers import wait_for
from tui.app.helper.page_worker import MODULE
from tui.app.store.conversation_events import ConversationEvents
from tui.client import OpenHandsClient, PageLoopError
from tui.client.page_fetch import PageFetcher, PageRefused, page_request
from tui.client.process_worker import ProcessWorker
from tui.server import Store
from tui.server.demo import generate_conversation
from tui.server.faults import Faults

KEY = "sess-WALK-SENTINEL-51f0"


@pytest.fixture(scope="module")
def conversation():
    store = Store()
    cid = generate_conversation(store, 700, seed=11)
    yield store, cid
    store.close()


async def _walk(events: ConversationEvents, *, kill_after: int | None = None) -> None:
    worker = events.pipeline.worker
    await events.open_window(events.base.query)
    while not events.base.complete:
        await events.index_page()
        if kill_after is not None and events.pipeline.helped >= kill_after and worker.usable:
            os.kill(worker.pid, signal.SIGKILL)  # mid-walk: the pages after are read in-line


async def _with_helper(client: OpenHandsClient, cid: str) -> ConversationEvents:
    """The conversation's events with a ready helper of their own, used at any size."""
    events = ConversationEvents(client, cid)
    worker = events.pipeline.worker = ProcessWorker(MODULE)
    events.pipeline.min_events = 0
    worker.start()
    await wait_for(lambda: worker.usable)
    return events


async def _helped(client: OpenHandsClient, cid: str, **walk) -> ConversationEvents:
    events = await _with_helper(client, cid)
    worker = events.pipeline.worker
    try:
        await _walk(events, **walk)
    finally:
        worker.close()
    return events


async def _in_line(client: OpenHandsClient, cid: str) -> list[tuple]:
    events = ConversationEvents(client, cid)
    await _walk(events)
    return [row.args() for row in events.base.head]


async def test_the_helper_fetches_the_pages_itself_with_the_key_never_on_its_command_line(
    make_server, conversation
):
    store, cid = conversation
    server = make_server(store, session_key=KEY)
    client = OpenHandsClient(server.base_url, session_api_key=KEY)
    try:
        expected = await _in_line(client, cid)
        events = await _with_helper(client, cid)
        worker = events.pipeline.worker
        assert KEY.encode() not in Path(f"/proc/{worker.pid}/cmdline").read_bytes()
        await _walk(events)
        worker.close()
        request = client.search_events_request(cid)
        assert request is not None and KEY not in repr(request) and "hidden" in repr(request)
        # every page but the first (read before the walk) was fetched by the helper
        assert events.pipeline.walked == events.pipeline.helped == len(expected) // 100 - 1
        assert [row.args() for row in events.base.head] == expected
    finally:
        await client.aclose()


async def test_rows_are_whole_when_the_helper_dies_mid_walk(make_server, conversation):
    store, cid = conversation
    client = OpenHandsClient(make_server(store).base_url)
    try:
        expected = await _in_line(client, cid)
        events = await _helped(client, cid, kill_after=2)
        # pages the helper fetched ahead before it died may still be read from its pipe (a
        # loaded machine lets it run ahead to the end): what counts is that no row is lost
        assert 2 <= events.pipeline.helped <= len(expected) // 100 - 1
        assert [row.args() for row in events.base.head] == expected
    finally:
        await client.aclose()


async def test_failed_pages_and_dropped_connections_are_read_the_ordinary_way(
    make_server, conversation
):
    store, cid = conversation
    faults = Faults()
    server = make_server(store, faults=faults)
    client = OpenHandsClient(server.base_url, backoff=0.0)
    path = f"/api/v1/conversation/{cid}/events/search"
    try:
        expected = await _in_line(client, cid)
        events = await _with_helper(client, cid)
        worker = events.pipeline.worker
        await events.open_window(events.base.query)
        for kind, options in [
            ("status", {"status": 503}),
            ("malformed", {}),
            ("status_then_close", {}),
            ("status", {"status": 500}),
        ]:
            faults.add(kind, path, **options)
        while not events.base.complete:
            await events.index_page()
        worker.close()
        assert sum(faults.hits.values()) >= 4  # every fault was met
        assert 1 <= events.pipeline.helped < 6  # some pages were read the ordinary way
        assert [row.args() for row in events.base.head] == expected
    finally:
        await client.aclose()


async def test_a_server_that_ignores_page_ids_stops_the_walk(make_server, conversation):
    store, cid = conversation
    faults = Faults()
    client = OpenHandsClient(make_server(store, faults=faults).base_url)
    try:
        events = await _with_helper(client, cid)
        worker = events.pipeline.worker
        await events.open_window(events.base.query)
        faults.add("repeat_page", f"/api/v1/conversation/{cid}/events/search", times=-1)
        with pytest.raises(PageLoopError):
            while not events.base.complete:
                await events.index_page()
        assert len(events.base.head) == 100  # the first page's rows, once
        worker.close()
    finally:
        await client.aclose()


class OwnTransport(httpx.AsyncHTTPTransport):
    """A transport of the caller's: the helper cannot make its requests."""


async def test_with_a_transport_of_its_own_the_ui_fetches_and_the_helper_reads(
    make_server, conversation
):
    store, cid = conversation
    client = OpenHandsClient(make_server(store).base_url, transport=OwnTransport())
    try:
        expected = await _in_line(client, cid)
        events = await _helped(client, cid)
        assert client.search_events_request(cid) is None
        assert events.pipeline.helped >= 1 and events.pipeline.walked == 0
        assert [row.args() for row in events.base.head] == expected
    finally:
        await client.aclose()


def test_the_lean_client_refuses_what_is_not_a_page_answer(make_server, conversation):
    store, cid = conversation
    server = make_server(store, session_key=KEY)
    path = f"/api/v1/conversation/{cid}/events/search"
    query = {"limit": 5, "sort_order": "TIMESTAMP", "kind__eq": None}
    no_key = PageFetcher(page_request(server.base_url, path, query, {}, 5.0))
    with pytest.raises(PageRefused, match="401"):
        no_key.fetch(None)
    no_key.close()
    keyed = page_request(server.base_url, path, query, {"X-Session-API-Key": KEY}, 5.0)
    assert "kind__eq" not in keyed.target("p") and keyed.target("p").endswith("page_id=p")
    fetcher = PageFetcher(keyed)
    assert b'"items"' in fetcher.fetch(None) and b'"items"' in fetcher.fetch(None)  # kept alive
    fetcher.close()


def test_a_proxy_from_the_environment_keeps_the_requests_in_the_ui(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert page_request("http://example.test:8000", "/x", {}, {}, 5.0) is None
    monkeypatch.setenv("NO_PROXY", "example.test")
    assert page_request("http://example.test:8000/pre/", "/x", {}, {}, 5.0).path == "/pre/x"
