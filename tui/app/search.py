"""Find in a conversation: what a query matches, and where in a line (no Textual here).

A query is plain text or a regular expression, case-insensitive unless asked. It is matched
against each row's summary and the capped words the row keeps (``EventRow.text``), so
finding needs no extra requests once the rows are loaded. Spans are for highlighting and
are computed only for the few lines on screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .rows import EventRow

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
