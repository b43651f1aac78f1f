"""The tree pane's outline, worked out in slices: same answer as at once, snapshot-safe."""

from __future__ import annotations

import asyncio

from tests.helpers.app_helpers import settled
from tui.app.store.rows import EventRow
from tui.app.store.tree_outline import MainBranch, Run, SideBranch, TreeWalk, finish, slices
from tui.models import EventTree


def _rows(spec: list[tuple[str, str | None, str]]) -> list[EventRow]:
    return [
        EventRow(i, f"2026-01-01T00:00:{n:02d}", "agent", kind, f"event {i}", parent_id=p)
        for n, (i, p, kind) in enumerate(spec)
    ]


def _forked(n: int) -> list[EventRow]:
    """A chain of ``n`` actions; at event 10 a side branch of 3, and a state update on 20."""
    spec = [(f"e{i}", f"e{i - 1}" if i else "__root__", "ActionEvent") for i in range(n)]
    spec += [
        ("s0", "e10", "MessageEvent"),
        ("s1", "s0", "ActionEvent"),
        ("s2", "s1", "ActionEvent"),
    ]
    spec += [("u0", "e20", "ConversationStateUpdateEvent")]
    return _rows(spec)


def _walk(rows: list[EventRow]) -> TreeWalk:
    return TreeWalk(EventTree((r.id, r.parent_id) for r in rows), rows)


def test_outline_in_slices_equals_outline_at_once():
    rows = _forked(5_000)
    walk = _walk(rows)
    at_once = finish(walk.outline())
    sliced, busy = asyncio.run(slices(_walk(rows).outline(), budget_s=0.0001))
    assert sliced == at_once and busy > 0
    (line,) = at_once.lines
    assert [type(item) for item in line] == [Run, SideBranch, MainBranch, Run]
    # the newest child (s0, logged after the chain) carries the line on; the older chain
    # from e11 is the side branch, its state update on e20 counted in but not a fork
    assert line[1] == SideBranch(11, 4_990) and line[2] == MainBranch(5_000)
    assert line[3].positions == (5_000, 5_001, 5_002)
    assert at_once.forks == frozenset({10})
    (side_run, *_rest) = finish(walk.line(11))
    assert 5_003 in side_run.positions  # the attachment is folded into the run it hangs on


def test_events_that_arrive_during_a_walk_are_left_for_the_next():
    rows = _forked(2_000)
    tree = EventTree((r.id, r.parent_id) for r in rows)
    walk = TreeWalk(tree, rows)
    steps = walk.outline()
    next(steps)  # the walk is under way (it yields every few hundred events)
    late = _rows([("late", "e5", "MessageEvent")])[0]
    rows.append(late)
    tree.extend([(late.id, late.parent_id)])  # a new fork at e5, after the snapshot
    outline = finish(steps)
    assert outline.size == 2_004 and outline.forks == frozenset({10})
    assert finish(TreeWalk(tree, rows).outline()).forks == frozenset({5, 10})


async def test_a_run_that_only_grew_is_updated_in_place_not_rebuilt():
    from textual.app import App

    from tui.app.widgets.conversation.event_tree import EventNode, EventTreeView

    class One(App):
        def compose(self):
            yield EventTreeView(id="tree")

    rows = _rows([(f"e{i}", f"e{i - 1}" if i else "__root__", "ActionEvent") for i in range(400)])
    tree = EventTree((r.id, r.parent_id) for r in rows)
    app = One()
    async with app.run_test() as pilot:
        view = app.query_one(EventTreeView)
        view.load(tree, rows, keep_state=True)
        (node,) = view.root.children
        node.expand()
        await settled(pilot)
        assert len(node.children) == 400
        late = _rows([(f"e{i}", f"e{i - 1}", "ActionEvent") for i in range(400, 430)])
        rows.extend(late)
        tree.extend((r.id, r.parent_id) for r in late)
        view.load(tree, rows, keep_state=True)
        assert view.root.children[0] is node and node.is_expanded  # the same node, still open
        assert [c.data for c in node.children[-2:]] == [EventNode(428), EventNode(429)]
        assert "430 events" in str(node.label) and view.shown_size == 430
        fork = _rows([("side", "e100", "MessageEvent")])  # a new branch: the pane is rebuilt
        rows.extend(fork)
        tree.extend((r.id, r.parent_id) for r in fork)
        view.load(tree, rows, keep_state=True)
        assert view.root.children[0] is not node and view.fork_count() == 1
