"""Loading a conversation: its first page (asked for as the screen is built), its record,
the background index the tree is built from, and the rows the list asks for.

The first page is requested in the screen's constructor, so the request and its parsing run
while Textual composes and mounts the panes: when the screen's first frame is painted the rows
are usually there already, and the list is painted with them instead of "Loading events…"
first. The record (title, statuses) loads beside it and never holds the rows back, and the
view's count is asked for once the rows are painted (``open_window``'s ``later``): it walks
the whole log on the server, and asked beside the page it held the page back; until it is
in, the list's title says "100+".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work

from tui.app.screens.conversation.waiting import duration, short_reason
from tui.app.screens.dialogs.errors import describe_error, failure_of, keys_sent
from tui.app.store.live_session import can_follow
from tui.app.store.row_windows import START, PagedWindow
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import REFRESH_S, EventTreeView
from tui.memory import freeze_long_lived

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.row_windows import EventQuery
    from tui.app.store.rows import EventRow

#: Rows past the list's height that a new view's first page asks for: reading the page is
#: most of a filter change's time, and rows below the screen can follow a frame later.
FIRST_PAGE_MARGIN = 10


def _read_failure(future: asyncio.Future) -> None:
    """A load nobody awaits any more (the screen closed first): its failure is read here so
    asyncio does not report it as never retrieved; it was never the user's to see."""
    if not future.cancelled():
        future.exception()


def first_user_message(window: PagedWindow) -> int:
    """Where the first user message is among the rows loaded from the window's head (0:
    not among them, or the window is newest first)."""
    if window.query.descending:
        return 0
    for index, row in enumerate(window.head):
        if row.kind == "MessageEvent" and row.source == "user":
            return index
    return 0


class LoadingMixin:
    """Part of :class:`~.screen.ConversationScreen`: what gets its rows loaded."""

    events: ConversationEvents
    opening_query: EventQuery  # what the list shows first (the steps view)
    #: where the list's cursor starts when it is next given a window (then 0 again)
    start_cursor = 0
    _first_page: asyncio.Future[PagedWindow] | None = None
    _first_shown = False  # the first page went into the list
    #: why the first page could not be had, while the list says so (``r`` asks again)
    load_failure: BaseException | None = None
    _index_started = False

    def prefetch_first_page(self) -> None:
        """Ask for the first page now, before the panes exist (from the constructor; no-op
        outside a running loop, where :meth:`load` asks instead)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        future = asyncio.ensure_future(
            self.events.open_window(self.opening_query, self._total_known, self.call_after_refresh)
        )
        future.add_done_callback(_read_failure)
        self._first_page = future

    def start_loading(self) -> None:
        """From ``on_mount``: rows already fetched go into the list before its first paint;
        the rest (or all of it, if the page is still on its way) is the load worker's."""
        first = self._first_page
        if (
            first is not None
            and first.done()
            and not first.cancelled()
            and first.exception() is None
        ):
            self.show_first_page(first.result())  # builds the rest after its paint
        else:  # the rows are still on their way: the rest is built after the first frame
            self.call_after_refresh(self.build_rest)
        self.load()

    def cancel_loading(self) -> None:
        if self._first_page is not None:
            self._first_page.cancel()

    def show_first_page(self, window: PagedWindow) -> None:
        """The first page is in: the list shows it (once; the load worker may come second)."""
        if self.closing or self._first_shown:
            return
        self._first_shown = True
        self.query_one(EventList).empty_text = (
            ("No events yet." if window.query.is_plain else "No events match.")
            if window.total == 0
            else "No events."
        )
        # the conversation opens where a person starts reading: its first user message
        # (not a hook_config state update), if the first page holds it
        self.start_cursor = first_user_message(window)
        self.query_window = self.window = window
        # the first rows are painted before the rest of the screen is built (deferred.py)
        # and the background walk starts taking turns (rest_ready)
        self.call_after_refresh(self.build_rest)
        if self._rest_done.is_set():  # built before the rows came (a slow server)
            self.call_after_refresh(self.start_index)

    def rest_ready(self) -> None:
        """The whole screen is built: the background index starts (once the rows are in)."""
        if self._first_shown:
            self.start_index()

    def start_index(self) -> None:
        if not self._index_started:
            self._index_started = True
            self.index()

    @work(exclusive=True, group="load")
    async def load(self) -> None:
        first, self._first_page = self._first_page, None
        if first is None:
            first = asyncio.ensure_future(
                self.events.open_window(
                    self.opening_query, self._total_known, self.call_after_refresh
                )
            )
            first.add_done_callback(_read_failure)
        record = asyncio.ensure_future(self._load_record())
        record.add_done_callback(_read_failure)
        try:
            try:
                window = await first
            except Exception:
                record.cancel()
                raise
            if self.closing:
                return
            self.show_first_page(window)  # the record never holds the rows back
            await record
            await self.rest_built()  # the live stream's bars
        except Exception as exc:  # noqa: BLE001 - shown to the user, never raised
            if self.closing:
                return
            if self._first_shown:
                self.failed("Could not load the conversation", exc)
            else:  # no rows at all: said where they would be, with r to try again
                self.show_load_failure(exc)
            return
        finally:
            if not record.done():  # the load was cancelled (a filter applied meanwhile)
                record.cancel()
        if self.closing:
            return
        if self.conversation is not None and can_follow(self.conversation):
            self.follow_live()

    def show_load_failure(self, exc: BaseException) -> None:
        """The first page could not be had (the store has given up, or trying again cannot
        help, e.g. a login page): the list says why in its place, and ``r`` asks again."""
        self.load_failure = exc
        client = self.app.client
        found = failure_of(exc, sent=keys_sent(client), base_url=getattr(client, "base_url", ""))
        lines = [f"Could not load the events: {found.title[:1].lower()}{found.title[1:]}."]
        if found.detail:
            lines.append(found.detail)
        if found.next_step:
            lines.append(f"{found.next_step[:1].upper()}{found.next_step[1:]}.")
        self.query_one(EventList).empty_text = "\n".join([*lines, "r: try again"])
        self.refresh_bindings()

    def action_retry_load(self) -> None:
        """``r`` after the first page could not be had: ask for it again."""
        if self.load_failure is None or self.closing:
            return
        self.load_failure = None
        self.query_one(EventList).empty_text = "Loading events…"
        self.refresh_bindings()
        self.load()

    def _total_known(self, window: PagedWindow) -> None:
        """A window's count arrived after its first rows: size the list and its title."""
        if self.closing or window is not self.window:
            return
        event_list = self.query_one(EventList)
        if event_list.source is window:  # before that, the list still says it is loading
            event_list.rows_changed()
            self.update_list_title()

    async def _load_record(self) -> None:
        if not self.events.shared:
            await self.events.load_record()
            self.render_header()

    @work(exclusive=True, group="record")
    async def refresh_record(self) -> None:
        try:
            await self.events.load_record(patient=False)
        except Exception:  # noqa: BLE001 - best effort; the stream status already says enough
            return
        if not self.closing:
            self.render_header()
            self.sync_live()  # a sandbox paused or resumed elsewhere: the stream follows

    @work(exclusive=True, group="index")
    async def index(self) -> None:
        """Walk the whole conversation (oldest first) so the tree and pairing are complete.

        The store outlasts server and network failures (with backoff), so a flaky server
        still ends fully indexed."""
        events, loop = self.events, asyncio.get_running_loop()
        last = 0.0
        base = events.base
        if base.head_page == START and base.total is None:
            # the index's first page, its count asked right after (the event log's length,
            # the tree's footer, the indexing note: the list opened on another view)
            try:
                await events.open_window(base.query, self._total_known)
            except Exception as exc:  # noqa: BLE001 - shown to the user, never raised
                self.failed("Indexing stopped", exc)
                return
        while not events.base.complete:
            try:
                added = await events.index_page()
            except Exception as exc:  # noqa: BLE001 - shown to the user, never raised
                self.failed("Indexing stopped", exc)
                break
            if self.closing:
                return
            now = loop.time()
            if now - last > REFRESH_S:
                last = now
                self._base_grew()
            if not added:
                break
        if not self.closing:
            self._base_grew()

    def _base_grew(self) -> None:
        complete = self.events.base.complete
        if complete and not self.frozen_rows:
            freeze_long_lived()  # the index's rows stay as long as the screen
            self.frozen_rows = len(self.events.base.head)
        if self.window is self.events.base:
            self.query_one(EventList).rows_changed()
        self.update_list_title()
        self.render_header()  # the record may have no figures: the events' newest stats
        tree = self.query_one(EventTreeView)
        tree.mark_stale()
        tree.rebuild(now=complete)
        if complete and self.live is not None and self.live.held:
            self.flush_live_rows()
        if self.live is not None and self.live.waiting_for_confirmation:
            self.render_confirm()
        self.arrive()  # a search hit's event, once the index holds it

    async def open_view(
        self, query: EventQuery, keep: EventRow | None = None
    ) -> PagedWindow | None:
        """Show a new view (a filter, an order): its first page sized to the list. The
        count, then the rest of a full page, are asked for once those rows are painted, so
        the view scrolls as if the first page had been full. ``keep``: the cursor goes to
        the row holding that event. None: the screen is closing.

        A view that folds (steps, plumbing, several kinds) asks for full pages: a page of
        a hundred events is a screen of its rows at most."""
        event_list = self.query_one(EventList)
        height = event_list.size.height
        folds = query.shaped or bool(query.kinds)
        first = height + FIRST_PAGE_MARGIN if height and not folds else None
        fresh = query != self.events.base.query  # the base window is the index: never capped
        later: list[Callable[[], None]] = []
        window = await self.events.open_window(
            query, self._total_known, later.append, first_rows=first
        )
        if self.closing:
            return None
        event_list.empty_text = "No events match these filters."
        placed = self.place_cursor(window, keep)
        self.query_window = self.window = window
        if not placed and keep is not None:
            self.cursor_to(keep)
        if first and fresh and window.head_page:  # the next page right after the first paint
            later.append(lambda: self._fill_ahead(window, len(window.head) + 1))
        event_list.after_paint(*later)
        return window

    def _fill_ahead(self, window: PagedWindow, end: int) -> None:
        """The rest of a full first page, unless the list asked for rows of its own first
        (keys held while the page loaded, e.g. End): those are loaded instead, and the
        rows below the first page as the list reaches them, as for any other page."""
        if self._wanted_rows is None:
            self.want_rows(window, 0, end)

    def rows_wanted(self, message: EventList.RowsWanted) -> None:
        """The list found rows it has not got: load them (one page walk at a time)."""
        if isinstance(self.window, PagedWindow):
            self.want_rows(self.window, message.start, message.end)

    def want_rows(self, window: PagedWindow, start: int, end: int) -> None:
        """Load rows [start, end) of ``window`` (if it is still shown by then)."""
        if window is not self.window or self.closing:
            return
        self._wanted_rows = (window, start, end)
        if not self._filling:
            self._filling = True
            self.fill_rows()

    @work(group="fill")
    async def fill_rows(self) -> None:
        """Load what the list last asked for, then whatever it asked for meanwhile.

        A page on its way is never cancelled for a newer request (the list asks again on
        every repaint that finds a gap): cancelling it and asking anew made End on a large
        conversation wait for several page fetches instead of one."""
        try:
            while (wanted := self._wanted_rows) is not None and not self.closing:
                self._wanted_rows = None
                window, start, end = wanted
                try:
                    added = await self.events.fill_range(window, start, end)
                except Exception as exc:  # noqa: BLE001
                    self.failed("Could not load events", exc)
                    return
                if added and window is self.window and not self.closing:
                    self.query_one(EventList).rows_changed()
                    self.update_list_title()
        finally:
            self._filling = False

    def _retry_notice(self, exc: BaseException, delay: float) -> None:
        """The store tries a failed load again after ``delay`` seconds: say so (the list
        counts it down where it waits: ``waiting.py``)."""
        if not self.closing:
            self.notify(
                f"Loading failed ({short_reason(exc)}); retrying in {duration(delay)}.",
                severity="warning",
                timeout=min(5.0, delay + 1),
                markup=False,
            )

    def failed(self, what: str, exc: BaseException) -> None:
        """Tell the user what could not be done, and why (never a traceback)."""
        self.notify(f"{what}: {describe_error(exc)}", severity="error", timeout=8, markup=False)
