"""Two events with one id: both are rows, the later one marked as a duplicate.

A server's pages never repeat an event (a cursor that leads back is stopped as a loop), so
an id seen again while walking a window is a second event that carries the same id: it is
shown, not dropped. Dropping it left the list one row short of the server's count, with a
"… loading row N" placeholder that never filled. The duplicate's row says so, and its
full event is kept under its own key (:func:`row_key`), so the detail, copies and exports
show that copy and not the first one.
"""

from __future__ import annotations

from tui.app.store.rows import EventRow

#: What a duplicate's summary starts with in the list.
MARK = "duplicate id · "
#: What the detail pane says over a duplicate.
NOTE = "Duplicate id: an earlier event has the same id. This is the later one."


class KeyedRow(EventRow):
    """A row whose full event is kept under :attr:`key` (not only its id): a duplicate, or a
    reading view's step (``step_rows.py``) made over one. ``copy``: which event of its id
    it is (0: not a duplicate)."""

    __slots__ = ("copy", "key")


class DuplicateRow(KeyedRow):
    """The ``copy``-th event (2, 3, …) of a window whose id an earlier row already has."""

    __slots__ = ()

    def __init__(self, row: EventRow, copy: int) -> None:
        made = row.args()
        super().__init__(*made[:4], MARK + row.summary, *made[5:])
        self.copy = copy
        #: the cache key of this copy's full event (its id is shared with the first copy)
        self.key = f"{row.id}\x00{copy}"


def row_key(row: EventRow) -> str | None:
    """Where a row's full event is kept: its id, or a duplicate's own key."""
    return row.key if isinstance(row, KeyedRow) else row.id


def is_duplicate(row: EventRow | None) -> bool:
    return isinstance(row, KeyedRow) and row.copy > 1
