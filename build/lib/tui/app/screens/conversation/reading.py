"""Reading a run: the steps view, the event log one key away, and the cursor kept on the
same event whichever view shows it.

The steps view (how a conversation opens) shows an action and its result as one row and
folds plumbing under the step it follows (``step_rows.py``); ``→`` shows what folded under
the step at the cursor as rows under it, ``←`` folds it back. ``v`` switches to the event
log (every event a row) and back, ``h`` folds plumbing or shows it, ``V`` shows the raw
history (``history.py``). Each switch keeps the cursor on the event it was on: the new
view's row that holds it (``row_locate.py``), walking the new view's pages until it is
loaded (a worker: keys stay live, and a key that moves the cursor meanwhile wins).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from tui.app.store.row_locate import locate
from tui.app.store.row_windows import EventQuery, PagedWindow
from tui.app.store.step_rows import folded_count, step_of
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.filter_bar import FilterBar

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.row_windows import RowWindow
    from tui.app.store.rows import EventRow

#: The view a conversation opens in: steps, plumbing folded.
READING = EventQuery(steps=True, hide_plumbing=True)

STEPS_ON = "Steps: an action and its result on one row, plumbing folded (v: every event)."
STEPS_OFF = "Event log: every event a row (v: steps)."
PLUMBING_ON = (
    "Plumbing folded: state updates, LLM logs, tokens and hooks that passed are counted on "
    "the row they follow (h shows them)."
)
PLUMBING_OFF = "Plumbing shown: every state update, LLM log, token event and hook is a row."
NOTHING_FOLDS = "Nothing folds in this view: v shows steps, h folds plumbing."


class ReadingMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    events: ConversationEvents
    window: RowWindow
    query_window: PagedWindow
    start_cursor: int
    locate_status = ""  # what the list's corner says while a switch finds its event

    def current_row(self) -> EventRow | None:
        return self.query_one(EventList).current

    def action_toggle_view(self) -> None:
        """``v``: the steps view or the event log, on the same event (from the raw
        history: back to the view it was shown over)."""
        bar = self.query_one(FilterBar)
        query = bar.applied
        if self.events.raw:
            self.action_toggle_history()
            return
        query = query.in_view("events" if query.steps else "steps")
        self.switch_query(query)
        self.notify(STEPS_ON if query.steps else STEPS_OFF, markup=False)

    def action_toggle_plumbing(self) -> None:
        """``h``: fold plumbing (state updates, LLM logs, tokens, hooks that passed) under
        the rows it follows, or show it again, on the same event."""
        query = self.query_one(FilterBar).applied
        hide = not query.hide_plumbing
        self.switch_query(query.with_plumbing(hide))
        self.notify(PLUMBING_ON if hide else PLUMBING_OFF, markup=False)

    def action_open_step(self) -> None:
        """``→``: the events folded under the step at the cursor, as rows under it."""
        event_list = self.query_one(EventList)
        window = self.window
        if not isinstance(window, PagedWindow) or window.fold is None:
            self.notify(NOTHING_FOLDS, markup=False)
            return
        if not folded_count(step_of(event_list.current)):
            self.notify("Nothing is folded under this row.", markup=False)
            return
        shown = window.open_step(event_list.cursor)
        if shown:
            event_list.rows_changed()
            event_list.reveal(event_list.cursor, event_list.cursor + shown)
            self.update_list_title()

    def action_close_step(self) -> None:
        """``←``: fold them back (from the step, or from a row under it)."""
        event_list = self.query_one(EventList)
        window = self.window
        if not isinstance(window, PagedWindow):
            return
        index = window.close_step(event_list.cursor)
        if index is not None:
            event_list.rows_changed()
            event_list.cursor = index
            self.update_list_title()

    def switch_query(self, query: EventQuery) -> None:
        """Show ``query`` with the cursor on the event it is on now."""
        self.query_one(FilterBar).set_query(query)
        self.apply_query(query, keep=self.current_row())

    def place_cursor(self, window: PagedWindow, keep: EventRow | None) -> bool:
        """Before ``window`` is shown: start its cursor on the row holding ``keep`` if it
        is loaded (True); else (False) :meth:`cursor_to` walks to it once it is shown."""
        if keep is None:
            return True
        found = locate(window, keep.id, keep.timestamp)
        self.start_cursor = found or 0
        return found is not None

    @work(exclusive=True, group="locate")
    async def cursor_to(self, target: EventRow) -> None:
        """Move the cursor to the row holding ``target``, loading the view's pages until
        its place is loaded (the first key that moves the cursor meanwhile stops it)."""
        event_list = self.query_one(EventList)
        start = event_list.cursor
        found = await self.walk_to(self.window, target, nearest=True, start=start)
        if found is not None and event_list.cursor == start:
            event_list.cursor = found

    async def walk_to(
        self, window: RowWindow, target: EventRow, *, nearest: bool, start: int | None = None
    ) -> int | None:
        """The index of the row holding ``target`` in ``window`` (``nearest``: or of the
        row just before its time), loading the view's pages from its head until its place
        is loaded; None if it is not there, another view is shown, or (``start``) a key
        moved the list's cursor from there meanwhile."""
        event_list = self.query_one(EventList)
        try:
            while True:
                found = locate(window, target.id, target.timestamp, nearest=nearest)
                if found is not None:
                    return found
                if not isinstance(window, PagedWindow) or window.complete:
                    return None
                loaded = len(window.head) + len(window.tail)
                self.locate_status = f"finding the event… {loaded:,} rows loaded"
                self.update_list_title()
                end = len(window.head) + 1
                if not await self.events.fill_range(window, end - 1, end):
                    return None
                if window is not self.window or start not in (None, event_list.cursor):
                    return None  # another view, or a key moved the cursor: that wins
                event_list.rows_changed()
        finally:
            self.locate_status = ""
            if not self.closing:
                self.update_list_title()


def list_title(window: PagedWindow) -> str:
    """``Steps · oldest first · 130 steps · 541 events``: the view, its filters, and what
    it counts, in its own words (rows shown under an open step are not counted)."""
    query = window.query
    known = window.total is not None
    shown = f"{len(window) - window.opened:,}" + ("" if known else "+")
    events = window.events if known else None
    if query.merges:
        counts = f"{shown} steps" + (f" · {events:,} events" if events is not None else "")
    elif window.fold is not None and events is not None:
        counts = f"{shown} of {events:,} events"
    else:
        counts = f"{shown} events"
    name = "Steps" if query.merges else "Events"
    return f"{name} · {query.describe()} · {counts}"
