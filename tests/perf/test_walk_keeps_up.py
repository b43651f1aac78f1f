"""What the UI does with each page of the whole-log walk (conversation_events.py
``index_page``, page_worker.py ``row_from``): the tree pane's model is extended a page at a
time once built (the walk's last page then leaves one page to add, not a second's worth),
and a row made again from the helper's fields is the row it made."""

from __future__ import annotations

import pytest

from tui.app.helper.page_worker import MODULE, row_from
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.rows import EventRow
from tui.client import OpenHandsClient
from tui.client.process_worker import ProcessWorker
from tui.server import Store
from tui.server.demo import generate_conversation


@pytest.fixture(scope="module")
def conversation():
    store = Store()
    cid = generate_conversation(store, 350, seed=9)
    yield store, cid
    store.close()


async def test_the_tree_keeps_up_with_the_index_page_by_page(make_server, conversation):
    store, cid = conversation
    client = OpenHandsClient(make_server(store).base_url)
    try:
        events = ConversationEvents(client, cid)
        worker = events.pipeline.worker = ProcessWorker(MODULE)
        worker.close()  # pages read in-line: what is checked is the store's own step
        await events.open_window(events.base.query)
        assert await events.index_page() == 100  # no tree yet: none is built for it
        assert events.tree is None
        tree = events.build_tree()  # the pane asked for it once
        while not events.base.complete:
            assert await events.index_page()
            assert events.tree is tree and len(tree) == len(events.base.head)
        assert events.build_tree() is tree and len(tree) == 350
        fresh = ConversationEvents(client, cid)
        fresh.base = events.base
        rebuilt = fresh.build_tree()  # the same tree as one built over the whole log
        assert [tree.parent[p] for p in range(350)] == [rebuilt.parent[p] for p in range(350)]
    finally:
        await client.aclose()


def test_a_row_made_again_from_its_fields_is_the_same_row():
    row = EventRow(
        "e1", "2026-11-24T23:00:00.123456", "agent", "ActionEvent", "ls", "e0", "call-1",
        "error", "words", "a0", True,
    )  # fmt: skip
    again = row_from(row.state())
    assert again.args() == row.args() and again.timestamp == row.timestamp
    odd = EventRow("e2", "yesterday", "user", "MessageEvent", "hi")  # a stamp kept as text
    assert row_from(odd.state()).args() == odd.args()
