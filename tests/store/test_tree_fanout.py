"""The tree index with wide fan-out and children that arrive before their parent.

However the events arrive (one batch, pages, one by one), the same log gives the same
tree; adopting waiting children costs once per parent (a sort per orphan made 100,000
siblings quadratic); sibling questions are answered without scanning the siblings.
Speed is measured by ``bench/hostile.py``, not here."""

from __future__ import annotations

import random

import pytest

from tui.models import ROOT_PARENT, EventTree


def build(pairs: list[tuple[str | None, str | None]], chunk: int | None) -> EventTree:
    if chunk is None:
        return EventTree(pairs)
    tree = EventTree()
    for start in range(0, len(pairs), chunk):
        tree.extend(pairs[start : start + chunk])
    return tree


def shape(tree: EventTree) -> tuple:
    return (
        tree.parent,
        tree.roots,
        [list(tree.child_list(p)) for p in range(len(tree))],
        sorted(tree.broken),
    )


def random_log(rng: random.Random, n: int) -> list[tuple[str | None, str | None]]:
    """Events naming parents before or after them (never a cycle: parent index < own)."""
    order = list(range(n))
    rng.shuffle(order)  # log position → node; parents are nodes with a smaller node number
    pairs: list[tuple[str | None, str | None]] = []
    for node in order:
        if node == 0 or rng.random() < 0.05:
            parent = ROOT_PARENT
        elif rng.random() < 0.05:
            parent = "never-seen"
        else:
            parent = f"n{rng.randrange(node)}"
        pairs.append((f"n{node}", parent))
    return pairs


@pytest.mark.parametrize("seed", range(8))
def test_the_same_log_gives_the_same_tree_however_it_arrives(seed):
    pairs = random_log(random.Random(seed), 300)
    whole = shape(build(pairs, None))
    for chunk in (1, 7, 100):
        assert shape(build(pairs, chunk)) == whole, chunk


def test_children_arriving_before_their_parent_are_adopted_in_log_order():
    n = 2_000
    pairs = [(f"c{i}", "p") for i in range(n)] + [("p", ROOT_PARENT)]
    for chunk in (1, 50, None):
        tree = build(pairs, chunk)
        assert tree.roots == [n]
        assert list(tree.child_list(n)) == list(range(n))
        assert tree.parent[:n] == [n] * n
    tree = build(pairs, 1)
    tree.extend([("late", "p")])  # a child after the parent: appended, still in log order
    assert list(tree.child_list(n))[-1] == n + 1 and tree.child_count(n) == n + 1


def test_sibling_questions_need_no_scan():
    pairs = [("p", ROOT_PARENT)] + [(f"c{i}", "p") for i in range(10)] + [("x", "c3")]
    tree = EventTree(pairs)
    kids = list(tree.child_list(0))
    assert [tree.sibling_index(k) for k in kids] == list(range(10))
    assert tree.next_sibling(kids[3]) == kids[4] and tree.previous_sibling(kids[3]) == kids[2]
    assert tree.next_sibling(kids[-1]) is None and tree.previous_sibling(kids[0]) is None
    assert tree.next_sibling(0) is None and tree.sibling_index(0) == 0
    assert tree.child_count(0) == 10 and tree.child_count(0, limit=5) == 4
    assert list(tree.children_below(0, 5)) == [1, 2, 3, 4]
    assert list(tree.children_below(0, 1_000)) == kids
    # adopted orphans get their index too
    late = EventTree()
    late.extend([("a", "p"), ("b", "p")])
    late.extend([("p", ROOT_PARENT), ("c", "p")])
    assert [late.sibling_index(i) for i in (0, 1, 3)] == [0, 1, 2]
    assert late.next_sibling(1) == 3


def test_cycles_are_still_broken_when_the_closing_parent_arrives_late():
    tree = EventTree()
    tree.extend([("a", "b")])
    tree.extend([("b", "a")])  # b's parent a waits below b: linking would close a loop
    assert len(tree.broken) == 1 and tree.roots
    for pos in range(len(tree)):
        assert len(tree.path_to(pos)) <= 2
