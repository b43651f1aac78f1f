"""How fast live events reach the screen (issue 18): the stream's lists and the tree pane.

Lists: at most one per interval, counted from the previous list, so an event after a quiet
spell is handed over at once. The tree pane: with a slow stream it grows with each batch,
in the same call as the list; with a fast one (big batches) at most every
``TREE_GROW_S``, a timer catching up — never left behind.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import SIZE, make_app, tree_ready, wait_for
from tui.app.screens.conversation.following import FAST_BATCH
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.client import StreamEvent
from tui.client.stream_batches import batched
from tui.models.parse import parse_event

# --- lists -----------------------------------------------------------------------------------


async def test_an_item_after_a_quiet_spell_is_handed_over_at_once():
    """With an interval far longer than the test, the first item still comes out alone and
    at once; the next ones wait for the interval (or the source's end) and come together."""
    queue: asyncio.Queue[int | None] = asyncio.Queue()
    closed = asyncio.Event()

    async def source() -> AsyncIterator[int]:
        while (item := await queue.get()) is not None:
            yield item

    async def close() -> None:
        closed.set()

    lists: list[list[int]] = []

    async def consume() -> None:
        async for items in batched(source(), close, interval=3600):
            lists.append(items)

    task = asyncio.create_task(consume())
    queue.put_nowait(1)
    await wait_for(lambda: lists == [[1]])
    queue.put_nowait(2)
    queue.put_nowait(3)
    queue.put_nowait(None)  # the source ends: what is held is handed over
    await asyncio.wait_for(task, 5)
    assert lists == [[1], [2, 3]]
    assert closed.is_set()


async def test_lists_are_capped_by_count_whatever_the_interval():
    async def source() -> AsyncIterator[int]:
        for item in range(7):
            yield item

    async def close() -> None:
        pass

    lists = [items async for items in batched(source(), close, interval=3600, max_items=3)]
    assert [i for items in lists for i in items] == list(range(7))
    assert all(len(items) <= 3 for items in lists)


# --- the tree pane ---------------------------------------------------------------------------


def _chain(after: str | None, n: int, tag: str) -> list[StreamEvent]:
    """``n`` agent messages, each the child of the one before (a live run's shape)."""
    items, parent = [], after
    for i in range(n):
        event = parse_event(
            {
                "id": f"{tag}-{i}",
                "timestamp": f"2030-01-01T00:00:{i // 1000:02d}.{i % 1000:03d}000",
                "source": "agent",
                "parent_id": parent,
                "kind": "MessageEvent",
                "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
            }
        )
        items.append(StreamEvent(event))
        parent = event.id
    return items


async def test_a_fast_streams_rows_join_the_tree_pane_soon_after(live_server):
    server, names = live_server()
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, names["live"])
        tree = screen.query_one(EventTreeView)
        await wait_for(lambda: tree_ready(screen), pilot=pilot)  # every event in the pane
        last = screen.events.base.head[-1].id

        # a slow stream's small batch joins the pane in the same call as the list
        small = _chain(last, 3, "slow")
        screen.apply_live(small)
        assert tree.shown_size == len(screen.events.base)

        # a fast stream's big batch, the pane having grown a moment ago: it waits for the
        # timer (the moment is put far ahead so this does not depend on the clock)
        screen._tree_grown_at = time.perf_counter() + 3600
        screen.apply_live(_chain(small[-1].id, FAST_BATCH, "fast"))
        total = len(screen.events.base)
        assert screen.window.events == total  # the list took them at once (its steps)
        assert tree.shown_size < total
        await wait_for(lambda: tree.shown_size == total, pilot=pilot)
