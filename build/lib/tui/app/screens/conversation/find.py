"""Find, jump and seek in the open conversation (``/``, ``n``/``N``, ``e``, ``u``, ``]``…).

A query from the find bar marks its hits in the list and the detail; ``n``/``N`` and the
jump keys move the cursor to the next row that qualifies, loading pages as they go;
"only matches" loads the whole view and shows just the hits. The searching runs in
workers of the ``find`` group (one at a time; esc or a new search cancels it) and yields
every few thousand rows, so a 100,000-event search never freezes the screen.

Beside it, a ``find-count`` worker counts the hits in the whole view (loading its pages
as it goes), so the bar says "hit 3 of 31" ("of at least 12" while counting). The bar's
words always belong to the current query and view: a new query, a switch of view or
closing find starts them afresh.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work

from tui.app.store.row_windows import PagedWindow, PathWindow
from tui.app.store.search import Finder, FindError, FindQuery, Hits
from tui.app.store.step_rows import members
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.find_bar import FindBar

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.row_windows import RowWindow
    from tui.app.store.rows import EventRow

#: What ``e``/``E`` say when no row of the view is marked as a failure (a filter may hide some).
NO_FAILURES = "no failures in this view"


class FindMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    events: ConversationEvents
    window: RowWindow  # what the list shows; assigning it switches the list (screen.py)
    query_window: PagedWindow  # the filter bar's view: what find searches and returns to
    finder: Finder | None  # the find bar's compiled query while find is open
    hits: Hits | None = None  # the finder's hits in the view the list shows, as counted
    _hits_window: RowWindow | None = None  # the view they were counted in
    _seeking = False  # a seek is walking rows: the bar shows its progress meanwhile
    _wrapped_at: int | None = None  # where the last seek landed after wrapping around
    _only_of = 0  # the events "only matches" chose from
    #: the find bar holds a search hit's words, not yet changed: esc goes back to the hits
    words_from_hit = False

    async def action_find(self) -> None:
        await self.rest_built()  # the bar is built after the first rows (deferred.py)
        self.words_from_hit = False
        self.find_bar.open()

    def on_find_bar_submitted(self, message: FindBar.Submitted) -> None:
        bar = self.find_bar
        self.words_from_hit = False
        self._drop_finder()  # the old query's marks, count and words go, whatever comes next
        if not message.query.pattern:
            return  # an emptied query: nothing marked, nothing said
        try:
            finder = Finder(message.query)
        except FindError as exc:
            bar.set_status(str(exc), error=True)
            return
        self.finder = finder
        self.query_one(EventList).set_finder(finder)
        self.query_one(EventDetail).set_finder(finder)
        if message.to_list:  # enter: n / N walk the hits; / returns to the query
            self.set_focus(self.query_one(EventList))
        if message.only:
            self.find_only(finder)
            return
        if isinstance(self.window, PathWindow) and self.window.what == "find":
            self.window = self.query_window  # counting starts over there (find_view_changed)
        else:
            self.count_hits_in(self.window)
        self.seek(
            finder.matches, 1, f"no event matches {finder.query.describe()}", include_current=True
        )

    @work(group="find-words")
    async def mark_words(self, pattern: str) -> None:
        """Opened from a search hit: its query's words (``find_pattern``) in the find bar,
        marked in the list and the detail and counted, as ``/`` would; the cursor stays on
        the hit's event (no seek) and ``n``/``N`` walk the others; esc goes back to the
        hits at once (the marks go with it) unless find was used meanwhile."""
        await self.rest_built()
        query = FindQuery(pattern, regex=True)
        try:
            finder = Finder(query)
        except FindError:
            return
        self._drop_finder()
        self.find_bar.show_query(query)
        self.finder = finder
        self.query_one(EventList).set_finder(finder)
        self.query_one(EventDetail).set_finder(finder)
        self.count_hits_in(self.window)
        self.words_from_hit = True

    def on_find_bar_closed(self) -> None:
        self.close_find()

    def _drop_finder(self) -> None:
        """No query: searching and counting stop, marks and the bar's words go."""
        self.workers.cancel_group(self, "find")
        self.workers.cancel_group(self, "find-count")
        self.finder, self.hits, self._hits_window = None, None, None
        self._seeking, self._wrapped_at = False, None
        self.find_bar.set_status("")
        self.query_one(EventList).set_finder(None)
        self.query_one(EventDetail).set_finder(None)

    def close_find(self) -> None:
        """Stop searching, drop the marks and the only-matches view."""
        self._drop_finder()
        self.find_bar.remove_class("-visible")
        if isinstance(self.window, PathWindow) and self.window.what == "find":
            self.window = self.query_window
        self.set_focus(self.query_one(EventList))

    # --- "hit 3 of 31" ------------------------------------------------------------------------

    def find_view_changed(self) -> None:
        """The list shows another view: the count so far was for the old one."""
        if self.finder is not None:
            self._wrapped_at = None
            self.count_hits_in(self.window)

    def count_hits_in(self, window: RowWindow) -> None:
        self.hits, self._hits_window = Hits(), window
        self.refresh_find_status()
        self.count_hits(window, self.hits)

    @work(exclusive=True, group="find-count")
    async def count_hits(self, window: RowWindow, hits: Hits) -> None:
        """Check every row of ``window`` from the first, loading pages as needed; the bar
        says how far it got. Yields every few thousand rows (a 100,000-event view never
        freezes the screen); a new query, view or esc cancels it."""
        finder = self.finder
        if finder is None:
            return
        while True:
            index = hits.scanned
            while index < len(window) and (row := window.row(index)) is not None:
                if finder.matches(row):
                    hits.add(index)
                index += 1
                if index % 2_000 == 0:
                    hits.scanned = index
                    self.refresh_find_status()
                    await asyncio.sleep(0)
            hits.scanned = index
            if index >= len(window) and window.complete:
                break
            if isinstance(window, PagedWindow):
                try:
                    loaded = await self.events.fill_range(window, index, index + 1)
                except Exception:  # noqa: BLE001 - the count stays a floor ("at least")
                    loaded = False
                if window is self.window and not self.closing:
                    self.query_one(EventList).rows_changed()
                if not loaded and window.row(index) is None:
                    break  # nothing more to load (a failed page): the count stays a floor
            self.refresh_find_status()
        hits.complete = hits.scanned >= len(window)
        self.refresh_find_status()

    def refresh_find_status(self) -> None:
        """Say where the cursor is among the hits (not while a seek shows its progress)."""
        hits, window = self.hits, self._hits_window
        if self.finder is None or hits is None or self._seeking or self.closing:
            return
        if window is not self.window:
            return  # a view switch is on its way; find_view_changed starts the new count
        if hits.complete and hits.scanned < len(window):
            hits.complete = False  # live rows arrived: count them too
            self.count_hits(window, hits)
        cursor = self.query_one(EventList).cursor if len(window) else None
        wrapped = cursor is not None and cursor == self._wrapped_at
        text = hits.describe(cursor, wrapped=wrapped)
        if isinstance(window, PathWindow) and window.what == "find":
            rows = "steps" if self.query_window.query.merges else "events"
            text += f" · {len(window):,} of {self._only_of:,} {rows} match"
        self.find_bar.set_status(text)

    def action_find_toggle(self, name: str) -> None:
        self.find_bar.action_toggle(name)

    async def action_find_next(self) -> None:
        if self.finder is None:
            await self.action_find()
        else:
            self.seek(self.finder.matches, 1, f"no event matches {self.finder.query.describe()}")

    async def action_find_previous(self) -> None:
        if self.finder is None:
            await self.action_find()
        else:
            self.seek(self.finder.matches, -1, f"no event matches {self.finder.query.describe()}")

    def action_jump(self, target: str, direction: int) -> None:
        """``u`` ``e`` ``]`` and their reverses: typed before the rows are in (with the enter
        that opened the conversation), the jump waits for them."""
        self.query_one(EventList).when_given(lambda: self._jump(target, direction))

    def _jump(self, target: str, direction: int) -> None:
        if self.closing:
            return
        tree = self.events.tree
        if target == "error":
            # a row's mark is the one definition of failure (tui.models.failure)
            self.seek(lambda row: row.is_error, direction, NO_FAILURES)
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

            def is_fork(row: EventRow) -> bool:  # a step: any event it stands for
                return any(
                    event.id is not None and tree.index_of(event.id) in forks
                    for event in members(row)
                )

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
        window, event_list, bar = self.window, self.query_one(EventList), self.find_bar
        if isinstance(window, PagedWindow) and window.total is None:
            # the count is asked after the first paint: without it a jump typed with the
            # enter that opened the conversation wrapped at the end of the first page
            await self.events.count_known(window)
        total = len(window)
        if not total:
            return
        start = event_list.cursor
        index = start if include_current else start + direction
        finding = self.finder is not None and wanted == self.finder.matches
        try:
            for checked in range(total):
                index %= len(window)
                row = window.row(index)
                if row is None and isinstance(window, PagedWindow):
                    self._seeking = True
                    bar.set_status(f"searching… {checked:,} of {total:,} checked (esc stops)")
                    await self.events.fill_range(window, index, index + 1)
                    row = window.row(index)
                    if window is self.window:
                        event_list.rows_changed()
                if row is not None and wanted(row):
                    if window is self.window:
                        wrapped = (index < start) if direction > 0 else (index > start)
                        self._seeking = False
                        self._wrapped_at = index if wrapped else None
                        event_list.cursor = index
                        if not finding:
                            bar.set_status(
                                f"row {index + 1:,} of {len(window):,}"
                                + (" (wrapped)" if wrapped else "")
                            )
                        self.refresh_find_status()
                    return
                index += direction
                if checked % 2_000 == 1_999:
                    self._seeking = True
                    bar.set_status(f"searching… {checked + 1:,} of {total:,} checked (esc stops)")
                    await asyncio.sleep(0)
        finally:
            self._seeking = False
        bar.set_status(none_text)
        self.notify(none_text.capitalize() + ".", markup=False)

    @work(exclusive=True, group="find")
    async def find_only(self, finder: Finder) -> None:
        """Show only the events that match: loads the whole filtered view first (with progress)."""
        window, bar = self.query_window, self.find_bar
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
        self._only_of = count
        self.window = PathWindow(rows, finder.query.describe(), what="find")
