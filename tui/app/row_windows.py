"""Row windows: what the event list shows, filled lazily page by page.

The server's page ids are opaque, so a window can only be walked from its two ends: the
head by paging in the query's sort order, the tail by paging in the opposite order. With
the total known up front (a count request), the scrollbar is right at once and any row is
either loaded or a placeholder until a walk reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .duplicate_rows import DuplicateRow
from .rows import KIND_LABELS, EventRow

START = ""  # page id meaning "not started yet"; None means "no more pages"


@dataclass(frozen=True)
class EventQuery:
    """One event query: server-side filters, the sort order, and whether the history is
    shown raw (see :attr:`folds`)."""

    kind: str | None = None
    since: str | None = None  # timestamp__gte
    until: str | None = None  # timestamp__lt
    descending: bool = False
    raw: bool = False  # everything stored, streaming deltas and state snapshots included

    @property
    def is_plain(self) -> bool:
        return self.kind is None and self.since is None and self.until is None

    @property
    def folds(self) -> bool:
        """Transient events (streaming deltas, ``full_state`` snapshots) are left out, as
        a live view never has them (``screens/conversation/history.py`` says why); a filter
        for deltas shows them."""
        return not self.raw and self.kind != FOLDED_COUNTED_KIND

    def search(self, page_id: str | None, descending: bool, limit: int) -> dict[str, Any]:
        """One page of this query as the client's event searches take it (``descending``:
        the side read, which may be against the query's own order)."""
        return {
            "kind": self.kind,
            "timestamp_gte": self.since,
            "timestamp_lt": self.until,
            "sort_order": "TIMESTAMP_DESC" if descending else "TIMESTAMP",
            "page_id": page_id or None,
            "limit": limit,
        }

    def describe(self) -> str:
        parts = []  # in the list's words: the kind as its rows name it, times as typed
        if self.kind:
            parts.append(KIND_LABELS.get(self.kind, self.kind))
        if self.since:
            parts.append(f"from {self.since.replace('T', ' ')}")
        if self.until:
            parts.append(f"before {self.until.replace('T', ' ')}")
        parts.append("newest first" if self.descending else "oldest first")
        if self.raw:
            parts.append("raw history")
        return " · ".join(parts)


#: The folded kind the server can count up front (``full_state`` snapshots share their kind
#: with every other state update, so they are counted as pages bring them).
FOLDED_COUNTED_KIND = "StreamingDeltaEvent"


@dataclass
class PagedWindow:
    """The rows of one :class:`EventQuery`, loaded from both ends.

    A folding window (``query.folds``) leaves transient rows out as pages arrive. Its
    length stays exact without walking the log first: the server counts the query and the
    deltas in it (:meth:`set_count`), the deltas not yet seen are taken off the unloaded
    middle, and each ``full_state`` snapshot is taken off as a page brings it (they are
    few: one per run's end or pause). ``raw_*`` count rows as the server does."""

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
    counted: int = 0  # folded rows of the kind the server counted up front
    counted_seen: int = 0  # of those, how many pages have brought
    folded: int = 0  # rows left out so far
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

    def __post_init__(self) -> None:
        if self.raw_total is None:
            self.raw_total = self.total

    def __len__(self) -> int:
        if self.total is None:
            return len(self.head)
        return self.total

    @property
    def complete(self) -> bool:
        return self.head_page is None or (
            self.raw_total is not None and self.raw_head + self.raw_tail >= self.raw_total
        )

    def set_count(self, raw_total: int, counted: int = 0) -> None:
        """The server's count of the query's events, and of the folded kind among them."""
        if self.head_page is None:
            return  # walked to the end already: the rows are the count
        self.raw_total = max(raw_total, self.raw_head + self.raw_tail)
        self.counted = counted if self.query.folds else 0
        self._recount()

    def _recount(self) -> None:
        if self.raw_total is None:
            return
        unloaded = self.raw_total - self.raw_head - self.raw_tail
        unseen = max(0, self.counted - self.counted_seen)
        self.total = len(self.head) + len(self.tail) + max(0, unloaded - unseen)

    def row(self, index: int) -> EventRow | None:
        if 0 <= index < len(self.head):
            return self.head[index]
        if self.total is not None:
            back = self.total - 1 - index
            if 0 <= back < len(self.tail):
                return self.tail[back]
        return None

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
    ) -> tuple[list[tuple[int, EventRow]], bool]:
        """Append ``rows`` to one side (folded ones left out, counted); True when this
        walk reached the other side's end.

        The two walks meet where this page reaches the last row the other walk met (same
        id and time): the rest of the page is already there. Any other id seen before is
        a second event carrying it: kept, as a :class:`DuplicateRow` (never dropped, or the
        list would stay one row short of the server's count)."""
        taken: list[tuple[int, EventRow]] = []
        fold, new = self.query.folds, 0
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
                        copy = self.copies[row_id] = self.copies.get(row_id, 1) + 1
                        row = DuplicateRow(row, copy)
                    self.ids.add(row_id)
                new += 1
                if side == "head":
                    self.head_end = row
                elif side == "tail":
                    self.tail_end = row
                if fold and row.transient:
                    self.folded += 1
                    self.counted_seen += row.kind == FOLDED_COUNTED_KIND
                else:
                    target.append(row)
                    taken.append((index, row))
            return taken, False
        finally:
            if side == "head":
                self.raw_head += new
            elif side == "tail":
                self.raw_tail += new

    def _meet(self) -> None:
        """When the two walks meet, join them into one complete head."""
        if not self.complete:
            self._recount()
            return
        if self.tail:
            self.head.extend(reversed(self.tail))
            self.tail = []
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

    def append_live(self, rows: list[EventRow]) -> int:
        """Rows that arrived live (newest); returns how many were new (and shown)."""
        return len(self.take_live(rows))

    def take_live(self, rows: list[EventRow]) -> list[tuple[int, EventRow]]:
        """:meth:`append_live`, saying which rows it took: ``(index in rows, row)``, the row
        marked when it is another event reusing an id already here (``duplicate_rows.py``)."""
        if not self.complete and self.total is None and not self.query.descending:
            return []  # nowhere to put them yet: the head walk brings them in their place
        # a live copy of an event already here is replaced (the store does that), never a
        # second row; another event with a known id is one
        new = [
            (at, r)
            for at, r in enumerate(rows)
            if r.id is None or self.find_copy(r.id, r.timestamp, r.kind) is None
        ]
        if not new:
            return []
        fresh: list[EventRow] = []
        taken = self._add(fresh, [r for _, r in new], None)[0]
        count = len(new)
        if self.query.descending:
            # newest first: live rows go on top, shifting everything down
            self.head[0:0] = list(reversed(fresh))
            self.raw_head += count
        elif self.complete:
            self.head.extend(fresh)
            self.raw_head += count
        else:
            self.tail[0:0] = list(reversed(fresh))
            self.raw_tail += count
        if self.raw_total is not None:
            self.raw_total += count
        if self.total is not None:
            self.total += len(fresh)
        return [(new[index][0], row) for index, row in taken]


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
