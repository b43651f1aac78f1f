"""The tree cut back and extended again equals the tree built anew (issue 32, N1).

A live event placed before the newest rows (the history sorted by time) moves them down
one position; the store cuts the tree back to where it landed and extends it with the rows
from there (``EventTree.truncate``), in time proportional to them, instead of building the
whole tree again on every such batch. Where an earlier event hangs under a moved one (an
orphan adopted), the cut refuses and the tree is built anew.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.models import EventTree

SETTINGS = settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


def state(tree: EventTree) -> tuple[Any, ...]:
    kids = {p: list(tree.child_list(p)) for p in range(len(tree)) if tree.child_list(p)}
    index = {i: tree.index_of(i) for i in tree.ids if i is not None}
    slots = [tree.sibling_index(p) for p in range(len(tree))]
    return list(tree.ids), list(tree.parent), kids, list(tree.roots), slots, tree.broken, index


@st.composite
def pairs(draw: Any) -> list[tuple[str | None, str | None]]:
    """Events naming a parent before them (most), none (the one before), one not seen (yet:
    an orphan, maybe adopted later), "__root__", themselves; a reused id now and then."""
    out: list[tuple[str | None, str | None]] = []
    for n in range(draw(st.integers(1, 30))):
        ids = [i for i, _ in out if i is not None]
        event_id = (
            draw(st.sampled_from([*ids, None])) if ids and draw(st.integers(0, 9)) == 0 else f"e{n}"
        )
        choice = draw(st.integers(0, 9))
        if choice < 5 and ids:
            parent = draw(st.sampled_from(ids))
        elif choice == 5:
            parent = None
        elif choice == 6:
            parent = f"e{draw(st.integers(0, 40))}"  # perhaps later, perhaps never
        elif choice == 7:
            parent = "__root__"
        else:
            parent = event_id
        out.append((event_id, parent))
    return out


def built(*batches: list[tuple[str | None, str | None]]) -> EventTree:
    tree = EventTree(batches[0])
    for batch in batches[1:]:
        tree.extend(batch)
    return tree


@SETTINGS
@given(log=pairs(), data=st.data())
def test_cut_and_extended_equals_built_anew(log, data) -> None:
    """The same as the tree built from the same batches without the rows that moved, then
    extended with them in their new order (a batch decides which parents are known)."""
    split = data.draw(st.integers(0, len(log)), label="first batch")
    tree = built(log[:split], log[split:])
    moved = data.draw(st.integers(0, len(log)), label="moved from")
    new = data.draw(pairs(), label="placed")[: data.draw(st.integers(1, 3), label="how many")]
    after = log[:moved] + new + log[moved:]
    if tree.truncate(moved):
        tree.extend(after[moved:])
        kept = [log[: min(split, moved)], log[split:moved]] if moved > split else [log[:moved]]
        assert state(tree) == state(built(*kept, after[moved:]))
        assert tree.cuts == (1 if moved < len(log) else 0)
    else:  # an earlier event hangs under a moved one: untouched, built anew by the store
        assert state(tree) == state(built(log[:split], log[split:]))


def test_a_chain_cut_near_its_end_reads_only_what_moved() -> None:
    log = [(f"e{n}", f"e{n - 1}" if n else None) for n in range(100_000)]
    tree = EventTree(log)
    assert tree.truncate(99_998)
    tree.extend([("stats", "e99997"), ("e99998", "e99997"), ("e99999", "e99998")])
    assert len(tree) == 100_001 and tree.child_list(99_997) == [99_998, 99_999]
    assert tree.index_of("e99999") == 100_000


def test_an_adopted_orphan_refuses_the_cut() -> None:
    tree = EventTree([("a", None), ("b", "late"), ("late", "a")])  # b waits for "late"
    assert tree.parent[1] == 2
    assert not tree.truncate(2) and len(tree) == 3 and tree.cuts == 0
