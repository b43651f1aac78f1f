"""Find, jump and seek in the open conversation (``/``, ``n``/``N``, ``e``, ``u``, ``]``…).

A query from the find bar marks its hits in the list and the detail; ``n``/``N`` and the
jump keys move the cursor to the next row that qualifies, loading pages as they go;
"only matches" loads the whole view and shows just the hits. The searching runs in
workers of the ``find`` group (one at a time; esc or a new search cancels it) and yields
every few thousand rows, so a 100,000-event search never freezes the screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work

from ...row_windows import PagedWindow, PathWindow
from ...search import Finder, FindError
from ...widgets.event_detail import EventDetail
from ...widgets.event_list import EventList
from ...widgets.event_tree import EventTreeView
from ...widgets.find_bar import FindBar

if TYPE_CHECKING:
    from ...conversation_events import ConversationEvents
    from ...row_windows import RowWindow
    from ...rows import EventRow


class FindMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    events: ConversationEvents
    window: RowWindow  # what the list shows; assigning it switches the list (screen.py)
    query_window: PagedWindow  # the filter bar's view: what find searches and returns to
    finder: Finder | None  # the find bar's compiled query while find is open

    def action_find(self) -> None:
        self.query_one(FindBar).open()

    def on_find_bar_submitted(self, message: FindBar.Submitted) -> None:
        bar = self.query_one(FindBar)
        try:
            finder = Finder(message.query)
        except FindError as exc:
            bar.set_status(str(exc), error=True)
            return
        self.finder = finder
        self.query_one(EventList).set_finder(finder)
        self.query_one(EventDetail).set_finder(finder)
        self.query_one(EventList).focus()  # so n / N walk the hits; / returns to the query
        if message.only:
            self.find_only(finder)
            return
        if isinstance(self.window, PathWindow) and self.window.what == "find":
            self.window = self.query_window
        self.seek(
            finder.matches, 1, f"no event matches {finder.query.describe()}", include_current=True
        )

    def on_find_bar_closed(self) -> None:
        self.close_find()

    def close_find(self) -> None:
        """Stop searching, drop the marks and the only-matches view."""
        self.workers.cancel_group(self, "find")
        bar = self.query_one(FindBar)
        bar.remove_class("-visible")
        bar.set_status("")
        self.finder = None
        self.query_one(EventList).set_finder(None)
        self.query_one(EventDetail).set_finder(None)
        if isinstance(self.window, PathWindow) and self.window.what == "find":
            self.window = self.query_window
        self.query_one(EventList).focus()

    def action_find_toggle(self, name: str) -> None:
        self.query_one(FindBar).action_toggle(name)

    def action_find_next(self) -> None:
        if self.finder is None:
            self.action_find()
        else:
            self.seek(self.finder.matches, 1, f"no event matches {self.finder.query.describe()}")

    def action_find_previous(self) -> None:
        if self.finder is None:
            self.action_find()
        else:
            self.seek(self.finder.matches, -1, f"no event matches {self.finder.query.describe()}")

    def action_jump(self, target: str, direction: int) -> None:
        tree = self.events.tree
        if target == "error":
            self.seek(lambda row: row.is_error, direction, "no error events")
        elif target == "user":
            self.seek(
                lambda row: row.kind == "MessageEvent" and row.source == "user",
                direction,
                "no user messages",
            )
        elif tree is None:
            self.notify("The tree is still being built.", markup=False)
        else:
            forks = self.query_one(EventTreeView).fork_positions()

            def is_fork(row: EventRow) -> bool:
                return row.id is not None and tree.index_of(row.id) in forks

            self.seek(is_fork, direction, "no branch points: this conversation never forked")

    @work(exclusive=True, group="find")
    async def seek(
        self,
        wanted: Callable[[EventRow], bool],
        direction: int,
        none_text: str,
        *,
        include_current: bool = False,
    ) -> None:
        """Move the cursor to the next row (wrapping) that is ``wanted``, loading pages as needed.

        Runs in a worker and yields every few thousand rows, so a 100,000-event search never
        freezes the UI; esc in the find bar (or a new search) cancels it."""
        window, event_list, bar = self.window, self.query_one(EventList), self.query_one(FindBar)
        total = len(window)
        if not total:
            return
        start = event_list.cursor
        index = start if include_current else start + direction
        for checked in range(total):
            index %= len(window)
            row = window.row(index)
            if row is None and isinstance(window, PagedWindow):
                bar.set_status(f"searching… {checked:,} of {total:,} checked (esc stops)")
                await self.events.fill_range(window, index, index + 1)
                row = window.row(index)
                if window is self.window:
                    event_list.rows_changed()
            if row is not None and wanted(row):
                if window is self.window:
                    event_list.cursor = index
                    wrapped = (index < start) if direction > 0 else (index > start)
                    bar.set_status(
                        f"row {index + 1:,} of {len(window):,}" + (" (wrapped)" if wrapped else "")
                    )
                return
            index += direction
            if checked % 2_000 == 1_999:
                bar.set_status(f"searching… {checked + 1:,} of {total:,} checked (esc stops)")
                await asyncio.sleep(0)
        bar.set_status(none_text)
        self.notify(none_text.capitalize() + ".", markup=False)

    @work(exclusive=True, group="find")
    async def find_only(self, finder: Finder) -> None:
        """Show only the events that match: loads the whole filtered view first (with progress)."""
        window, bar = self.query_window, self.query_one(FindBar)
        await self.events.load_all(
            window,
            lambda w: bar.set_status(
                f"loading {len(w.head) + len(w.tail):,} of {len(w):,} to filter… (esc stops)"
            ),
        )
        rows, count = [], len(window)
        for index in range(count):
            row = window.row(index)
            if row is not None and finder.matches(row):
                rows.append(row)
            if index % 5_000 == 4_999:
                await asyncio.sleep(0)
        self.window = PathWindow(rows, finder.query.describe(), what="find")
        bar.set_status(f"{len(rows):,} of {count:,} events match")
