"""One history, whichever way it arrived: stored history folded as a live view shows it.

A live view never has streaming deltas (the final message stands) or ``full_state``
snapshots as rows: they are the stream's transient frames. The real app server stores both
in its searchable history, so a conversation reopened there showed more rows than it did
while followed. The event store folds them away (``row_windows.PagedWindow``, counts kept
exact); ``V`` (or the palette's "raw history") shows everything the server stored, and
back (``v`` too, back to the view it was shown over). Raw or folded, the list, its title, the indexing note and the tree pane count the
same rows: the store's base window.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.filter_bar import FilterBar

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.row_windows import PagedWindow, RowWindow

RAW_ON = (
    "Raw history: every streaming delta and state snapshot the server stored "
    "(V folds them away again)."
)
RAW_OFF = "History folded as a live view shows it: streaming deltas and state snapshots left out."


class HistoryMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    events: ConversationEvents
    window: RowWindow
    query_window: PagedWindow

    def action_toggle_history(self) -> None:
        """Raw history on or off: the base index is walked anew, the filters kept."""
        raw = not self.events.raw
        keep = self.query_one(EventList).current  # the same event, in the other history
        self.events.set_raw(raw)
        self.query_one(EventTreeView).reset()
        # the filter bar's query: back from raw, the view it was shown over (steps or log)
        self.apply_query(replace(self.query_one(FilterBar).applied, raw=raw), keep=keep)
        self.index()
        self.notify(RAW_ON if raw else RAW_OFF, markup=False)
