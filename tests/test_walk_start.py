"""The whole-log walk's start (tui/app/page_pipeline.py ``settle``): a long conversation's
helper process starts as the index begins to wait for the user to be quiet, so its imports
overlap that wait; the index itself still waits. A short conversation starts no helper.
The index waits for the list's total by the news of its count (conversation_events.py
``_count_known``), not the count's whole task. And the helper's interpreter imports no
httpx (``tui.client``'s names load on first use)."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from tui.app import conversation_events
from tui.app.conversation_events import ConversationEvents
from tui.app.page_pipeline import PagePipeline
from tui.app.page_worker import MODULE
from tui.client import OpenHandsClient
from tui.client.process_worker import ProcessWorker
from tui.server import Store
from tui.server.demo import generate_conversation


class _Recorder(ProcessWorker):
    """A helper that only notes that it was asked to start (no process)."""

    def __init__(self) -> None:
        super().__init__(MODULE)
        self.asked_to_start = asyncio.Event()

    def start(self) -> None:
        self.asked_to_start.set()


def _pipeline(worker: ProcessWorker) -> PagePipeline:
    pipeline = PagePipeline(None, "c")  # type: ignore[arg-type] - settle makes no request
    pipeline.worker = worker
    return pipeline


async def test_a_long_conversations_helper_starts_while_the_index_waits_for_quiet():
    worker = _Recorder()
    pipeline = _pipeline(worker)
    pipeline.quiet = 60.0  # the index waits all this time: the test ends it
    pipeline.index_called()
    settling = asyncio.ensure_future(pipeline.settle(5_000))
    await worker.asked_to_start.wait()  # the helper starts at once ...
    assert not settling.done()  # ... while the index still waits
    settling.cancel()


async def test_a_load_of_the_users_goes_first_then_the_helper_starts():
    worker = _Recorder()
    pipeline = _pipeline(worker)
    pipeline.quiet = 0.01
    pipeline.index_called()
    with pipeline.asked():  # e.g. End's page on its way
        settling = asyncio.ensure_future(pipeline.settle(5_000))
        await asyncio.sleep(0)  # one turn: settle has looked, and waits
        assert not worker.asked_to_start.is_set() and not settling.done()
    await worker.asked_to_start.wait()  # the page is in: the helper starts
    await settling
    assert pipeline._settled


async def test_a_short_conversation_starts_no_helper():
    worker = _Recorder()
    pipeline = _pipeline(worker)
    pipeline.index_called()
    await pipeline.settle(100)
    assert not worker.asked_to_start.is_set() and not pipeline._settled


def test_the_helpers_imports_leave_httpx_out():
    code = (
        "import sys, tui.app.page_worker, tui.app.page_walker\n"
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
        events._counted_kind = folded_count
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
