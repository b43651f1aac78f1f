"""The conversations table: lazily paged, filterable by title, fresh while shown.

While the screen is shown it asks the server every :data:`POLL_S` seconds for the first page
again (conversations started elsewhere come on top, statuses change in place) and for the
other loaded rows by id (gone ones go); relative times tick with it, and the agents that
finished, failed or wait meanwhile are said in the status line (their rows show them: no
toasts over the list). Rows are keyed by id,
so the cursor stays on its conversation through refreshes, reorderings and a return from
another screen. Sub-conversations sit under their parents (``conversation_rows.py``). The
line under the table names the selected conversation whole (``c`` copies its id).

``s`` sorts the loaded rows by cost, tokens or duration (the server's figures; unknown ones
last) and back to the server's order, ``o`` turns the order round, a click on a column's
title sorts by it; ``$`` shows or hides a chart of the listed rows' costs (shown by default
only where the table keeps room: at least 120×40).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from tui.app.board.notices import Lately, tell_in_status_line
from tui.app.format import status_value, title_of
from tui.app.screen_state import shown
from tui.app.screens.conversations.conversations_sorting import ORDER_REFUSED, SortedList
from tui.app.screens.conversations.conversations_table import ConversationsTable
from tui.app.screens.dialogs.errors import describe_error
from tui.app.screens.dialogs.new_conversation import ConversationStarts
from tui.app.server_marks import plural
from tui.app.tables.conversation_rows import (
    ConversationRows,
    conversation_cells,
    conversation_detail,
)
from tui.app.tables.conversation_sort import sort_line, sorter
from tui.app.tables.table_columns import conversation_columns
from tui.app.themes import theme_style
from tui.app.widgets.charts.cost_chart import CostChart
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.common.ordered_input import OrderedInput
from tui.text import one_line

if TYPE_CHECKING:
    from textual.widget import AwaitMount

    from tui.models import AppConversation

PAGE = 50
POLL_S = 4.0  # a status changed elsewhere shows within this (plus the request)
BATCH = 99  # ids per batch get


class ConversationsScreen(SortedList, ConversationStarts, Screen):
    AUTO_FOCUS = "#conversations"
    BINDING_GROUP_TITLE = "Conversations"
    BINDINGS = [
        Binding("enter", "open", "Open", id="conversations.open"),
        # priority, and the focus moved at once: the keys typed behind it in one burst
        # (``/ zz``) go to the field, not to the table (``q`` quit the app)
        Binding("slash", "filter", "Filter by title", priority=True, id="conversations.filter"),
        Binding("n", "new", "New conversation", id="conversations.new"),
        Binding("ctrl+r", "refresh", "Refresh", id="conversations.refresh"),
        Binding("c", "copy_id", "Copy id", show=False, id="conversations.copy-id"),
        Binding("s", "sort", "Sort", id="conversations.sort"),
        Binding("S", "app.search_all", "Search", id="conversations.search-all"),
        Binding("o", "order", "Order", show=False, id="conversations.order"),
        Binding(
            "dollar_sign", "cost_chart", "Cost chart", show=False, id="conversations.cost-chart"
        ),
        Binding(
            "L",
            "app.show_llm_profiles",
            "LLM profiles",
            show=False,
            id="conversations.llm-profiles",
        ),
        Binding("i", "sandbox_ids", "Sandbox ids", show=False, id="conversations.sandbox-ids"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="conversations.clear"),
    ]
    CSS_PATH = "conversations.tcss"
    #: what ctrl+c copies where no text is selected (``copy_key.py``)
    COPY_ACTION = "copy_id"

    def __init__(self) -> None:
        super().__init__()
        self._next_page: str | None = None
        self._loading = False
        self.rows = ConversationRows()
        self._filter = ""
        #: local folders (``app.local``): events per conversation, shown where the sandbox would be
        self._counts: dict[str, int] = {}
        #: the conversation the cursor is on, kept across reloads (ids, not row numbers)
        self._cursor_id: str | None = None
        self._sandbox_ids = False
        self._polling = False
        #: status changes of the rows, said in the status line for a while (not as toasts)
        self._lately = Lately()

    @property
    def _rows(self) -> dict[str, AppConversation]:
        """The loaded records by id (what tests and the palette look into)."""
        return self.rows.rows

    def compose(self) -> ComposeResult:
        with Horizontal(id="conv-filter-row"):
            yield OrderedInput(
                placeholder="title contains… (enter to apply, esc to clear)", id="conv-filter"
            )
        yield ConversationsTable(
            self._layout(), id="conversations", cursor_type="row", zebra_stripes=True
        )
        yield CostChart(id="cost-chart")
        yield Static(id="conversations-detail")
        yield Static(id="conversations-status")
        yield KeyBar()

    def _layout(self):
        local, ids, sort, reverse = self.app.local, self._sandbox_ids, self.sort, self.reverse
        return lambda width: conversation_columns(
            width, local=local, sandbox_ids=ids, sort=sort, reverse=reverse
        )

    def on_mount(self) -> None:
        table = self.query_one(FittedTable)
        table.border_title = "Conversations"
        self.server_known()
        if self.focused is None:  # a "/" typed as the screen came up has given it to the field
            self.set_focus(table)
        self._place_chart()
        self.reload()
        self.set_interval(POLL_S, self.poll_statuses)
        self.set_interval(1.0, self._tick_start)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw_rows())

    def server_known(self) -> None:
        """The app learned what the server is: the mark beside the title, the keys."""
        for table in self.query(FittedTable):
            mark = self.app.server_mark
            table.border_subtitle = mark
        self.refresh_bindings()

    def _tick_start(self) -> None:
        """A start nobody watches says how far it got, second by second; news fades."""
        if (self.start_line() is not None or self._lately) and self._table() is not None:
            self._status()

    def on_screen_resume(self) -> None:
        """Back from a conversation or another screen: what changed meanwhile, at once."""
        if self.rows and not self._loading:
            self.refresh_rows()

    # --- drawing -------------------------------------------------------------------------

    def _table(self) -> FittedTable | None:
        """The table, or None once the screen is closing (a late worker has nothing to fill)."""
        tables = self.query(FittedTable) if self.is_attached else None
        return tables.first() if tables else None

    def _cells(self, conv: AppConversation, depth: int = 0) -> dict[str, Text]:
        events = self._events_cell(conv.id) if self.app.local else None
        return conversation_cells(
            conv,
            depth=depth,
            now=self.app.clock(),
            events=events,
            sandbox_ids=self._sandbox_ids,
        )

    def _events_cell(self, conversation_id: str) -> Text:
        count = self._counts.get(conversation_id)
        return Text("…" if count is None else f"{count:,}", justify="right", style="dim")

    def _redraw_rows(self) -> None:
        """Draw the rows in their order: in place when the order holds, else anew (the
        cursor stays on its conversation either way). Times tick, themes recolour."""
        table = self._table()
        if table is None:
            return
        order = self.rows.order(sorter(self.sort, self.reverse) if self.sort else None)
        wanted = [cid for cid, _ in order]
        shown = table.keys
        if wanted[: len(shown)] == shown:  # the same rows, maybe more below: in place
            for cid, depth in order:
                table.put_row(cid, self._cells(self.rows.rows[cid], depth))
        else:
            keep = table.current_key or self._cursor_id
            table.replace_rows(
                (cid, self._cells(self.rows.rows[cid], depth)) for cid, depth in order
            )
            if keep is not None:
                table.cursor_to(keep)
        self._show_detail()
        self._status()
        self._chart()

    def _show_detail(self) -> None:
        table = self._table()
        if table is None:
            return
        conv = self.rows.get(table.current_key)
        detail = self.query_one("#conversations-detail", Static)
        detail.update(conversation_detail(conv, self.app.clock()) if conv is not None else "")

    def _status(self, problem: str | None = None) -> None:
        top, subs = self.rows.counts()
        text = Text(plural(top, "conversation"))
        if subs:
            text.append(f" + {plural(subs, 'sub-conversation')}")
        if self._filter:
            text.append(f" · title contains “{one_line(self._filter, 40)}”")
        if self.sort:
            text.append(f" · {sort_line(self.sort, self.reverse)}")
            if self._next_page:
                text.append(" (of those loaded)")
        if self._next_page:
            text.append(" · more below")
        start = self.start_line()
        if start is not None:
            text.append(" · ")
            text.append_text(start)
        width = self.query_one("#conversations-status", Static).size.width
        lately = self._lately.summary(width - text.cell_len - 4 if width else None)
        if lately:
            text.append(f" · {lately}", style="italic")
        if problem:
            text.append(" · ")
            text.append(problem, style=theme_style("$error bold"))
        self.query_one("#conversations-status", Static).update(text)

    # --- loading -------------------------------------------------------------------------

    @work(exclusive=True, group="conversations")
    async def reload(self) -> None:
        table = self._table()
        if table is None:
            return
        self._cursor_id = table.current_key or self._cursor_id
        self._next_page = None
        self.rows.clear()
        self._counts.clear()
        table.clear()
        await self._load_page(None)

    async def _load_page(self, page_id: str | None) -> None:
        if self._table() is None:
            return
        self._loading = True
        status = self.query_one("#conversations-status", Static)
        status.update(Text("loading…", style="italic"))
        try:
            client = await self.app.client_ready()  # built off the event loop at startup
            page = await client.search_conversations(
                title_contains=self._filter or None, page_id=page_id, limit=PAGE
            )
            self.rows.add_page(page.items)
            await self._fetch_children(client)
        except Exception as exc:  # noqa: BLE001
            self._loading = False
            if self._table() is not None:
                self._status(f"error: {describe_error(exc)}")
            self.notify(
                f"Could not list conversations: {describe_error(exc)}",
                severity="error",
                markup=False,
            )
            return
        self._loading = False
        table = self._table()
        if table is None:  # closed while the page came
            return
        self._next_page = page.next_page_id
        self._redraw_rows()
        if self._cursor_id is not None and table.cursor_to(self._cursor_id):
            self._cursor_id = None
        self.server_known()
        if self.app.local:
            await self._count_events([conv.id for conv in page.items])

    async def _fetch_children(self, client) -> None:
        """Sub-conversations the loaded parents name, fetched by id (a few at most)."""
        missing = self.rows.missing_children()[:BATCH]
        if missing:
            found = await client.get_conversations(missing)
            self.rows.add_children(conv for conv in found if conv is not None)

    async def _count_events(self, ids: list[str]) -> None:
        """Local folders: how many events each row has (one cheap request per folder)."""
        counts = await asyncio.gather(
            *(self.app.client.count_events(cid) for cid in ids), return_exceptions=True
        )
        table = self._table()
        if table is None:
            return
        for cid, count in zip(ids, counts):
            if isinstance(count, int) and cid in table.rows:
                self._counts[cid] = count
                table.put_cell(cid, "sandbox", self._events_cell(cid))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        table = self.query_one(FittedTable)
        self._show_detail()
        self._chart()
        if self._next_page and not self._loading and event.cursor_row >= table.row_count - 10:
            self.more()

    @work(exclusive=True, group="conversations-more")
    async def more(self) -> None:
        await self._load_page(self._next_page)

    async def poll_statuses(self) -> None:
        """Fresh statuses and new conversations while the list is shown (every POLL_S)."""
        if not shown(self):
            return
        if self._loading or self._polling:
            if self.rows:
                self._redraw_rows()  # times tick meanwhile
            return
        self.refresh_rows()

    @work(exclusive=True, group="conversations-poll")
    async def refresh_rows(self, ids: list[str] | None = None) -> None:
        """Ask the server again: its first page (new conversations on top) and the other
        loaded rows by id. ``ids``: kept for callers that name rows; all are refreshed."""
        self._polling = True
        try:
            await self._refresh_rows()
        except Exception as exc:  # noqa: BLE001 - polling is best-effort; the next tick retries
            if self._table() is not None:
                self._redraw_rows()  # times still tick
                self._status(f"refresh failed: {describe_error(exc)}")
        finally:
            self._polling = False

    async def _refresh_rows(self) -> None:
        client = self.app.client
        before = {cid: conv.execution_status for cid, conv in self.rows.rows.items()}
        filter_now = self._filter
        page = await client.search_conversations(title_contains=filter_now or None, limit=PAGE)
        if filter_now != self._filter or self._loading:
            return  # the list was reloaded meanwhile: this answer is for another list
        first = {conv.id for conv in page.items}
        self.rows.refresh_first_page(page.items)
        rest = [cid for cid in self.rows.rows if cid not in first]
        for start in range(0, min(len(rest), BATCH * 3), BATCH):
            batch = rest[start : start + BATCH]
            found = await client.get_conversations(batch)
            for cid, conv in zip(batch, found):
                if conv is None:
                    self.rows.remove(cid)
                else:
                    self.rows.put(conv)
        await self._fetch_children(client)
        if self.app.local:  # folders being written: growing counts
            await self._count_events(list(self.rows.rows)[:BATCH])
        if self._table() is None:
            return
        self._redraw_rows()
        rows = self.rows.rows
        changes = [
            (cid, status_value(before[cid]), status_value(conv.execution_status))
            for cid, conv in rows.items()
            if cid in before
        ]
        news = [(cid, title_of(rows[cid]), old, new) for cid, old, new in changes]
        if tell_in_status_line(self.app, self._lately, news):
            self._status()

    # --- actions -------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "new":  # read-only, local folders, a server that cannot start one
            return self.can_start()
        if action == "sandbox_ids":
            return not self.app.local
        if action == "filter":  # typed into the field while it has the keys
            return not isinstance(self.focused, Input)
        if action == "order":  # the server's order is newest first, page by page
            return bool(self.sort)
        return True

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str | None:
        """Why a key refused by :meth:`check_action` does nothing (``refusals.py``)."""
        if action == "new":
            return self.why_not_start()
        if action == "sandbox_ids":
            return "Local folders have no sandboxes: there are no sandbox ids to show."
        if action == "order":
            return ORDER_REFUSED
        return None

    def action_open(self) -> None:
        self._open(self.query_one(FittedTable).current_key)

    async def open_current(self) -> None:
        """Open the row under the cursor; return once its screen is mounted."""
        opened = self._open(self.query_one(FittedTable).current_key)
        if opened is not None:
            await opened

    def _open(self, key: str | None) -> AwaitMount | None:
        conv = self.rows.get(key) if key is not None else None
        if conv is None:
            return None
        return self.app.open_conversation(conv.id, title=conv.title)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        # a click on a row (enter opens at once: ConversationsTable): the row it names
        self._open(event.row_key.value)

    def action_copy_id(self) -> None:
        conv = self.rows.get(self.query_one(FittedTable).current_key)
        if conv is None:
            self.notify("No conversation is selected: there is no id to copy.", markup=False)
            return
        self.app.copy_to_clipboard(conv.id)
        self.notify(f"Copied the id {one_line(conv.id, 80)}.", markup=False)

    def action_sandbox_ids(self) -> None:
        self._sandbox_ids = not self._sandbox_ids
        table = self.query_one(FittedTable)
        table.set_layout(self._layout())
        self._redraw_rows()

    def action_filter(self) -> None:
        row = self.query_one("#conv-filter-row")
        row.add_class("-visible")
        self.set_focus(self.query_one("#conv-filter", Input))  # now, not after queued keys

    @on(Input.Changed, "#conv-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.apply_filter(event.value)

    @on(Input.Submitted, "#conv-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.query_one(FittedTable).focus()

    @work(exclusive=True, group="conversations-filter")
    async def apply_filter(self, text: str) -> None:
        await asyncio.sleep(0.25)  # debounce: the server sees only what the user paused on
        self._filter = text.strip()
        self.reload()

    def action_clear_filter(self) -> None:
        box = self.query_one("#conv-filter", Input)
        self.query_one("#conv-filter-row").remove_class("-visible")
        self.query_one(FittedTable).focus()
        if box.value or self._filter:
            box.value = ""
            self._filter = ""
            self.reload()

    def action_refresh(self) -> None:
        self.reload()

    def select(self, conversation_id: str) -> bool:
        """Put the cursor on a conversation (False when it is not listed)."""
        table = self._table()
        return table is not None and table.cursor_to(conversation_id)
