"""One conversation: the tree, the filtered lazy event list and the detail pane."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..feed import EventFeed
from ..format import conversation_cost, money, status_text, title_of, tokens
from ..rows import EventRow
from ..safe_text import clean
from ..widgets.event_detail import EventDetail
from ..widgets.event_list import EventList
from ..widgets.event_tree import EventTreeView
from ..widgets.filter_bar import FilterBar
from ..windows import PagedWindow, PathWindow, Query
from .errors import describe_error

TREE_REFRESH_S = 1.0


class ConversationScreen(Screen):
    """Tree | list over detail. The base index loads in the background for the tree."""

    AUTO_FOCUS = "#event-list"
    BINDING_GROUP_TITLE = "Conversation"
    BINDINGS = [
        Binding("escape", "back", "Back", id="conversation.back"),
        Binding("o", "toggle_sort", "Sort order", id="conversation.sort"),
        Binding("slash", "focus_filter", "Filter", id="conversation.filter"),
        Binding("a", "show_all", "All events", id="conversation.all"),
        Binding("t", "focus('event-tree')", "Tree", show=False, id="conversation.focus-tree"),
        Binding("l", "focus('event-list')", "List", show=False, id="conversation.focus-list"),
        Binding("d", "focus('event-detail')", "Detail", show=False, id="conversation.focus-detail"),
    ]

    def __init__(self, conversation_id: str, *, shared: bool = False, title: str | None = None) -> None:
        super().__init__()
        self.conversation_id = conversation_id
        self.feed = EventFeed(self.app.client, conversation_id, shared=shared)
        self.window: PagedWindow | PathWindow = self.feed.base
        self.query_window: PagedWindow = self.feed.base
        self._title = title
        self._conversation: Any = None

    def compose(self) -> ComposeResult:
        yield Static(id="conv-header")
        yield FilterBar(id="filter-bar")
        with Horizontal(id="conv-body"):
            yield EventTreeView(id="event-tree")
            with Vertical(id="conv-right"):
                yield EventList(id="event-list")
                yield EventDetail(id="event-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#event-tree").border_title = "Tree"
        event_list = self.query_one(EventList)
        event_list.border_title = "Events"
        event_list.empty_text = "Loading events…"
        self.query_one(EventDetail).clear_event()
        self._render_header()
        event_list.focus()
        self.load()

    # --- header --------------------------------------------------------------------------

    def _render_header(self) -> None:
        conv = self._conversation
        text = Text()
        title = title_of(conv) if conv is not None else clean(self._title or self.conversation_id)
        text.append(title, style="bold")
        text.append(f"  {self.conversation_id}", style="dim")
        if self.feed.shared:
            text.append("  shared link (read-only)", style="italic")
        if conv is not None:
            text.append("\nagent ")
            text.append_text(status_text(conv.execution_status))
            text.append("   sandbox ")
            text.append_text(status_text(conv.sandbox_status))
            cost, used = conversation_cost(conv)
            text.append(f"   cost {money(cost)}   tokens {tokens(used)}")
            if conv.llm_model:
                text.append(f"   model {clean(conv.llm_model)}", style="dim")
        self.query_one("#conv-header", Static).update(text)

    def _update_list_title(self) -> None:
        event_list = self.query_one(EventList)
        window = self.window
        if isinstance(window, PathWindow):
            event_list.border_title = f"Events · branch: {clean(window.label)[:40]} · {len(window):,}"
        else:
            total = f"{len(window):,}" if window.total is not None else f"{len(window):,}+"
            event_list.border_title = f"Events · {window.query.describe()} · {total}"
        if self.feed.base.complete:
            event_list.border_subtitle = ""
        else:
            event_list.border_subtitle = f"indexing {len(self.feed.base.head):,}/{self.feed.base.total or '?'}"

    # --- loading -------------------------------------------------------------------------

    @work(exclusive=True, group="load")
    async def load(self) -> None:
        try:
            window, _ = await asyncio.gather(
                self.feed.open_window(self.query_window.query), self._load_record()
            )
        except Exception as exc:  # noqa: BLE001 - shown to the user, never raised
            self._failed("Could not load the conversation", exc)
            return
        event_list = self.query_one(EventList)
        event_list.empty_text = "No events match." if window.total == 0 else "No events."
        self.window = self.query_window = window
        event_list.set_source(window)
        self._update_list_title()
        self.index()

    async def _load_record(self) -> None:
        if not self.feed.shared:
            found = await self.app.client.get_conversations([self.conversation_id])
            self._conversation = found[0] if found else None
            self._render_header()

    @work(exclusive=True, group="index")
    async def index(self) -> None:
        """Walk the whole conversation (oldest first) so the tree and pairing are complete."""
        feed, loop = self.feed, asyncio.get_running_loop()
        last = 0.0
        try:
            while not feed.base.complete:
                added = await feed.fill(feed.base, "head")
                now = loop.time()
                if now - last > TREE_REFRESH_S:
                    last = now
                    self._base_grew()
                if not added:
                    break
        except Exception as exc:  # noqa: BLE001
            self._failed("Indexing stopped", exc)
        self._base_grew()

    def _base_grew(self) -> None:
        if self.window is self.feed.base:
            self.query_one(EventList).rows_changed()
        self._update_list_title()
        tree = self.feed.build_tree()
        if tree is not None:
            view = self.query_one(EventTreeView)
            view.load(tree, self.feed.base.head)
            forks = view.fork_count()
            view.border_subtitle = f"{len(tree):,} events · {forks} fork{'s' if forks != 1 else ''}"

    @on(EventList.RowsWanted)
    def _rows_wanted(self, message: EventList.RowsWanted) -> None:
        if isinstance(self.window, PagedWindow):
            self.fill_rows(self.window, message.start, message.end)

    @work(exclusive=True, group="fill")
    async def fill_rows(self, window: PagedWindow, start: int, end: int) -> None:
        try:
            added = await self.feed.fill_range(window, start, end)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not load events", exc)
            return
        if added and window is self.window:
            self.query_one(EventList).rows_changed()
            self._update_list_title()

    def _failed(self, what: str, exc: BaseException) -> None:
        self.notify(f"{what}: {describe_error(exc)}", severity="error", timeout=8, markup=False)

    # --- detail --------------------------------------------------------------------------

    @on(EventList.Highlighted)
    def _highlighted(self, message: EventList.Highlighted) -> None:
        if message.row is not None:
            self.show_detail(message.row)

    @work(exclusive=True, group="detail")
    async def show_detail(self, row: EventRow) -> None:
        await asyncio.sleep(0.03)  # debounce: holding a key doesn't fetch every row
        try:
            event = await self.feed.event(row)
            paired = await self.feed.paired(row)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not load the event", exc)
            return
        detail = self.query_one(EventDetail)
        if event is None:
            detail.clear_event("This event is no longer available.")
        else:
            detail.show(event, paired)

    @on(EventList.Selected)
    def _selected(self, message: EventList.Selected) -> None:
        self.query_one(EventDetail).focus()

    # --- tree ----------------------------------------------------------------------------

    @on(EventTreeView.BranchChosen)
    def _branch(self, message: EventTreeView.BranchChosen) -> None:
        if self.feed.tree is None:
            return
        self.window = self.feed.branch_window(message.position, message.label)
        event_list = self.query_one(EventList)
        event_list.set_source(self.window)
        self._update_list_title()
        self.notify("Showing one branch (root → its newest leaf). Press a for all events.", markup=False)

    @on(EventTreeView.EventChosen)
    def _event_chosen(self, message: EventTreeView.EventChosen) -> None:
        rows = self.feed.base.head
        if message.position >= len(rows):
            return
        target = rows[message.position]
        if self.window is not self.feed.base:
            self.action_show_all()
        event_list = self.query_one(EventList)
        if self.window is self.feed.base and not self.feed.base.query.descending:
            event_list.cursor = message.position
        else:
            self.show_detail(target)

    # --- actions -------------------------------------------------------------------------

    @on(FilterBar.Changed)
    def _filter_changed(self, message: FilterBar.Changed) -> None:
        self.apply_query(message.query)

    @work(exclusive=True, group="load")
    async def apply_query(self, query: Query) -> None:
        try:
            window = await self.feed.open_window(query)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not apply the filter", exc)
            return
        self.window = self.query_window = window
        event_list = self.query_one(EventList)
        event_list.empty_text = "No events match these filters."
        event_list.set_source(window)
        self._update_list_title()

    def action_toggle_sort(self) -> None:
        self.query_one(FilterBar).toggle_sort()

    def action_focus_filter(self) -> None:
        self.query_one("#filter-kind").focus()

    def action_show_all(self) -> None:
        if isinstance(self.window, PathWindow):
            self.window = self.query_window
            self.query_one(EventList).set_source(self.window)
            self._update_list_title()
        elif not self.query_window.query.is_plain:
            bar = self.query_one(FilterBar)
            bar.set_query(Query(descending=self.query_window.query.descending))
            self.apply_query(bar.query)

    def action_back(self) -> None:
        if isinstance(self.window, PathWindow):
            self.action_show_all()
        else:
            self.app.pop_screen()

    def action_focus(self, widget_id: str) -> None:
        self.query_one(f"#{widget_id}").focus()

    def filter_kind(self, kind: str | None) -> None:
        """Palette entry point: show only one kind."""
        bar = self.query_one(FilterBar)
        bar.set_query(Query(**{**bar.query.__dict__, "kind": kind}))
        self.apply_query(bar.query)
