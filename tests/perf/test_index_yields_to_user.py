"""A long conversation's index starts only once the user leaves the list alone
(tui/app/helper/page_pipeline.py ``settle``, conversation_events.py ``index_page``): End right
after the open loads its page without the helper's start and the index's first pages on
the same cores and the same single-threaded server. It waits for the list's count first
(whether the conversation is long). A short conversation's index is not held back."""

from __future__ import annotations

import asyncio

import pytest

from tui.app.helper.page_worker import MODULE
from tui.app.store.conversation_events import ConversationEvents
from tui.client import OpenHandsClient
from tui.client.process_worker import ProcessWorker
from tui.server import Store
from tui.server.demo import generate_conversation


@pytest.fixture(scope="module")
def conversation():
    store = Store()
    cid = generate_conversation(store, 350, seed=5)
    yield store, cid
    store.close()


def _events(client: OpenHandsClient, cid: str, *, long: bool) -> ConversationEvents:
    """The store, its index reading in-line (a helper that will not start: the in-line
    fallback), ``long`` or not by the helper's threshold, with no quiet time to wait."""
    events = ConversationEvents(client, cid)
    worker = events.pipeline.worker = ProcessWorker(MODULE)
    worker.close()  # never started: pages are read in-line, as when it cannot start
    events.pipeline.min_events = 0 if long else 10_000
    events.pipeline.quiet = 0.0
    return events


async def test_the_index_of_a_long_conversation_waits_while_the_user_loads_rows(
    make_server, conversation
):
    store, cid = conversation
    client = OpenHandsClient(make_server(store).base_url)
    try:
        events = _events(client, cid, long=True)
        window = await events.open_window(events.base.query)
        assert window.total == 350 and len(window.head) == 100
        with events.pipeline.asked():  # e.g. End's page on its way
            index = asyncio.ensure_future(events.index_page())
            # a real load of the user's own (requests, pages read): the index still waits
            assert await events.fill_range(window, 340, 350)
            assert not index.done() and len(window.head) == 100
        assert await index == 100  # once the user's loads are over, it goes on
        assert len(window.head) == 200
    finally:
        await client.aclose()


async def test_a_short_conversations_index_is_not_held_back(make_server, conversation):
    store, cid = conversation
    client = OpenHandsClient(make_server(store).base_url)
    try:
        events = _events(client, cid, long=False)
        window = await events.open_window(events.base.query)
        with events.pipeline.asked():
            assert await events.index_page() == 100  # no helper: nothing worth waiting for
        assert len(window.head) == 200
    finally:
        await client.aclose()


async def test_the_index_waits_for_the_count_that_follows_the_first_paint(
    make_server, conversation
):
    store, cid = conversation
    client = OpenHandsClient(make_server(store).base_url)
    totals: list[int | None] = []
    try:
        events = _events(client, cid, long=True)
        events.pipeline.min_events = 300  # long only by its count
        later: list = []
        window = await events.open_window(
            events.base.query, lambda w: totals.append(w.total), later.append
        )
        assert window.total is None and later  # the count waits for the first paint
        index = asyncio.ensure_future(events.index_page())
        assert await events.count(events.base.query) == 350  # requests go meanwhile
        assert not index.done() and len(window.head) == 100
        for call in later:  # the first paint: the count starts, then the index
            call()
        assert await index == 100
        assert totals[0] == 350 and events.pipeline._settled  # it knew the log was long
    finally:
        await client.aclose()
