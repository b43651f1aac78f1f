"""Row windows: what the event list shows, filled lazily page by page.

The server's page ids are opaque, so a window can only be walked from its two ends: the
head by paging in the query's sort order, the tail by paging in the opposite order. With
the total known up front (a count request), the scrollbar is right at once and any row is
either loaded or a placeholder until a walk reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .duplicate_rows import DuplicateRow
from .rows import KIND_LABELS, EventRow

START = ""  # page id meaning "not started yet"; None means "no more pages"


@dataclass(frozen=True)
class EventQuery:
    """One event query: server-side filters and the sort order."""

    kind: str | None = None
    since: str | None = None  # timestamp__gte
    until: str | None = None  # timestamp__lt
    descending: bool = False

    @property
    def is_plain(self) -> bool:
        return self.kind is None and self.since is None and self.until is None

    def describe(self) -> str:
        parts = []  # in the list's words: the kind as its rows name it, times as typed
        if self.kind:
            parts.append(KIND_LABELS.get(self.kind, self.kind))
        if self.since:
            parts.append(f"from {self.since.replace('T', ' ')}")
        if self.until:
            parts.append(f"before {self.until.replace('T', ' ')}")
        parts.append("newest first" if self.descending else "oldest first")
        return " · ".join(parts)


@dataclass
class PagedWindow:
    """The rows of one :class:`EventQuery`, loaded from both ends."""

    query: EventQuery
    total: int | None = None
    head: list[EventRow] = field(default_factory=list)
    tail: list[EventRow] = field(default_factory=list)  # tail[0] is the last row
    head_page: str | None = START
    tail_page: str | None = START
    ids: set[str] = field(default_factory=set)
    copies: dict[str, int] = field(default_factory=dict)  # copies of an id seen more than once

    def __len__(self) -> int:
        if self.total is None:
            return len(self.head)
        return self.total

    @property
    def complete(self) -> bool:
        return self.head_page is None or (
            self.total is not None and len(self.head) + len(self.tail) >= self.total
        )

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
        taken, met = self._add(self.head, rows, self.tail[-1] if self.tail else None)
        self.head_page = None if met else next_page
        if self.head_page is None and self.total is None:
            self.total = len(self.head)
        self._meet()
        return taken

    def add_tail(self, rows: list[EventRow], next_page: str | None) -> list[tuple[int, EventRow]]:
        taken, met = self._add(self.tail, rows, self.head[-1] if self.head else None)
        self.tail_page = next_page
        if met:
            self.head_page = None
        self._meet()
        return taken

    def _add(
        self, target: list[EventRow], rows: list[EventRow], other_end: EventRow | None
    ) -> tuple[list[tuple[int, EventRow]], bool]:
        """Append ``rows`` to one side; True when this walk reached the other side's end.

        The two walks meet where this page reaches the other side's last row (same id and
        time): the rest of the page is already there. Any other id seen before is a
        second event carrying it: kept, as a :class:`DuplicateRow` (never dropped, or the
        list would stay one row short of the server's count)."""
        taken: list[tuple[int, EventRow]] = []
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
            target.append(row)
            taken.append((index, row))
        return taken, False

    def _meet(self) -> None:
        """When the two walks meet, join them into one complete head."""
        if self.total is None or not self.tail:
            return
        if self.head_page is None or len(self.head) + len(self.tail) >= self.total:
            self.head.extend(reversed(self.tail))
            self.tail = []
            self.total = len(self.head)
            self.head_page = self.tail_page = None

    def replace(self, row: EventRow) -> bool:
        """Swap in a newer copy of a known row (e.g. one that gained its ``parent_id``).

        Replacements concern recent events, so the search starts at the newest end."""
        if self.query.descending:
            places = ((self.head, range(len(self.head))),)
        else:
            places = (
                (self.tail, range(len(self.tail))),
                (self.head, range(len(self.head) - 1, -1, -1)),
            )
        for rows, order in places:
            for i in order:
                if rows[i].id == row.id:
                    rows[i] = row
                    return True
        return False

    def append_live(self, rows: list[EventRow]) -> int:
        """Rows that arrived live (newest); returns how many were new."""
        fresh = [r for r in rows if r.id is None or r.id not in self.ids]
        if not fresh:
            return 0
        for r in fresh:
            if r.id is not None:
                self.ids.add(r.id)
        if self.query.descending:
            # newest first: live rows go on top, shifting everything down
            self.head[0:0] = list(reversed(fresh))
            if self.total is not None:
                self.total += len(fresh)
            return len(fresh)
        if self.complete:
            self.head.extend(fresh)
            self.total = len(self.head)
        elif self.total is not None:
            self.tail[0:0] = list(reversed(fresh))
            self.total += len(fresh)
        return len(fresh)


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
