"""A page too large to read is asked again for fewer events (issue 32, finding 9).

A server that pages by count alone (the real ones do) sends a hundred outputs of 20 MB as
one answer, which the client will not read (64 MB at most). Refusing it left a conversation
that could not be opened at all. The client asks again for fewer events: so many that the
page is about half its bound at the size the server announced, else half as many; each
page's id says where the next starts, so nothing is lost or doubled. One event larger than
the bound on its own is the error it is. Sizes scaled down: a client bound of 250 KB.
"""

from __future__ import annotations

import logging

import pytest

from tests.server.test_page_bytes import CID, events
from tui.client import OpenHandsClient, ResponseTooLarge
from tui.client.sizes import fewer_events
from tui.server import Store
from tui.server.views import conversation_info

KB = 1024


def test_fewer_events_fit_half_the_bound_or_halve():
    assert fewer_events(100, 400 * 1024 * KB, 64 * 1024 * KB) == 8  # 100 × 32 MB / 400 MB
    assert fewer_events(100, None, 64 * 1024 * KB) == 50  # nothing announced: half
    assert fewer_events(100, 10**12, 64 * 1024 * KB) == 1  # never none
    assert fewer_events(2, 65 * 1024 * KB, 64 * 1024 * KB) == 1  # always fewer than before
    assert fewer_events(7, 66 * 1024 * KB, 64 * 1024 * KB) == 3


def big_store(count: int) -> Store:
    store = Store()
    store.put_conversation(
        conversation_info(id=CID, sandbox_id="sb", title="big", created_at="2026-11-20T10:00:00Z")
    )
    store.append_events(CID, events(count), normalize=False)
    return store


async def test_every_event_comes_in_pages_that_fit(make_server, caplog):
    store = big_store(8)  # 17 events, ~800 KB: far over the client's 250 KB at a page of 100
    server = make_server(store)
    caplog.set_level(logging.INFO, logger="tui.client")
    async with OpenHandsClient(server.base_url, max_body=250 * KB) as client:
        seen = [event.id async for event in client.iter_events(CID)]
        page = await client.search_events(CID, limit=100)
        raw, _ = await client.search_events_raw(CID, limit=100)
    assert seen == [e["id"] for e in events(8)]  # all, in order, once
    assert 1 <= len(page.items) < 17 and page.next_page_id is not None
    assert [e["id"] for e in raw] == [e.id for e in page.items]
    said = [r.getMessage() for r in caplog.records if "too large to read" in r.getMessage()]
    assert said and said[0].startswith("a page of 100 events was too large to read (")
    store.close()


async def test_one_event_over_the_bound_is_the_error_it_is(make_server):
    store = big_store(1)
    server = make_server(store)
    async with OpenHandsClient(server.base_url, max_body=50 * KB) as client:
        first = await client.search_events(CID, limit=2)  # the message and the action fit
        with pytest.raises(ResponseTooLarge, match="too large to read"):
            await client.search_events(CID, limit=5, page_id=first.next_page_id)
    assert [e.id for e in first.items] == [e["id"] for e in events(1)[:2]]
    store.close()
