"""Where an event is in a view of the list: the row that stands for it (no Textual here).

The tree counts the index's rows (the base window: every event, oldest first); the list may
show a filter, the newest first, one branch, find's matches or the steps view. A view's
rows are loaded lazily from its two ends. In a filtered view an event's place is worked
out first — its count among the index's rows before it that the view's query keeps, from
the other end when the newest come first — and then confirmed by identity (id, time and
kind: another event may reuse an id) among the rows loaded there. A steps view holds an
event in the row of its step (its own, its result, the plumbing folded under it), so that
row is found by time: loaded rows are in log order (the server sorts by timestamp), so a
bisection finds the rows around the event's time and a short scan the one that holds it.
Nothing here walks a whole log: rows not loaded yet are the caller's to load (None says so).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tui.app.store.row_windows import EventQuery, PagedWindow, RowWindow
from tui.app.store.rows import EventRow
from tui.app.store.step_rows import holds

#: Rows scanned either side of the bisection for the one holding the event (rows with one
#: timestamp, a step whose result came later than its own time).
SCAN = 64


def query_keeps(query: EventQuery, row: EventRow) -> bool:
    """Would the view of ``query`` hold this row of the index (as a row of its own, or
    folded into a step)? Its kind and time decide (times compared as text, as the services
    compare them)."""
    kinds = query.selected_kinds
    if kinds is not None and row.kind not in kinds:
        return False
    if query.since is not None and row.timestamp < query.since:
        return False
    return query.until is None or row.timestamp < query.until


def estimated_index(window: PagedWindow, index: Sequence[EventRow], position: int) -> int:
    """Where ``index[position]`` should be in ``window``: its count among the rows before it
    that the window's query keeps (all of them for every event), from the far end for the
    newest first; within the window's rows (not for steps: their rows merge events)."""
    query = window.query
    if query.is_plain:
        before = position
    else:
        before = sum(1 for row in index[:position] if query_keeps(query, row))
    at = len(window) - 1 - before if query.descending else before
    return max(0, min(at, len(window) - 1))


def same_event(a: EventRow, b: EventRow) -> bool:
    return a.id == b.id and a.timestamp == b.timestamp and a.kind == b.kind


def loaded_index(window: RowWindow, row: EventRow) -> int | None:
    """The row's index in ``window`` among the rows loaded so far, or None."""
    if isinstance(window, PagedWindow):
        if row.id is None:
            return None
        if window.fold is not None:  # steps or plumbing folded: the row that holds it
            return locate(window, row.id, row.timestamp, nearest=False)
        found = window.find_copy(row.id, row.timestamp, row.kind)
        if found is None:
            return None
        rows, at = found
        return at if rows is window.head else len(window) - 1 - at
    return next((n for n, shown in enumerate(window.rows) if same_event(shown, row)), None)


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


def locate(
    window: RowWindow, event_id: str | None, stamp: str, *, nearest: bool = True
) -> int | None:
    """The index of the row that holds the event (``event_id``, logged at ``stamp``) in
    ``window``; failing that (``nearest``), of the row just before its time where the
    loaded rows reach past it; None where its place is not loaded yet."""
    if event_id is None:
        return None
    if not isinstance(window, PagedWindow):
        found, count = _in(window.rows, event_id, stamp, True)
        if found is not None or not nearest:
            return found
        return max(0, count - 1) if window.rows else None
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
    closest = None
    for rows, in_order, to_row, newest_end in sides:
        if not rows:
            continue
        found, count = _in(rows, event_id, stamp, in_order)
        if found is not None:
            return to_row(found)
        if nearest and closest is None and count and (count < len(rows) or newest_end):
            rank = count - 1
            closest = to_row(rank if in_order else len(rows) - 1 - rank)
    return closest
