"""Where an event of the index is in another view of the list (no Textual here).

The tree counts the index's rows (the base window: every event, oldest first); the list may
show a filter, the newest first, one branch or find's matches. A view's rows are loaded
lazily from its two ends, so an event's place in it is worked out first — its count among
the index's rows before it that the view's query keeps, from the other end when the newest
come first — and then confirmed by identity (id, time and kind: another event may reuse an
id) among the rows loaded there.
"""

from __future__ import annotations

from collections.abc import Sequence

from .row_windows import EventQuery, PagedWindow, RowWindow
from .rows import EventRow


def query_keeps(query: EventQuery, row: EventRow) -> bool:
    """Would the server's answer to ``query`` hold this row of the index? Its kind and time
    decide (times compared as text, as the services compare them)."""
    if query.kind is not None and row.kind != query.kind:
        return False
    if query.since is not None and row.timestamp < query.since:
        return False
    return query.until is None or row.timestamp < query.until


def estimated_index(window: PagedWindow, index: Sequence[EventRow], position: int) -> int:
    """Where ``index[position]`` should be in ``window``: its count among the rows before it
    that the window's query keeps (all of them for every event), from the far end for the
    newest first; within the window's rows."""
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
        found = window.find_copy(row.id, row.timestamp, row.kind)
        if found is None:
            return None
        rows, at = found
        return at if rows is window.head else len(window) - 1 - at
    return next((n for n, shown in enumerate(window.rows) if same_event(shown, row)), None)
