"""Row windows: what the event list shows, filled lazily page by page.

The server's page ids are opaque, so a window can only be walked from its two ends: the
head by paging in the query's sort order, the tail by paging in the opposite order. With
the total known up front (a count request), the scrollbar is right at once and any row is
either loaded or a placeholder until a walk reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.app.store.duplicate_rows import DuplicateRow
from tui.app.store.event_query import FOLDED_COUNTED_KIND, EventQuery
from tui.app.store.live_placing import NEWEST, LivePlacing, time_place
from tui.app.store.rows import EventRow
from tui.app.store.step_rows import LIVE, FoldedRow, StepFold, StepRow, step_of

__all__ = ["FOLDED_COUNTED_KIND", "START", "EventQuery", "PagedWindow", "PathWindow", "RowWindow"]

START = ""  # page id meaning "not started yet"; None means "no more pages"


def _time(row: EventRow) -> str:
    return row.timestamp


@dataclass
class PagedWindow(LivePlacing):
    """The rows of one :class:`EventQuery`, loaded from both ends.

    A folding window (``query.folds``) leaves transient rows out as pages arrive; a shaped
    one (``query.shaped``) folds plumbing under its steps and joins results to their
    actions (``step_rows.py``); a kinds filter leaves the other kinds out. Its length
    stays exact without walking the log first: the server counts the query and the kinds
    that decide how many rows it has (``EventQuery.counted_kinds``, :meth:`set_count`);
    what those counts leave unknown (a ``full_state`` snapshot, a hook that failed, an
    agent error joining its action) is taken off or put back as a page brings it.
    ``raw_*`` count rows as the server does."""

    query: EventQuery
    total: int | None = None  # rows shown, once known
    head: list[EventRow] = field(default_factory=list)
    tail: list[EventRow] = field(default_factory=list)  # tail[0] is the last row
    head_page: str | None = START
    tail_page: str | None = START
    ids: set[str] = field(default_factory=set)
    raw_total: int | None = None  # the server's count, folded rows included
    raw_head: int = 0  # rows taken from head pages, folded ones included
    raw_tail: int = 0
    #: the server's counts of the kinds ``query.counted_kinds`` names (None: not known)
    counts: dict[str, int] | None = None
    seen: dict[str, int] = field(default_factory=dict)  # of those, how many pages brought
    folded: int = 0  # rows left out so far (transient, folded into steps, or filtered out)
    opened: int = 0  # rows shown under open steps (→): rows, but no steps
    copies: dict[str, int] = field(default_factory=dict)  # copies of an id seen more than once
    #: the last row each walk met, folded or not (where the other walk stops)
    head_end: EventRow | None = None
    tail_end: EventRow | None = None
    #: the store's walk state by side: the pages each walk has taken
    #: (``tui.client.paging.PageTrail``) and the lock that lets one page at a time in
    #: (``asyncio.Lock``) — kept here, not by the window's id, which a later window may
    #: reuse, and gone with the window
    trails: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    locks: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: live rows go in by timestamp (the server sorts its history so), else at the end
    #: (its history is its log): ``live_placing.py``
    by_time: bool = False
    placed_live: set[tuple[str, str, str]] = field(default_factory=set, repr=False)
    inserted_at: int | None = None

    def __post_init__(self) -> None:
        if self.raw_total is None:
            self.raw_total = self.total
        self._counted = self.query.counted_kinds()
        #: the steps view's fold (None: rows are shown as they come)
        self.fold = StepFold(self.query) if self.query.shaped else None

    def __len__(self) -> int:
        if self.total is None:
            return len(self.head)
        return self.total

    @property
    def complete(self) -> bool:
        return self.head_page is None or (
            self.raw_total is not None and self.raw_head + self.raw_tail >= self.raw_total
        )

    def set_count(self, raw_total: int, counted: int | dict[str, int] | None = None) -> None:
        """The server's count of the query's events, and of the kinds that decide its
        rows (``EventQuery.counted_kinds``; a number: the streaming deltas among them;
        None: not known yet, every event not loaded is taken for a row)."""
        if self.head_page is None:
            return  # walked to the end already: the rows are the count
        self.raw_total = max(raw_total, self.raw_head + self.raw_tail)
        if isinstance(counted, int):
            counted = {FOLDED_COUNTED_KIND: counted} if FOLDED_COUNTED_KIND in self._counted else {}
        self.counts = counted
        self._recount()

    def _recount(self) -> None:
        if self.raw_total is None:
            return
        unloaded = max(0, self.raw_total - self.raw_head - self.raw_tail)
        self.total = len(self.head) + len(self.tail) + self._middle(unloaded)

    def _middle(self, unloaded: int) -> int:
        """Rows among the ``unloaded`` events, from the counts: each counted kind's events
        not seen yet are rows or not as the query says; the uncounted are rows unless a
        kinds filter leaves them out."""
        counts, seen = self.counts, self.seen
        if counts is None:
            return unloaded
        rows = folded = 0
        for kind, is_row in self._counted.items():
            unseen = max(0, counts.get(kind, 0) - seen.get(kind, 0))
            if is_row:
                rows += unseen
            else:
                folded += unseen
        if self.query.kinds:
            return min(unloaded, rows)
        return max(0, unloaded - folded - rows) + rows

    @property
    def events(self) -> int | None:
        """The events this window's rows stand for (with what folded into them), once its
        length is known: what the event log shows of the same filters."""
        if self.total is None:
            return None
        fold = self.fold
        if fold is None:
            return self.total
        counts = self.counts or {}
        unseen = sum(
            max(0, counts.get(kind, 0) - self.seen.get(kind, 0))
            for kind, is_row in self._counted.items()
            if not is_row and kind != FOLDED_COUNTED_KIND
        )
        shown = self.total - self.opened  # a row shown under an open step is folded too
        return shown + fold.folded_in + (0 if self.complete else unseen)

    def row(self, index: int) -> EventRow | None:
        if 0 <= index < len(self.head):
            return self.head[index]
        if self.total is not None:
            back = self.total - 1 - index
            if 0 <= back < len(self.tail):
                return self.tail[back]
        return None

    def from_end(self, index: int) -> int | None:
        """How far from the end the row at ``index`` is, where the tail walk loaded it
        (its place then holds while the unloaded middle's estimate changes); else None."""
        if self.total is None or index < len(self.head):
            return None
        back = self.total - 1 - index
        return back if 0 <= back < len(self.tail) else None

    def open_step(self, index: int) -> int:
        """Show what folded under the step at ``index`` as rows under it (in log order);
        returns how many (0: it is no step, is open, or nothing folded under it)."""
        step = self.row(index)
        if not isinstance(step, StepRow) or step.opened or not step.folded:
            return 0
        under = [FoldedRow.of(row, step) for row in sorted(step.folded, key=_time)]
        count = len(under)
        self._place(index, under)
        step.opened = count
        self.opened += count
        return count

    def close_step(self, index: int) -> int | None:
        """Fold back the open step at ``index`` (or above the folded row there); returns
        the step's index (None: nothing open there)."""
        step = step_of(self.row(index))
        if step is None or not step.opened:
            return None
        while index > 0 and self.row(index) is not step:
            index -= 1
        count, step.opened = step.opened, 0
        self._place(index, [], count)
        self.opened -= count
        return index

    def _place(self, index: int, rows: list[EventRow], remove: int = 0) -> None:
        """Rows under the row at ``index`` (after ``remove`` rows that were there)."""
        fold = self.fold
        change = len(rows) - remove
        if index < len(self.head):
            self.head[index + 1 : index + 1 + remove] = rows
            if fold is not None:
                fold.shifted("head", change, index)
        else:
            at = (self.total or 0) - 1 - index  # the step's place in the tail (reversed)
            self.tail[at - remove : at] = rows[::-1]
            if fold is not None:
                fold.shifted("tail", change, at - remove)
        if self.total is not None:
            self.total += change

    def missing(self, start: int, end: int) -> bool:
        return any(self.row(i) is None for i in range(max(0, start), min(end, len(self))))

    @property
    def has_more(self) -> bool:
        """Rows exist past the end of what is known (total not known yet)."""
        return self.total is None and self.head_page is not None

    def side_for(self, start: int, end: int) -> str | None:
        """Which end to walk to fill rows [start, end): "head", "tail" or None."""
        if self.complete:
            return None
        if self.has_more and end >= len(self.head):
            return "head"
        if not self.missing(start, end):
            return None
        if self.total is None or self.tail_page is None:
            return "head"
        gap_head = start - len(self.head)
        gap_tail = (self.total - len(self.tail)) - end
        return "head" if gap_head <= gap_tail else "tail"

    def add_head(self, rows: list[EventRow], next_page: str | None) -> list[tuple[int, EventRow]]:
        """Add a page at the head; returns ``(index in the page, row)`` of each row taken
        (see :meth:`_add`)."""
        taken, met = self._add(self.head, rows, self.tail_end, "head")
        self.head_page = None if met else next_page
        self._meet()
        return taken

    def add_tail(self, rows: list[EventRow], next_page: str | None) -> list[tuple[int, EventRow]]:
        taken, met = self._add(self.tail, rows, self.head_end, "tail")
        self.tail_page = next_page
        if met:
            self.head_page = None
        self._meet()
        return taken

    def _add(
        self,
        target: list[EventRow],
        rows: list[EventRow],
        other_end: EventRow | None,
        side: str | None = None,
        before: object = NEWEST,
        hold_at: int | None = None,
    ) -> tuple[list[tuple[int, EventRow]], bool]:
        """Append ``rows`` to one side (folded ones left out, counted); True when this
        walk reached the other side's end.

        The two walks meet where this page reaches the last row the other walk met (same
        id and time): the rest of the page is already there. Any other id seen before is
        a second event carrying it: kept, as a :class:`DuplicateRow` (never dropped, or the
        list would stay one row short of the server's count). A row taken live meanwhile
        is already here: left (and not counted again). ``before``: for a live row, the row
        before it in the window (by default the newest); ``hold_at``: where a live result
        waits for its action while the window is walked (``StepFold.shape``)."""
        taken: list[tuple[int, EventRow]] = []
        query, counted, seen, shape = self.query, self._counted, self.seen, self.fold
        transient, kinds, new = query.folds, query.kinds, 0
        # live rows taken meanwhile (by time) may be stamped between the walks' rows: the
        # tail walk's rows go by their time too, and the head walk takes the live rows at
        # the tail's far end it passes (a steps view's join puts its rows in order)
        by_time = self.by_time and bool(self.placed_live) and shape is None
        back = "head" if query.descending else "tail"  # the walk back in time
        back_in_time = by_time and side == back
        passing = by_time and side is not None and side not in (back, LIVE)
        if shape is not None:  # where a live event's plumbing folds without a step
            newest = (self._newest() if before is NEWEST else before) if side == LIVE else None
            home = self._live_home() if side == LIVE else LIVE
            shape.live_last = None
        try:
            for index, row in enumerate(rows):
                row_id = row.id
                if row_id is not None:
                    if row_id in self.ids:
                        if (
                            other_end is not None
                            and row_id == other_end.id
                            and row.timestamp == other_end.timestamp
                        ):
                            return taken, True
                        placed = self.placed_live
                        if placed and side != LIVE and (row_id, row.timestamp, row.kind) in placed:
                            continue
                        copy = self.copies[row_id] = self.copies.get(row_id, 1) + 1
                        row = DuplicateRow(row, copy)
                    self.ids.add(row_id)
                new += 1
                if side == "head":
                    self.head_end = row
                elif side == "tail":
                    self.tail_end = row
                kind = row.kind
                if kind in counted:
                    seen[kind] = seen.get(kind, 0) + 1
                if transient and row.transient:
                    self.folded += 1
                    continue
                if shape is not None:
                    taken.append((index, row))  # cached: it may join a step
                    step = shape.shape(row, side or LIVE, target, newest, home, hold_at)
                    if step is None:
                        self.folded += 1
                    else:
                        target.append(step)
                elif kinds and kind not in kinds:
                    self.folded += 1
                elif back_in_time:  # past live rows stamped before it: in its place
                    target.insert(time_place(target, row.timestamp, True, older=True), row)
                    taken.append((index, row))
                else:
                    if passing:
                        self._pass_live(row.timestamp)
                    target.append(row)
                    taken.append((index, row))
            return taken, False
        finally:
            if side == "head":
                self.raw_head += new
            elif side == "tail":
                self.raw_tail += new

    def _newest(self) -> EventRow | None:
        """The newest row loaded next to where live events go (None: none is)."""
        if self.query.descending:
            return self.head[0] if self.head else None
        if self.complete:
            return self.head[-1] if self.head else None
        return self.tail[0] if self.tail else None

    def _live_home(self) -> str:
        """The walk that brings the row before a live event while none is loaded."""
        if self.complete:
            return LIVE
        return "head" if self.query.descending else "tail"

    def _meet(self) -> None:
        """When the two walks meet, join them into one complete head."""
        if not self.complete:
            self._recount()
            return
        fold = self.fold
        if fold is not None:  # what waits for the other walk is placed first
            if self.query.descending:
                fold.settle(self.tail, self.head, "head")
            else:
                fold.settle(self.head, self.tail, "tail")
        if self.tail:
            self.head.extend(reversed(self.tail))
            self.tail = []
        if fold is not None:
            fold.lead(self.head)
        self.joined_in_time()
        self.raw_total = self.raw_head + self.raw_tail
        self.total = len(self.head)
        self.head_page = self.tail_page = None

    def find_copy(
        self, row_id: str, timestamp: str, kind: str
    ) -> tuple[list[EventRow], int] | None:
        """Where the row of this event is (same id, timestamp and kind: another event reusing
        the id is not it), or None. Live copies concern recent events: the search starts at
        the newest end."""
        if row_id not in self.ids:
            return None
        if self.query.descending:
            places = ((self.head, range(len(self.head))),)
        else:
            places = (
                (self.tail, range(len(self.tail))),
                (self.head, range(len(self.head) - 1, -1, -1)),
            )
        for rows, order in places:
            for i in order:
                found = rows[i]
                if found.id == row_id and found.timestamp == timestamp and found.kind == kind:
                    return rows, i
        return None

    def replace(self, row: EventRow) -> EventRow | None:
        """Swap in a newer copy of a known row (e.g. one that gained its ``parent_id``);
        returns the copy it replaced (None: not here, or only another event with its id).
        A duplicate's new copy stays marked as one."""
        if row.id is None:
            return None
        found = self.find_copy(row.id, row.timestamp, row.kind)
        if found is None:
            return None
        rows, i = found
        old = rows[i]
        rows[i] = DuplicateRow(row, old.copy) if isinstance(old, DuplicateRow) else row
        return old


class PathWindow:
    """A fixed list of rows, e.g. the events on one branch (root → leaf)."""

    def __init__(self, rows: list[EventRow], label: str, what: str = "branch") -> None:
        self.rows = rows
        self.label = label
        self.what = what  # what the rows are, for the list's title: "branch", "find"…
        self.total = len(rows)

    def __len__(self) -> int:
        return len(self.rows)

    def row(self, index: int) -> EventRow | None:
        return self.rows[index] if 0 <= index < len(self.rows) else None

    complete = True
    has_more = False

    def side_for(self, start: int, end: int) -> str | None:
        return None


#: What the event list can show: a query's lazily filled rows, or a fixed list of them.
RowWindow = PagedWindow | PathWindow
