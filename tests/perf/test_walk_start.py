"""The whole-log walk's start: the index waits for the list's total by the news of its
count (conversation_events.py ``count_known``), not the count's whole task, and only so
long; the helper's interpreter imports no httpx (``tui.client``'s names load on first use),
which would add ~0.05 s of CPU to its start."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from tui.app.helper.page_worker import MODULE
from tui.app.store import conversation_events
from tui.app.store.conversation_events import ConversationEvents
from tui.client import OpenHandsClient
from tui.client.process_worker import ProcessWorker
from tui.server import Store
from tui.server.demo import generate_conversation


def test_the_helpers_imports_leave_httpx_out():
    code = (
        "import sys, tui.app.helper.page_worker, tui.app.helper.page_walker\n"
        "print(sorted(m for m in ('httpx', 'httpcore', 'anyio') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def conversation():
    store = Store()
    cid = generate_conversation(store, 350, seed=7)
    yield store, cid
    store.close()


def _in_line(client: OpenHandsClient, cid: str) -> ConversationEvents:
    events = ConversationEvents(client, cid)
    worker = events.pipeline.worker = ProcessWorker(MODULE)
    worker.close()  # pages read in-line
    events.pipeline.min_events = 300
    events.pipeline.quiet = 0.0
    return events


async def test_the_index_goes_on_once_the_total_lands_not_when_its_count_ends(
    make_server, conversation
):
    store, cid = conversation
    client = OpenHandsClient(make_server(store).base_url)
    slow = asyncio.Event()  # the folded kind's count (a folder server's ~1 s)

    async def folded_count(query):
        await slow.wait()
        return 0

    try:
        events = _in_line(client, cid)
        events._counted_kinds = folded_count
        later: list = []
        await events.open_window(events.base.query, lambda w: None, later.append)
        index = asyncio.ensure_future(events.index_page())
        for call in later:  # the first paint: the count starts
            call()
        assert await index == 100
        assert events.base.total == 350 and events._counting  # its task still counts
        slow.set()
    finally:
        await client.aclose()


async def test_a_count_that_never_answers_holds_the_index_only_so_long(
    make_server, conversation, monkeypatch
):
    store, cid = conversation
    client = OpenHandsClient(make_server(store).base_url)
    never = asyncio.Event()

    async def count(query):
        await never.wait()

    monkeypatch.setattr(conversation_events, "COUNT_WAIT_S", 0.05)
    try:
        events = _in_line(client, cid)
        events.count = count
        later: list = []
        await events.open_window(events.base.query, lambda w: None, later.append)
        for call in later:
            call()
        assert await events.index_page() == 100  # read without the total
        assert events.base.total is None and events._counting
        never.set()
    finally:
        await client.aclose()
