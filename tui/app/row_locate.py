"""Where an event is in a view: the row that stands for it (no Textual here).

Switching views (steps ↔ event log, plumbing folded or shown) and choosing an event in the
tree keep the cursor on the same event. A steps view holds an event in the row of its step
(its own, its result, the plumbing folded under it), so the row is found by time: the rows
a window has loaded are in log order (the server sorts by timestamp), so a bisection finds
the rows around the event's time and a short scan the one that holds it. Nothing here
walks a whole log: rows not loaded yet are the caller's to load (None says so).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .row_windows import PagedWindow, RowWindow
from .rows import EventRow
from .step_rows import holds

#: Rows scanned either side of the bisection for the one holding the event (rows with one
#: timestamp, a step whose result came later than its own time).
SCAN = 64


def _at_or_before(rows: Sequence[EventRow], stamp: str, ascending: bool) -> int:
    """How many of ``rows`` (kept in ``ascending`` time order, or the reverse) are at or
    before ``stamp``."""
    size = len(rows)
    low, high = 0, size
    while low < high:
        mid = (low + high) // 2
        row = rows[mid] if ascending else rows[size - 1 - mid]
        if row.timestamp <= stamp:
            low = mid + 1
        else:
            high = mid
    return low


def _in(
    rows: Sequence[EventRow], event_id: str, stamp: str, ascending: bool
) -> tuple[int | None, int]:
    """``(the list index of the row holding the event or None, how many rows are at or
    before its time)``."""
    size = len(rows)
    count = _at_or_before(rows, stamp, ascending)

    def index(rank: int) -> int:
        return rank if ascending else size - 1 - rank

    for rank in range(count - 1, max(-1, count - 1 - SCAN), -1):
        if holds(rows[index(rank)], event_id):
            return index(rank), count
    for rank in range(count, min(size, count + SCAN)):
        if holds(rows[index(rank)], event_id):
            return index(rank), count
    return None, count


def locate(window: RowWindow, event_id: str | None, stamp: str) -> int | None:
    """The index of the row that holds the event (``event_id``, logged at ``stamp``) in
    ``window``; failing that, of the row just before its time where the loaded rows reach
    past it; None where its place is not loaded yet."""
    if event_id is None:
        return None
    if not isinstance(window, PagedWindow):
        found, count = _in(window.rows, event_id, stamp, True)
        return found if found is not None else (max(0, count - 1) if window.rows else None)
    ascending = not window.query.descending
    total = len(window)
    head, tail = window.head, window.tail
    # each side: its rows, their time order, the list index → row index, and whether the
    # log goes on past its newest row (the nearest row before the event is only right
    # where a loaded row comes after it)
    sides: list[tuple[list[EventRow], bool, Callable[[int], int], bool]] = [
        (head, ascending, lambda i: i, window.complete or not ascending),
        (tail, not ascending, lambda j: total - 1 - j, ascending),
    ]
    nearest = None
    for rows, in_order, to_row, newest_end in sides:
        if not rows:
            continue
        found, count = _in(rows, event_id, stamp, in_order)
        if found is not None:
            return to_row(found)
        if nearest is None and count and (count < len(rows) or newest_end):
            rank = count - 1
            nearest = to_row(rank if in_order else len(rows) - 1 - rank)
    return nearest
