"""A generated conversation folder of up to 100,000 files pages and filters exactly like the SQLite store
holding the same events: every page of every query in both sort orders, and every count.

The folder is written once per module and removed afterwards. The suite uses 10,000 files
(about 6 s); ``OHTUI_FOLDER_EVENTS=100000 pytest tests/perf/test_folder_large.py`` runs the full size
(about a minute, most of it writing and deleting the files). The walks go through the stores; a
few pages of each query also go through the reference server and the client (opaque page ids,
both sort orders)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.helpers.folder_helpers import write_folder
from tui.client import OpenHandsClient
from tui.server import Store
from tui.server.demo import generate_conversation
from tui.server.folders import FolderStore

EVENTS = int(os.environ.get("OHTUI_FOLDER_EVENTS", "10000"))


@pytest.fixture(scope="module")
def same_events(tmp_path_factory):
    """(SQLite store, folder store, conversation id) over the same ``EVENTS`` events."""
    sqlite = Store()
    cid = generate_conversation(sqlite, EVENTS, seed=11)
    rows = sorted(sqlite.iter_events(cid), key=lambda r: (r.timestamp, r.seq))  # the store's order
    root = tmp_path_factory.mktemp("folders")
    write_folder(root, cid, [json.loads(r.json) for r in rows])
    folder = FolderStore(root)
    yield (
        sqlite,
        folder,
        cid,
        [json.loads(r.json) for r in (rows[EVENTS // 3], rows[2 * EVENTS // 3])],
    )
    folder.close()
    sqlite.close()
    shutil.rmtree(root, ignore_errors=True)  # ~100,000 small files: not kept between runs


def queries(marks: list[dict]) -> list[dict]:
    early, late = marks[0]["timestamp"], marks[1]["timestamp"]
    return [
        {},
        {"descending": True},
        {"kind": "ActionEvent"},
        {"kind": "ObservationEvent", "descending": True},
        {"timestamp_gte": early},
        {"timestamp_lt": late, "kind": "MessageEvent", "descending": True},
        {"timestamp_gte": early, "timestamp_lt": late},
        {"kind": "ConversationStateUpdateEvent", "viewable_only": True},
        {"viewable_only": True, "descending": True},
    ]


def walk(store: Store, cid: str, query: dict, limit: int) -> list[tuple[str, str]]:
    """Every page of ``query``: (id, timestamp) of each row, in the order served."""
    out, after = [], None
    while True:
        rows, more = store.search_events(cid, after=after, limit=limit, **query)
        out.extend((json.loads(r.json)["id"], r.timestamp) for r in rows)
        if not more:
            return out
        assert rows, query
        after = (rows[-1].timestamp, rows[-1].seq)


def test_every_page_and_count_equals_the_sqlite_store(same_events):
    sqlite, folder, cid, marks = same_events
    assert len(folder.logs[cid]) == EVENTS
    for query in queries(marks):
        got, want = walk(folder, cid, query, 1000), walk(sqlite, cid, query, 1000)
        assert got == want, query
        assert got or query.get("viewable_only"), (
            query
        )  # every query but the non-viewable kind has rows
        filters = {k: v for k, v in query.items() if k != "descending"}
        assert (
            folder.count_events(cid, **filters) == sqlite.count_events(cid, **filters) == len(want)
        ), query


async def test_pages_through_the_server_equal_the_sqlite_server(same_events, make_server):
    sqlite, folder, cid, marks = same_events
    local, db = make_server(folder), make_server(sqlite)
    early = marks[0]["timestamp"]
    client_queries = [
        {},
        {"sort_order": "TIMESTAMP_DESC"},
        {"kind": "ActionEvent", "timestamp_gte": early},
        {"kind": "MessageEvent", "sort_order": "TIMESTAMP_DESC"},
    ]
    async with OpenHandsClient(local.base_url) as a, OpenHandsClient(db.base_url) as b:
        for query in client_queries:
            pages_a = pages_b = None
            for _ in range(3):  # first three pages, following each server's own page ids
                pages_a = await a.search_events(
                    cid, limit=100, page_id=pages_a and pages_a.next_page_id, **query
                )
                pages_b = await b.search_events(
                    cid, limit=100, page_id=pages_b and pages_b.next_page_id, **query
                )
                assert [e.id for e in pages_a.items] == [
                    e.id for e in pages_b.items
                ] and pages_a.items, query
            filters = {k: v for k, v in query.items() if k != "sort_order"}
            assert await a.count_events(cid, **filters) == await b.count_events(cid, **filters)
