"""The conversations table: lazily paged, filterable by title, live-refreshed."""

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

from tui.text import one_line

from ..format import (
    conversation_cost,
    money,
    relative_time,
    sandbox_text,
    short_model,
    status_text,
    status_value,
    title_of,
    tokens,
)
from ..messages import AgentStatusChanged
from ..table_columns import conversation_columns
from ..themes import theme_style
from ..widgets.fitted_table import FittedTable
from ..widgets.key_bar import KeyBar
from .errors import describe_error

if TYPE_CHECKING:
    from tui.models import AppConversation

PAGE = 50
POLL_S = 5.0


class ConversationsScreen(Screen):
    AUTO_FOCUS = "#conversations"
    BINDING_GROUP_TITLE = "Conversations"
    BINDINGS = [
        Binding("enter", "open", "Open", id="conversations.open"),
        Binding("slash", "filter", "Filter by title", id="conversations.filter"),
        Binding("n", "new", "New conversation", id="conversations.new"),
        Binding("ctrl+r", "refresh", "Refresh", id="conversations.refresh"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="conversations.clear"),
        Binding("j", "cursor_down", "Down", show=False, id="conversations.down"),
        Binding("k", "cursor_up", "Up", show=False, id="conversations.up"),
        Binding("g", "first", "First", show=False, id="conversations.first"),
        Binding("G", "last", "Last", show=False, id="conversations.last"),
    ]
    CSS_PATH = "conversations.tcss"

    def __init__(self) -> None:
        super().__init__()
        self._next_page: str | None = None
        self._loading = False
        self._rows: dict[str, AppConversation] = {}
        self._filter = ""
        #: local folders (``app.local``): events per conversation, shown where the sandbox would be
        self._counts: dict[str, int] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="conv-filter-row"):
            yield Input(
                placeholder="title contains… (enter to apply, esc to clear)", id="conv-filter"
            )
        local = self.app.local
        table = FittedTable(
            lambda width: conversation_columns(width, local=local),
            id="conversations",
            cursor_type="row",
            zebra_stripes=True,
        )
        yield table
        yield Static(id="conversations-status")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.border_title = "Conversations"
        table.focus()
        self.reload()
        self.set_interval(POLL_S, self.poll_statuses)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw_rows())

    def _redraw_rows(self) -> None:
        """Statuses have the theme's colours drawn in: a new theme draws the cells anew."""
        table = self.query_one(FittedTable)
        for conv in self._rows.values():
            table.put_row(conv.id, self._cells(conv))

    # --- loading -------------------------------------------------------------------------

    def _cells(self, conv: AppConversation) -> dict[str, Text]:
        now = self.app.clock()
        cost, used = conversation_cost(conv)
        return {
            "title": Text(title_of(conv), overflow="ellipsis", no_wrap=True),
            "agent": status_text(conv.execution_status, short=True),
            "sandbox": self._events_cell(conv.id) if self.app.local else sandbox_text(conv),
            # the routing prefix (litellm_proxy/, openai/) is noise here; the header has it all
            "model": Text(one_line(short_model(conv.llm_model) or "—", 40), style="dim"),
            "cost": Text(money(cost), justify="right"),
            "tokens": Text(tokens(used), justify="right"),
            "created": Text(relative_time(conv.created_at, now), style="dim"),
            "updated": Text(relative_time(conv.updated_at, now), style="dim"),
            "trigger": Text(one_line(status_value(conv.trigger) or "—", 20), style="dim"),
        }

    def _events_cell(self, conversation_id: str) -> Text:
        count = self._counts.get(conversation_id)
        return Text("…" if count is None else f"{count:,}", justify="right", style="dim")

    async def _count_events(self, ids: list[str]) -> None:
        """Local folders: how many events each row has (one cheap request per folder)."""
        counts = await asyncio.gather(
            *(self.app.client.count_events(cid) for cid in ids), return_exceptions=True
        )
        table = self.query_one(DataTable)
        for cid, count in zip(ids, counts):
            if isinstance(count, int) and cid in table.rows:
                self._counts[cid] = count
                table.put_cell(cid, "sandbox", self._events_cell(cid))

    async def _add_new(self) -> None:
        """Local folders: conversations that appeared since the list was loaded go on top."""
        page = await self.app.client.search_conversations(
            title_contains=self._filter or None, limit=PAGE
        )
        fresh = [conv for conv in page.items if conv.id not in self._rows]
        if not fresh:
            return
        self._rows = {conv.id: conv for conv in [*fresh, *self._rows.values()]}
        self.query_one(FittedTable).replace_rows(
            (conv.id, self._cells(conv)) for conv in self._rows.values()
        )
        self._status()

    @work(exclusive=True, group="conversations")
    async def reload(self) -> None:
        table = self._table()
        if table is None:
            return
        self._next_page = None
        self._rows.clear()
        table.clear()
        await self._load_page(None)

    def _table(self) -> DataTable | None:
        """The table, or None once the screen is closing (a late worker has nothing to fill)."""
        tables = self.query(DataTable) if self.is_attached else None
        return tables.first() if tables else None

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
        except Exception as exc:  # noqa: BLE001
            status.update(Text(f"error: {describe_error(exc)}", style=theme_style("$error bold")))
            self.notify(
                f"Could not list conversations: {describe_error(exc)}",
                severity="error",
                markup=False,
            )
            self._loading = False
            return
        table = self._table()
        if table is None:  # closed while the page came
            return
        for conv in page.items:
            if conv.id in self._rows:
                continue
            self._rows[conv.id] = conv
            table.put_row(conv.id, self._cells(conv))
        self._next_page = page.next_page_id
        self._loading = False
        self._status()
        if self.app.local:
            await self._count_events([conv.id for conv in page.items])

    def _status(self) -> None:
        shown = len(self._rows)
        more = " · more below" if self._next_page else ""
        flt = f" · title contains “{one_line(self._filter, 40)}”" if self._filter else ""
        keys = " · enter open · / filter" + ("" if self.app.local else " · n new")
        self.query_one("#conversations-status", Static).update(
            Text(f"{shown:,} conversation{'s' if shown != 1 else ''}{flt}{more}{keys}")
        )

    @on(DataTable.RowHighlighted)
    def _maybe_more(self, event: DataTable.RowHighlighted) -> None:
        table = self.query_one(DataTable)
        if self._next_page and not self._loading and event.cursor_row >= table.row_count - 10:
            self.more()

    @work(exclusive=True, group="conversations-more")
    async def more(self) -> None:
        await self._load_page(self._next_page)

    async def poll_statuses(self) -> None:
        """Refresh statuses of the loaded rows in place, keeping the cursor."""
        if not self._rows or not self.is_current:
            return
        self.refresh_rows(list(self._rows)[:99])

    @work(exclusive=True, group="conversations-poll")
    async def refresh_rows(self, ids: list[str]) -> None:
        try:
            found = await self.app.client.get_conversations(ids)
            if self.app.local:  # folders being written: new conversations, growing counts
                await self._add_new()
                await self._count_events(list(self._rows)[:99])
        except Exception:  # noqa: BLE001 - polling is best-effort; the next tick retries
            return
        table = self.query_one(DataTable)
        for conv in found:
            # the list may have been reloaded (a filter) while this poll was out: skip gone rows
            if conv is None or conv.id not in self._rows or conv.id not in table.rows:
                continue
            before = self._rows[conv.id]
            self._rows[conv.id] = conv
            self.post_message(
                AgentStatusChanged(
                    conv.id,
                    title_of(conv),
                    status_value(before.execution_status),
                    status_value(conv.execution_status),
                )
            )
            table.put_row(conv.id, self._cells(conv))

    # --- actions -------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "new" and self.app.local)  # local: the agent starts conversations

    def action_open(self) -> None:
        conv = self._rows.get(self.query_one(FittedTable).current_key)
        if conv is not None:
            self.app.open_conversation(conv.id, title=conv.title)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_filter(self) -> None:
        row = self.query_one("#conv-filter-row")
        row.add_class("-visible")
        self.query_one("#conv-filter", Input).focus()

    @on(Input.Changed, "#conv-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.apply_filter(event.value)

    @on(Input.Submitted, "#conv-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    @work(exclusive=True, group="conversations-filter")
    async def apply_filter(self, text: str) -> None:
        await asyncio.sleep(0.25)  # debounce: the server sees only what the user paused on
        self._filter = text.strip()
        self.reload()

    def action_clear_filter(self) -> None:
        box = self.query_one("#conv-filter", Input)
        self.query_one("#conv-filter-row").remove_class("-visible")
        self.query_one(DataTable).focus()
        if box.value or self._filter:
            box.value = ""
            self._filter = ""
            self.reload()

    def action_refresh(self) -> None:
        self.reload()

    def action_new(self) -> None:
        from .new_conversation import NewConversationScreen

        def done(conversation_id: str | None) -> None:
            if conversation_id:
                self.reload()
                self.app.open_conversation(conversation_id)

        self.app.push_screen(NewConversationScreen(), done)

    def action_cursor_down(self) -> None:
        self.query_one(DataTable).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(DataTable).action_cursor_up()

    def action_first(self) -> None:
        self.query_one(DataTable).move_cursor(row=0)

    def action_last(self) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=table.row_count - 1)
