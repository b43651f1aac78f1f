"""The tree, the list and their footers tell the same count at every moment (issue 14, 5).

Live rows join the tree pane in the same call that adds them to the list when they only
continue its last run (``TreeWalk.grow``, checked here against the full walk); otherwise
the footer says how many of the conversation's events the pane shows so far.
"""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import SIZE, make_app, wait_for
from tests.store.test_tree_complete import _rows, reachable
from tui.app.store.rows import EventRow
from tui.app.store.tree_outline import TreeWalk, finish
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.models import EventTree

KINDS = ["ActionEvent", "ObservationEvent", "ConversationStateUpdateEvent", "MessageEvent"]
KINDS += ["LLMCompletionLogEvent", "HookExecutionEvent"]


def _live_like(rnd: random.Random, n: int) -> list[tuple[str | None, str | None, str]]:
    """A run as a live agent logs it: mostly a chain, side-notes on recent events, now and
    then a fork, a null parent, an orphan or a note stamped before its parent."""
    spec: list[tuple[str | None, str | None, str]] = [("e0", None, "SystemPromptEvent")]
    chain = ["e0"]
    for i in range(1, n):
        roll = rnd.random()
        kind = rnd.choice(KINDS)
        if roll < 0.03:
            parent = rnd.choice(chain)  # a fork
        elif roll < 0.05:
            parent = None
        elif roll < 0.06:
            parent = f"e{i + 1}"  # names the next event: an orphan until it comes
        elif roll < 0.25:
            parent = chain[max(0, len(chain) - rnd.randint(1, 3))]
        else:
            parent = chain[-1]
        spec.append((f"e{i}", parent, kind))
        if kind not in ("ConversationStateUpdateEvent", "LLMCompletionLogEvent"):
            chain.append(f"e{i}")
    return spec


@pytest.mark.parametrize("seed", range(30))
def test_growing_an_outline_gives_the_full_walks_answer(seed: int):
    rnd = random.Random(seed)
    rows = _rows(_live_like(rnd, rnd.randint(20, 250)))
    tree, shown = EventTree(), []
    outline, roots, grown = None, 0, 0
    at = 0
    while at < len(rows):
        batch = rows[at : at + rnd.randint(1, 6)]
        at += len(batch)
        shown.extend(batch)
        tree.extend((r.id, r.parent_id) for r in batch)
        walk = TreeWalk(tree, shown)
        full = finish(walk.outline())
        fast = walk.grow(outline, roots) if outline is not None else None
        if fast is not None:
            grown += 1
            assert fast == full
            assert [r.end for line in fast.lines for r in line if hasattr(r, "end")] == [
                r.end for line in full.lines for r in line if hasattr(r, "end")
            ]
        assert reachable(walk)[0] == set(range(len(shown)))
        outline, roots = full, sum(1 for r in tree.roots if r < full.size)
    assert grown > 0


def test_a_plain_chain_always_grows_in_place():
    rows = _rows([(f"c{i}", f"c{i - 1}" if i else None, "ActionEvent") for i in range(400)])
    tree = EventTree((r.id, r.parent_id) for r in rows[:100])
    walk = TreeWalk(tree, rows[:100])
    outline = finish(walk.outline())
    for end in range(101, 401, 7):
        tree.extend((r.id, r.parent_id) for r in rows[len(tree) : end])
        walk = TreeWalk(tree, rows[:end])
        outline = walk.grow(outline, 1)
        assert outline is not None and outline.size == end


# --- on screen, live ------------------------------------------------------------------------


def _count(text: str) -> int:
    """The events a list's title counts ("… · 14 steps · 46 events", "… · 46 events")."""
    return int(re.findall(r"([\d,]+) events\s*$", str(text))[0].replace(",", ""))


def _tree_footer_total(screen) -> int:
    """The conversation's count as the tree's footer gives it ("N events" or "N of M")."""
    footer = str(screen.query_one(EventTreeView).border_subtitle)
    found = re.match(r"([\d,]+)(?: of ([\d,]+))? events", footer)
    assert found, footer
    return int((found.group(2) or found.group(1)).replace(",", ""))


async def test_every_count_agrees_after_every_live_batch(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        seen: list[tuple[int, int, int, int]] = []
        apply = screen.apply_live

        def checked(batch):
            apply(batch)
            tree = screen.query_one(EventTreeView)
            title = screen.query_one(EventList).border_title
            seen.append(
                (
                    _count(title),
                    len(screen.events.base),
                    _tree_footer_total(screen),
                    tree.shown_size,
                )
            )

        screen.apply_live = checked
        await asyncio.to_thread(server.live.send_message_sync, cid, "say hi please")
        for _ in range(40):  # one step at a time: a batch each
            if not await asyncio.to_thread(server.live.step_sync, cid):
                break
            stored = server.store.count_events(cid)
            await wait_for(lambda n=stored: screen.window.events == n, pilot=pilot)
        stored = server.store.count_events(cid)
        await wait_for(lambda: screen.window.events == stored, pilot=pilot)
        tree = screen.query_one(EventTreeView)
        await wait_for(lambda: tree.shown_size == stored, pilot=pilot)
        assert len(seen) > 3
        for title, rows, footer, _shown in seen:
            assert title == rows == footer
        # the pane kept up with the list in the same call, batch after batch
        assert sum(1 for title, _r, _f, shown in seen if shown == title) >= len(seen) - 1


def _rows_of(screen) -> list[EventRow]:
    return [screen.window.row(i) for i in range(len(screen.window))]
