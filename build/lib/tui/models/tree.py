"""The conversation tree: who is whose parent, by the SDK's effective-parent rule.

Rule (facts §7): a non-null ``parent_id`` names the parent; ``"__root__"`` is an explicit
root; null at log index 0 is the root and null later means "the previous event in the log"
(legacy linear chains). Parents that never appear make their children roots (orphans),
and a ``parent_id`` cycle is broken at the edge that would close it. Everything here is
iterative and linear in the number of events, in any order they arrive (children before
their parent included): a 100,000-event chain and 100,000 siblings of one parent cost the
same. Sibling questions (how many children below a position, a node's neighbours) are
answered in O(1) or O(log k), never by scanning a parent's children.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

from .events import ROOT_PARENT

NO_PARENT = -1


class EventTree:
    """Parent/children index over events addressed by their log position (0-based).

    Feed it ``(id, parent_id)`` pairs in log order with :meth:`extend`; it can grow as live
    events arrive. Children lists are in log order.
    """

    __slots__ = (
        "_first",
        "_index",
        "_late",
        "_not_root",
        "_roots",
        "_slot",
        "_top",
        "_waiting",
        "broken",
        "children",
        "cuts",
        "ids",
        "parent",
    )

    def __init__(self, pairs: Iterable[tuple[str | None, str | None]] = ()) -> None:
        self.ids: list[str | None] = []
        self.parent: list[int] = []
        #: the children of positions that have two or more, in log order
        self.children: dict[int, list[int]] = {}
        #: each position's first child, or NO_PARENT: most events have one child, and a list
        #: per event (~64 bytes, ~90 with its dict entry) was a third of a 100,000-event tree
        self._first: list[int] = []
        # roots in log order; an orphan that finds its parent is struck out (``_not_root``)
        # rather than removed from the middle of the list, which would cost O(roots)
        self._roots: list[int] = []
        self._not_root: set[int] = set()
        #: each position's index in its parent's children list (0 for roots)
        self._slot: list[int] = []
        self._index: dict[str, int] = {}
        # orphans by the parent id they name, re-attached if that id shows up later
        self._waiting: dict[str, list[int]] = {}
        #: positions whose parent link was cut to break a cycle
        self.broken: list[int] = []
        # union-find over "the root of my tree": linking X under Y closes a cycle exactly when
        # Y's root is X (X is always a root when it gets its parent), found in near O(1)
        self._top: list[int] = []
        #: the newest position that became the parent of an earlier one (an orphan adopted,
        #: a parent named later in a batch): :meth:`truncate` cannot cut below it
        self._late = NO_PARENT
        #: how many times :meth:`truncate` cut positions away (a snapshot's positions
        #: from before a cut may name other events now)
        self.cuts = 0
        self.extend(pairs)

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def roots(self) -> list[int]:
        """Positions without a parent, in log order."""
        if self._not_root:
            struck = self._not_root
            self._roots = [r for r in self._roots if r not in struck]
            struck.clear()
        return self._roots

    def index_of(self, event_id: str) -> int | None:
        return self._index.get(event_id)

    def extend(self, pairs: Iterable[tuple[str | None, str | None]]) -> None:
        pairs = list(pairs)
        # one int object per position, shared by every list and dict that holds it
        positions = list(range(len(self.ids), len(self.ids) + len(pairs)))
        # Register ids first so a parent named later in the same batch still counts.
        for pos, (event_id, _) in zip(positions, pairs):
            self.ids.append(event_id)
            self.parent.append(NO_PARENT)
            self._top.append(pos)
            self._slot.append(0)
            self._first.append(NO_PARENT)
            if event_id is not None and event_id != ROOT_PARENT and event_id not in self._index:
                self._index[event_id] = pos
        for pos, (event_id, parent_id) in zip(positions, pairs):
            self._link(pos, self._wanted_parent(pos, parent_id))
            if event_id is not None and self._index.get(event_id) == pos:
                orphans = self._waiting.pop(event_id, None)
                if orphans:
                    self._adopt(orphans, pos)

    def _wanted_parent(self, pos: int, parent_id: str | None) -> int | str:
        if parent_id == ROOT_PARENT:
            return NO_PARENT
        if parent_id is None:
            return pos - 1 if pos > 0 else NO_PARENT
        found = self._index.get(parent_id)
        return parent_id if found is None else found

    def _link(self, pos: int, wanted: int | str) -> None:
        if isinstance(wanted, str):  # parent not seen (yet): an orphan root for now
            self._waiting.setdefault(wanted, []).append(pos)
            self._roots.append(pos)
            return
        if wanted == NO_PARENT:
            self._roots.append(pos)
            return
        top = self._root_of(wanted)
        if top == pos:  # ``wanted`` hangs below ``pos`` already: the link would close a cycle
            self.broken.append(pos)
            self._roots.append(pos)
            return
        self.parent[pos] = wanted
        self._top[pos] = top
        if wanted > pos:
            self._late = max(self._late, wanted)
        first = self._first[wanted]
        if first == NO_PARENT:  # its first child (slot 0)
            self._first[wanted] = pos
            return
        kids = self.children.get(wanted)
        if kids is None:
            self.children[wanted] = [first, pos]
            self._slot[pos] = 1
        else:
            self._slot[pos] = len(kids)
            kids.append(pos)

    def _adopt(self, orphans: list[int], parent: int) -> None:
        """Hang the orphans that named ``parent`` under it, now that it has arrived.

        They came in earlier batches, so they precede every child ``parent`` has so far
        (those are in this batch): the children list is rebuilt once, in log order, not
        sorted per orphan (which made 100,000 siblings arriving before their parent
        quadratic)."""
        adopted = []
        self._late = max(self._late, parent)
        for orphan in orphans:  # in log order: appended as they arrived
            top = self._root_of(parent)
            if top == orphan:
                self.broken.append(orphan)
                continue
            self._not_root.add(orphan)
            self.parent[orphan] = parent
            self._top[orphan] = top
            adopted.append(orphan)
        if not adopted:
            return
        kids = adopted + list(self.child_list(parent))
        self._first[parent] = kids[0]
        if len(kids) > 1:
            self.children[parent] = kids
        slot = self._slot
        for index, kid in enumerate(kids):
            slot[kid] = index

    def _root_of(self, node: int) -> int:
        """The root of ``node``'s tree (union-find with path compression)."""
        top = self._top
        root = node
        while top[root] != root:
            root = top[root]
        while top[node] != root:
            top[node], node = root, top[node]
        return root

    def truncate(self, size: int) -> bool:
        """Forget positions ``size`` onward (events that moved: a live event placed
        before them), in time proportional to them, so :meth:`extend` can add them again
        in their new order. False, changing nothing, where an earlier position hangs under
        one of them (an adopted orphan): then the tree is built anew."""
        count = len(self.ids)
        if size >= count:
            return True
        if self._late >= size:
            return False
        parent, children, first, index = self.parent, self.children, self._first, self._index
        for pos in range(count - 1, size - 1, -1):  # newest first: each its parent's last child
            above = parent[pos]
            if above != NO_PARENT:
                kids = children.get(above)
                if kids is None:
                    first[above] = NO_PARENT
                else:
                    if kids[-1] == pos:
                        kids.pop()
                    else:  # not its last child: one placed before it was forgotten already
                        kids.remove(pos)
                    if len(kids) == 1:
                        del children[above]
            event_id = self.ids[pos]
            if event_id is not None and index.get(event_id) == pos:
                del index[event_id]
        for name in ("ids", "parent", "_first", "_slot", "_top"):
            del getattr(self, name)[size:]
        roots = self._roots
        while roots and roots[-1] >= size:
            roots.pop()
        self._not_root = {r for r in self._not_root if r < size}
        for waiting_id, orphans in list(self._waiting.items()):
            kept = [o for o in orphans if o < size]
            if kept:
                self._waiting[waiting_id] = kept
            else:
                del self._waiting[waiting_id]
        self.broken = [b for b in self.broken if b < size]
        self.cuts += 1
        return True

    # --- queries -------------------------------------------------------------------------

    def child_list(self, pos: int) -> Sequence[int]:
        kids = self.children.get(pos)
        if kids is not None:
            return kids
        first = self._first[pos]
        return () if first == NO_PARENT else (first,)

    def child_count(self, pos: int, limit: int | None = None) -> int:
        """How many children ``pos`` has (only those at positions below ``limit``, if
        given): O(log k), children are in log order."""
        kids = self.child_list(pos)
        return len(kids) if limit is None else bisect_left(kids, limit)

    def children_below(self, pos: int, limit: int) -> Sequence[int]:
        """The children of ``pos`` at positions below ``limit`` (a snapshot's children)."""
        kids = self.child_list(pos)
        if not kids or kids[-1] < limit:
            return kids
        return kids[: bisect_left(kids, limit)]

    def sibling_index(self, pos: int) -> int:
        """``pos``'s index among its parent's children (0 for a root): O(1)."""
        return self._slot[pos] if self.parent[pos] != NO_PARENT else 0

    def next_sibling(self, pos: int) -> int | None:
        """The next child of ``pos``'s parent in log order, or None: O(1)."""
        parent = self.parent[pos]
        if parent == NO_PARENT:
            return None
        kids = self.child_list(parent)
        slot = self._slot[pos] + 1
        return kids[slot] if slot < len(kids) else None

    def previous_sibling(self, pos: int) -> int | None:
        """The previous child of ``pos``'s parent in log order, or None: O(1)."""
        parent = self.parent[pos]
        if parent == NO_PARENT:
            return None
        slot = self._slot[pos] - 1
        return self.child_list(parent)[slot] if slot >= 0 else None

    def branch_points(self) -> list[int]:
        """Positions with more than one child, in log order."""
        return sorted(p for p, kids in self.children.items() if len(kids) > 1)

    def path_to(self, pos: int) -> list[int]:
        """Root → ``pos`` inclusive."""
        out: list[int] = []
        parent = self.parent
        while pos != NO_PARENT:
            out.append(pos)
            pos = parent[pos]
        out.reverse()
        return out

    def leaf_of(self, pos: int) -> int:
        """Follow the newest child down to a leaf: the branch's current head."""
        children, first = self.children, self._first
        while True:
            kids = children.get(pos)
            if kids is not None:
                pos = kids[-1]
            elif first[pos] != NO_PARENT:
                pos = first[pos]
            else:
                return pos

    def branch_path(self, pos: int) -> list[int]:
        """Root → the leaf of the branch that ``pos`` is on."""
        return self.path_to(self.leaf_of(pos))
