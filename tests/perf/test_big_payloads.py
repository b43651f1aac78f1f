"""Big payloads cost bounded bytes in both processes (issue 32, finding 9).

Twenty outputs of 20 MB took 891 MB in the app and 1,237 MB in its folder server (then
2.1 GB, the first page refused by the client's 64 MB bound). What binds them now, pinned
here by counting what is held (tracemalloc, the caches' own weights), never by RSS or
time, at scaled sizes (outputs of 120 KB against bounds of a few hundred KB; the figures
at full size are ``python -m bench.big_payloads``'s):

- the folder server reads a page's files one at a time, stops a page at ``PAGE_BYTES``, and
  caches event texts by the bytes they hold;
- the app fetches by id as many events as weigh ``FETCH_BYTES`` (an export), halving a
  request whose answer is too large to read, and its cache of full events stays within its
  bytes while every event still comes, in order.
"""

from __future__ import annotations

import gc
import tracemalloc

from tests.helpers.folder_helpers import write_folder
from tests.server.test_page_bytes import CID, OUTPUT, events
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.event_cache import EventCache, weigh
from tui.client import OpenHandsClient
from tui.server import Store
from tui.server.folders import FolderStore
from tui.server.responses import page_body
from tui.server.store.base import text_bytes
from tui.server.views import conversation_info

OUTPUTS = 20
KB = 1024


def test_the_folder_server_holds_a_page_and_its_cache_not_the_log(tmp_path):
    """20 outputs (2.4 MB of files): walking every page and reading every event by id holds at
    most the cache's bytes and a few pages' worth at once (before: the log three times, as
    texts, the page's text and its bytes)."""
    write_folder(tmp_path, CID, events(OUTPUTS))
    store = FolderStore(tmp_path)
    cache_bound = page_bound = 300 * KB
    store._bodies.max_weight = cache_bound  # scaled as the page bound is
    biggest = text_bytes("x" * (OUTPUT + 1_000))
    gc.collect()
    tracemalloc.start()
    try:
        after, sent = None, 0
        while True:
            rows, following = store.search_events(CID, after=after, max_bytes=page_bound)
            body = page_body([row.json for row in rows], None).encode()  # what the route sends
            sent += len(rows)
            del body
            if following is None:
                break
            after = (rows[-1].timestamp, rows[-1].seq)
        ids = list(store.logs[CID].ids)
        for event_id in ids:
            (text,) = store.get_events(CID, [event_id])
            assert text is not None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sent == 2 * OUTPUTS + 1
    assert store._bodies.weight <= cache_bound + biggest  # the newest always stays
    # a page's texts, its body as text and as bytes, and a file being read (its bytes, its
    # text, its parsed value) beside the cache; the log is 2.4 MB
    assert peak <= cache_bound + 3 * (page_bound + biggest) + 3 * biggest + 256 * KB, peak
    store.close()


def big_store(count: int) -> Store:
    store = Store()
    store.put_conversation(
        conversation_info(id=CID, sandbox_id="sb", title="big", created_at="2026-11-20T10:00:00Z")
    )
    store.append_events(CID, events(count), normalize=False)
    return store


async def test_the_app_fetches_events_by_id_a_bounded_weight_at_a_time(make_server):
    """An export's fetches: each call of events_for gathers about its bytes (here 300 KB,
    a client that reads 250 KB at most: a request for all is too large and is halved down),
    every event comes once, in order, and the cache stays within its bytes."""
    store = big_store(OUTPUTS)
    server = make_server(store)
    fetch_bound = 300 * KB
    async with OpenHandsClient(server.base_url, max_body=250 * KB) as client:
        loaded = ConversationEvents(client, CID)
        loaded._cache = EventCache(max_bytes=400 * KB)
        await loaded.load_all(loaded.base)  # pages asked again for fewer: too large at 100
        rows = list(loaded.base.head)
        assert [row.id for row in rows] == [e["id"] for e in events(OUTPUTS)]
        assert loaded._cache.bytes <= 400 * KB
        biggest = max(weigh(e) for e in (await loaded.events_for(rows[2:3]))[0])
        got, start, calls = [], 0, 0
        while start < len(rows):
            batch, taken = await loaded.events_for(rows[start:], max_bytes=fetch_bound)
            assert taken >= 1 and sum(weigh(e) for e in batch) <= fetch_bound + biggest
            got += [e.id for e in batch]
            start, calls = start + taken, calls + 1
        assert got == [row.id for row in rows] and calls >= 6  # ~2.4 MB, ~300 KB a call
        assert loaded._cache.bytes <= 400 * KB
    store.close()
