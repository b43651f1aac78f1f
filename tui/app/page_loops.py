"""Telling a server's page cursor that leads back from one that moves on, whatever the
page sizes.

A walk asks each page by the id the last one gave. A cursor can lead back in two ways:
the next id is one already followed (a cycle of ids), or the server ignores the id and sends
a page it sent before under a new next id. The second is only caught by ids when every page
has the same size (the same page then names the same next id); a first page sized to the
screen, or pages sized down after heavy events, change the next id with the size. So a page
is also a repeat when it starts as an earlier page of the same walk started: the same rows
(id and time) in the same order, as far as both go (up to :data:`COMPARED` rows).

Two events may carry one id (the window keeps both, ``duplicate_rows.py``), so one row is
not enough to call a page a repeat: it takes the same run of rows at the start of a page.
"""

from __future__ import annotations

from collections.abc import Sequence

from tui.client import PageLoopError

from .rows import EventRow

#: Rows of each page's start kept and compared: a run this long repeated exactly at two page
#: starts is a page sent twice, not two events that share an id.
COMPARED = 4


def _start(rows: Sequence[EventRow]) -> tuple[tuple[str | None, str], ...]:
    return tuple((row.id, row.timestamp) for row in rows[:COMPARED])


class PageTrail:
    """The pages one walk (one end of one window) has taken: their ids and how they began."""

    __slots__ = ("_ids", "_starts")

    def __init__(self) -> None:
        self._ids: set[str] = set()
        # a page's first row → how that page began (one per first row: a second page
        # starting with it that is not a repeat differs within COMPARED rows)
        self._starts: dict[tuple[str | None, str], tuple[tuple[str | None, str], ...]] = {}

    def check(self, asked: str | None, next_page: str | None, rows: Sequence[EventRow]) -> None:
        """Raise :class:`PageLoopError` if the page asked as ``asked`` (None: the first)
        leads back; otherwise remember it."""
        if next_page is not None and (next_page == asked or next_page in self._ids):
            raise PageLoopError(
                "The server's next page id repeats an earlier one; paging stopped.",
                page_id=next_page,
            )
        start = _start(rows)
        if start:
            earlier = self._starts.get(start[0])
            if earlier is not None:
                both = min(len(earlier), len(start))
                if earlier[:both] == start[:both]:
                    raise PageLoopError(
                        "The server sent a page it had sent before; paging stopped.",
                        page_id=asked,
                    )
            self._starts[start[0]] = start
        if asked is not None:
            self._ids.add(asked)
