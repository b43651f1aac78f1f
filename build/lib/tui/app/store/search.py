"""Find in a conversation: what a query matches, and where in a line (no Textual here).

A query is plain text or a regular expression, case-insensitive unless asked. It is matched
against each row's summary and the capped words the row keeps (``EventRow.text``), so
finding needs no extra requests once the rows are loaded. Spans are for highlighting and
are computed only for the few lines on screen. :class:`Hits` counts a query's hits in one
view and words where the cursor is among them ("hit 3 of 31").
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from tui.app.store.rows import EventRow

#: Spans highlighted in one line at most (a one-letter query must not build huge lists).
MAX_SPANS = 50


class FindError(ValueError):
    """The query cannot be used (an invalid regular expression)."""


@dataclass(frozen=True)
class FindQuery:
    pattern: str
    regex: bool = False
    case: bool = False

    def describe(self) -> str:
        flags = [name for name, on in (("regex", self.regex), ("case", self.case)) if on]
        return repr(self.pattern) + (f" ({', '.join(flags)})" if flags else "")


class Finder:
    """A compiled query: ``matches(row)`` for scanning, ``spans(text)`` for highlighting."""

    def __init__(self, query: FindQuery) -> None:
        if not query.pattern:
            raise FindError("nothing to find")
        self.query = query
        source = query.pattern if query.regex else re.escape(query.pattern)
        try:
            self.pattern = re.compile(source, 0 if query.case else re.IGNORECASE)
        except re.error as exc:
            raise FindError(f"not a valid regular expression: {exc}") from None
        if self.pattern.search("") is not None:
            raise FindError("the expression matches empty text: it would match every event")

    def matches(self, row: EventRow) -> bool:
        return bool(
            self.pattern.search(row.summary) or (row.text and self.pattern.search(row.text))
        )

    def spans(self, text: str) -> list[tuple[int, int]]:
        out = []
        for match in self.pattern.finditer(text):
            if match.end() > match.start():
                out.append((match.start(), match.end()))
                if len(out) >= MAX_SPANS:
                    break
        return out


def _hits(n: int) -> str:
    return f"{n:,} hit" + ("" if n == 1 else "s")


@dataclass
class Hits:
    """Where one query's hits are in one view (rows in list order), as far as counted.

    Rows are checked from the first on; ``scanned`` says how far, ``complete`` that the
    whole view was checked. Until then the count is a floor ("at least 12")."""

    indices: list[int] = field(default_factory=list)  # rows that match, ascending
    scanned: int = 0  # rows [0, scanned) were checked
    complete: bool = False

    def add(self, index: int) -> None:
        self.indices.append(index)

    def rank(self, cursor: int) -> int | None:
        """The cursor's hit number (1-based), if its row was checked and matches."""
        if cursor >= self.scanned:
            return None
        at = bisect_left(self.indices, cursor)
        return at + 1 if at < len(self.indices) and self.indices[at] == cursor else None

    def describe(self, cursor: int | None, *, wrapped: bool = False) -> str:
        """What the find bar says: "hit 3 of 31", "hit 3 of at least 12 (counting…)",
        "31 hits" (the cursor is between hits), "no hits"."""
        n = len(self.indices)
        if self.complete and not n:
            return "no hits"
        rank = self.rank(cursor) if cursor is not None else None
        counting = "" if self.complete else " (counting…)"
        if rank is not None:
            total = f"{n:,}" if self.complete else f"at least {n:,}"
            text = f"hit {rank:,} of {total}{counting}"
        elif self.complete:
            text = f"{_hits(n)} · n next, N previous"
        else:
            text = f"{_hits(n)} so far (counting…)"
        return text + (" · wrapped" if wrapped else "")
