"""A fork with thousands of side branches: the outline lists a hundred and folds the rest
into one entry the pane opens a chunk at a time; siblings mixed with attachments are
sorted out with a set (the list made it quadratic). Speed: ``bench/hostile.py``."""

from __future__ import annotations

from textual.app import App

from tests.helpers.app_helpers import settled
from tui.app.store.rows import EventRow
from tui.app.store.tree_outline import (
    SIDES_SHOWN,
    MainBranch,
    MoreBranches,
    Run,
    SideBranch,
    TreeWalk,
    finish,
)
from tui.app.widgets.conversation.event_tree import EXPAND_CHUNK, Branch, EventTreeView
from tui.models import ROOT_PARENT, EventTree

STATE = "ConversationStateUpdateEvent"


def _fan(n: int, every_state: int = 0) -> list[EventRow]:
    """A parent with ``n`` children; every ``every_state``-th child a state update."""
    rows = [EventRow("p", "2026-01-01T00:00:00", "user", "MessageEvent", "the parent", ROOT_PARENT)]
    for i in range(n):
        kind = STATE if every_state and i % every_state == 1 else "MessageEvent"
        rows.append(EventRow(f"c{i}", "2026-01-01T00:00:01", "agent", kind, f"child {i}", "p"))
    return rows


def _walk(rows: list[EventRow]) -> TreeWalk:
    return TreeWalk(EventTree((r.id, r.parent_id) for r in rows), rows)


def test_a_wide_fork_lists_a_hundred_side_branches_and_folds_the_rest():
    rows = _fan(1_000)
    (line,) = finish(_walk(rows).outline()).lines
    kinds = [type(item) for item in line]
    assert kinds == [Run] + [SideBranch] * SIDES_SHOWN + [MoreBranches, MainBranch, Run]
    more = line[-3]
    assert more.count == 999 - SIDES_SHOWN and more.sides[more.offset] == 1 + SIDES_SHOWN
    assert line[-2] == MainBranch(1_000)  # the newest child carries the line on
    walk = _walk(rows)
    assert finish(walk.side_branches(more, 3)) == [SideBranch(p, 1) for p in (101, 102, 103)]


def test_attachments_among_many_siblings_fold_into_the_parents_run():
    rows = _fan(3_000, every_state=10)
    outline = finish(_walk(rows).outline())
    (line,) = outline.lines
    assert line[0] == Run((0, *range(2, 3_001, 10)))  # the parent and its 300 state updates
    sides = [item for item in line if isinstance(item, SideBranch)]
    more = next(item for item in line if isinstance(item, MoreBranches))
    assert len(sides) + more.count + 1 == 2_700 and outline.forks == frozenset({0})


async def test_the_pane_opens_folded_branches_a_chunk_at_a_time():
    class One(App):
        def compose(self):
            yield EventTreeView(id="tree")

    rows = _fan(2 * EXPAND_CHUNK + 300)
    tree = EventTree((r.id, r.parent_id) for r in rows)
    app = One()
    async with app.run_test() as pilot:
        view = app.query_one(EventTreeView)
        view.load(tree, rows)
        nodes = list(view.root.children)
        # the parent, the listed sides, the folded rest, the newest branch and its run
        assert len(nodes) == 1 + SIDES_SHOWN + 3  # bounded, however wide the fork
        folded = nodes[-3]
        assert isinstance(folded.data, MoreBranches)
        assert f"{2 * EXPAND_CHUNK + 299 - SIDES_SHOWN:,} more branches" in str(folded.label)
        view.focus()
        await settled(pilot)
        view.move_cursor(folded)
        await settled(pilot)
        await pilot.press("enter")
        await settled(pilot)
        nodes = list(view.root.children)
        assert len(nodes) == 1 + SIDES_SHOWN + EXPAND_CHUNK + 3
        assert nodes[-3] is folded and folded.data.offset == SIDES_SHOWN + EXPAND_CHUNK
        branches = [n.data.start for n in nodes if isinstance(n.data, Branch)]
        assert branches == list(range(1, 1 + SIDES_SHOWN + EXPAND_CHUNK)) + [len(rows) - 1]
        for _ in range(2):  # the rest, then nothing left to fold
            view.move_cursor(folded)
            await settled(pilot)
            await pilot.press("enter")
            await settled(pilot)
        assert not any(isinstance(n.data, MoreBranches) for n in view.root.children)
        # the parent, every older child as a branch, the newest one's branch and run
        assert len(view.root.children) == 1 + (len(rows) - 2) + 2
