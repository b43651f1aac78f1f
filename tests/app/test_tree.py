"""The effective-parent rule and the branch structure."""

from __future__ import annotations

import time

from tui.models import EventTree
from tui.models.tree import NO_PARENT


def test_linear_chain_with_explicit_parents():
    tree = EventTree([("a", None), ("b", "a"), ("c", "b")])
    assert tree.parent == [NO_PARENT, 0, 1]
    assert tree.roots == [0] and tree.branch_points() == []
    assert tree.path_to(2) == [0, 1, 2]


def test_legacy_nulls_chain_to_previous_event():
    tree = EventTree([("a", None), ("b", None), ("c", None)])
    assert tree.parent == [NO_PARENT, 0, 1] and tree.roots == [0]


def test_explicit_root_marker():
    tree = EventTree([("a", None), ("b", "__root__"), ("c", None)])
    assert tree.roots == [0, 1] and tree.parent[2] == 1


def test_branches_after_navigate():
    # a -> b -> c, then the user navigated back to b and continued: d, e under b
    tree = EventTree([("a", None), ("b", "a"), ("c", "b"), ("d", "b"), ("e", "d")])
    assert tree.branch_points() == [1]
    assert list(tree.child_list(1)) == [2, 3]
    assert tree.branch_path(2) == [0, 1, 2]
    assert tree.branch_path(3) == [0, 1, 3, 4]
    assert tree.leaf_of(0) == 4  # newest branch is the head


def test_orphans_become_roots_and_reattach_when_parent_arrives():
    tree = EventTree([("a", None), ("b", "missing")])
    assert tree.roots == [0, 1]
    tree.extend([("missing", "a")])
    assert tree.parent[1] == 2 and tree.roots == [0]


def test_forward_reference_in_one_batch():
    tree = EventTree([("a", None), ("b", "c"), ("c", "a")])
    assert tree.parent == [NO_PARENT, 2, 0]


def test_cycle_is_broken_not_looped():
    tree = EventTree([("a", "c"), ("b", "a"), ("c", "b")])
    assert len(tree.broken) == 1
    # every node reaches a root in finitely many steps
    for pos in range(3):
        assert len(tree.path_to(pos)) <= 3
    assert tree.roots


def test_self_parent_is_broken():
    tree = EventTree([("a", None), ("b", "b")])
    assert tree.broken == [1] and 1 in tree.roots


def test_duplicate_ids_keep_first():
    tree = EventTree([("a", None), ("a", None), ("b", "a")])
    assert tree.parent[2] == 0


def test_100k_events_fast(capsys):
    pairs = [(f"e{i}", f"e{i - 1}" if i else None) for i in range(100_000)]
    for fork in range(1000, 100_000, 10_000):  # a few branches
        pairs.append((f"f{fork}", f"e{fork}"))
    started = time.perf_counter()
    tree = EventTree(pairs)
    elapsed = time.perf_counter() - started
    with capsys.disabled():
        print(f"\ntree of {len(pairs):,} events built in {elapsed * 1000:.0f} ms")
    assert len(tree.branch_points()) == 10
    assert len(tree.path_to(99_999)) == 100_000
