"""The tree pane while a fast live stream runs (issue 18): its footer count changes with
its growth (at most every ``TREE_GROW_S``), not with every batch — the whole pane was
redrawn per 50 ms batch for a figure nobody can read — and it ends current."""

from __future__ import annotations

import time

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import SIZE, make_app, tree_ready, wait_for
from tests.perf.test_live_pace import _chain
from tui.app.screens.conversation.following import FAST_BATCH
from tui.app.widgets.conversation.event_tree import EventTreeView


async def test_the_tree_footer_waits_for_the_panes_growth_and_ends_current(live_server):
    server, names = live_server()
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, names["live"])
        tree = screen.query_one(EventTreeView)
        await wait_for(lambda: tree_ready(screen), pilot=pilot)  # every event in the pane
        before = str(tree.border_subtitle)
        # a fast batch, the pane having grown a moment ago (put far ahead: no clock in this)
        screen._tree_grown_at = time.perf_counter() + 3600
        screen.apply_live(_chain(screen.events.base.head[-1].id, FAST_BATCH, "fast"))
        assert str(tree.border_subtitle) == before  # not redrawn for this batch
        total = len(screen.events.base)
        await wait_for(lambda: str(tree.border_subtitle) == f"{total:,} events", pilot=pilot)
        assert tree.shown_size == total
