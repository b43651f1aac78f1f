"""The tree's cursor moves the list: the event under it is selected there, scrolled into
view and shown in the detail pane.

Moving the tree's cursor onto an event (or a run or a branch, by its first event) puts the
list's cursor on it in whatever view the list shows (``row_locate.py`` works out where),
loading the pages that hold it the way a jump does. An event the view leaves out (another
kind, another branch) is shown in the detail pane only, saying so; enter on it switches the
list to every event first. Insights' "go to" and a search hit (``arrive_at``) take the same path. The list never moves the
tree, so the two cannot chase each other; the tree tells only of moves the user made
(``EventTreeView.EventHighlighted``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import work

from tui.app.store.row_locate import estimated_index, loaded_index, query_keeps
from tui.app.store.row_windows import EventQuery, PagedWindow, PathWindow
from tui.app.store.rows import EventRow
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.filter_bar import FilterBar

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.row_windows import RowWindow

NEAR = 20  # rows either side of where an event should be that are loaded to find it
#: what the detail pane says over an event the list's view leaves out
NOT_SHOWN = "Not among the events the list shows: enter on it in the tree (or a) shows them all."


class TreeFollowMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    events: ConversationEvents
    window: RowWindow
    query_window: PagedWindow
    walk_to: Callable[..., Awaitable[int | None]]  # reading.py
    mark_words: Callable[[str], object]  # find.py

    # named handlers: a mixin's @on handlers are not collected (it is not a message pump)
    def on_event_tree_view_event_highlighted(self, message: EventTreeView.EventHighlighted) -> None:
        self.show_event(message.position)

    def on_event_tree_view_event_chosen(self, message: EventTreeView.EventChosen) -> None:
        self.show_event(message.position, all_events=True)

    def show_event(self, position: int, *, all_events: bool = False) -> None:
        """The list's cursor on the index's event at ``position`` (what the tree counts);
        ``all_events``: a view that leaves it out gives way to every event."""
        rows = self.events.base.head
        if 0 <= position < len(rows):
            self._show_row(rows[position], position, all_events)

    #: a search hit's event, gone to once the index holds it (``arrive_at``)
    _arrival: str | None = None
    _arrival_words: str | None = None

    def arrive_at(self, event_id: str, words: str | None = None) -> None:
        """Opened from a search hit: go to ``event_id`` as soon as the index has it (or,
        indexed whole without it, show it in the detail pane as ``go_to_event`` does);
        ``words``: the search's words as a find pattern, marked once there."""
        self._arrival, self._arrival_words = event_id, words

    def arrive(self) -> None:
        """The index grew (``loading._base_grew``): the awaited event, if it is there now."""
        wanted = self._arrival
        if wanted is None:
            return
        base = self.events.base
        if base.complete or any(row.id == wanted for row in base.head):
            self._arrival = None
            self.go_to_event(wanted)
            if self._arrival_words:
                self.mark_words(self._arrival_words)

    def go_to_event(self, event_id: str | None) -> None:
        """Insights' "go to": the event with that id, as a tree choice goes there."""
        if not event_id:
            return
        rows = self.events.base.head
        position = next((n for n, row in enumerate(rows) if row.id == event_id), None)
        if position is None:  # not indexed yet: show it in the detail pane meanwhile
            self.show_detail(EventRow(event_id, "", "", "", ""))
            return
        self.show_event(position, all_events=True)
        self.query_one(EventList).focus()

    @work(exclusive=True, group="tree-follow")
    async def _show_row(self, row: EventRow, position: int, all_events: bool) -> None:
        window = self.window
        if window is self.events.base:  # the index itself: the tree's positions are its rows
            self._list_cursor(window, position)
            return
        await asyncio.sleep(0.02)  # debounce: a held key walks the tree, one search at the end
        if all_events and not self._shows(window, row):
            window = await self._all_events()
            if window is None:
                return
            if window is self.events.base:
                self._list_cursor(window, position)
                return
        at = loaded_index(window, row) if self._shows(window, row) else None
        if at is None and isinstance(window, PagedWindow) and query_keeps(window.query, row):
            at = await self._load_near(window, row, position)
        if self.closing or window is not self.window:
            return
        if at is None:
            self.show_detail(row, note=NOT_SHOWN)
        else:
            self._list_cursor(window, at)

    def _shows(self, window: RowWindow, row: EventRow) -> bool:
        """Could ``window`` hold the row (a branch or find's matches: is it there)?"""
        if isinstance(window, PathWindow):
            return loaded_index(window, row) is not None
        return query_keeps(window.query, row)

    async def _load_near(self, window: PagedWindow, row: EventRow, position: int) -> int | None:
        """Load the rows where the event should be in ``window`` and find it among them."""
        if window.total is None:
            await self.events.count_known(window)  # where "the newest first" starts
        if not len(window):
            return None
        if window.fold is not None:  # steps merge rows: found by time, walking its pages
            return await self.walk_to(window, row, nearest=False)
        guess = estimated_index(window, self.events.base.head, position)
        start, end = max(0, guess - NEAR), min(len(window), guess + NEAR + 1)
        try:
            added = await self.events.fill_range(window, start, end)
        except Exception as exc:  # noqa: BLE001 - said, and the detail still shows it
            self.failed("Could not load the events around it", exc)
            return None
        if added and window is self.window and not self.closing:
            self.query_one(EventList).rows_changed()
        return loaded_index(window, row)

    async def _all_events(self) -> RowWindow | None:
        """The list shows every event (a branch or find's view left, the filter cleared,
        the order kept); the view, once it is in (None: the screen is closing)."""
        if isinstance(self.window, PathWindow):
            self.window = self.query_window
        if not self.query_window.query.is_plain:
            bar = self.query_one(FilterBar)
            bar.set_query(EventQuery(descending=self.query_window.query.descending))
            try:
                await self.apply_query(bar.applied).wait()
            except Exception:  # noqa: BLE001 - cancelled by another view, or said by it
                return None
        return None if self.closing else self.window

    def _list_cursor(self, window: RowWindow, index: int) -> None:
        if window is self.window and not self.closing:
            self.query_one(EventList).cursor = index
