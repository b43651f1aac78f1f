"""The board's list: one line per row, drawn with the Line API.

Only the lines on screen are drawn (``render_line``), from plain :class:`BoardRow` data the
feed changes in place; the first line is the column header, which stays put while the rows
scroll under it. The columns fit the width (``board.model.board_columns``). The cursor
stays on its row (by key) when the order changes, so an action never lands on a row that
moved under it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.board.model import BY_KEY, board_columns
from tui.app.board.row import BoardRow
from tui.app.format import STATUS_STYLES
from tui.app.tables.table_columns import Column
from tui.app.textual_compat import resize_scrollable
from tui.app.themes import theme_style
from tui.app.widgets.board.board_cells import fit_cells, row_cells
from tui.app.widgets.common.cursor_moves import CursorMoves
from tui.lru import LRU
from tui.text import one_line

GUTTER = 3  # mark, flag, space
STRIPS = 600  # drawn rows kept (a screenful changes every second: a few seconds' worth)
RIGHT = frozenset({"steps", "elapsed", "cost", "tokens", "rate", "token_rate"})


class BoardTable(CursorMoves, ScrollView, can_focus=True, inherit_bindings=False):
    """The board's rows; the screen gives them (``set_rows``) and acts on the cursor's."""

    HEADER_LINES = 1  # the column titles: line 0, above the rows

    BINDING_GROUP_TITLE = "Board"
    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False, id="board-list.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="board-list.down"),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False, id="board-list.page-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="board-list.page-down"),
        Binding("home,g", "first", "First", show=False, id="board-list.first"),
        Binding("end,G", "last", "Last", show=False, id="board-list.last"),
    ]
    COMPONENT_CLASSES = {
        "board-table--header",
        "board-table--sorted",
        "board-table--cursor",
        "board-table--marked",
        "board-table--mark",
        "board-table--live",
        "board-table--dim",
        "board-table--error",
        "board-table--failure",
        "board-table--empty",
    }
    DEFAULT_CSS = """
    BoardTable {
        background: $surface;
        border: round $foreground 25%;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    BoardTable:focus { border: round $accent; }
    BoardTable > .board-table--header { color: $text-muted; text-style: bold; }
    BoardTable > .board-table--sorted { color: $accent; text-style: bold; }
    BoardTable > .board-table--cursor { background: $block-cursor-blurred-background; }
    BoardTable:focus > .board-table--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground;
    }
    BoardTable > .board-table--marked { background: $accent 25%; }
    BoardTable > .board-table--mark { color: $accent; text-style: bold; }
    BoardTable > .board-table--live { color: $live-ok; }
    BoardTable > .board-table--dim { color: $text-disabled; }
    BoardTable > .board-table--error { color: $error; }
    BoardTable > .board-table--failure { color: $error; text-style: bold; }
    BoardTable > .board-table--empty { color: $text-disabled; text-style: italic; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)

    @dataclass
    class HeaderClicked(Message):
        """A column's title was clicked: sort by it."""

        column: str

    def __init__(
        self,
        *,
        now: Callable[[], datetime],
        moment: Callable[[], float],
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._now = now  # the app's clock: times in a status, elapsed
        self._moment = moment  # monotonic: rates
        self.rows: list[BoardRow] = []
        self.marks: set[tuple[str, str]] = set()
        self.servers = False  # several servers: their column is shown
        self.sort = "status"
        self.reverse = False
        self.empty_text = "No active conversations."
        self._cursor_key: tuple[str, str] | None = None
        self._columns: list[Column] = []
        self._layout_for: tuple[int, bool] | None = None
        self._drawn: tuple[object, int, list[object]] | None = None  # what the lines show
        self._strips: LRU[tuple[object, ...], Strip] = LRU(STRIPS)
        self._shown_sigs: dict[int, tuple[object, ...]] = {}  # line index → what it shows
        self._server_shown = False
        self._styles: dict[str, Style] = {}

    # --- data ----------------------------------------------------------------------------

    @property
    def current(self) -> BoardRow | None:
        rows = self.rows
        return rows[self.cursor] if 0 <= self.cursor < len(rows) else None

    def set_rows(
        self,
        rows: list[BoardRow],
        *,
        marks: set[tuple[str, str]],
        servers: bool,
        sort: str,
        reverse: bool,
    ) -> None:
        """Show ``rows`` (in this order); the cursor stays on its row if it is still there."""
        self.rows, self.marks, self.servers = rows, marks, servers
        self.sort, self.reverse = sort, reverse
        key = self._cursor_key
        index = next((i for i, row in enumerate(rows) if row.key == key), None)
        self._resize_virtual()
        if index is None:
            self.cursor = min(self.cursor, max(0, len(rows) - 1))
        elif index != self.cursor:
            self.cursor = index
        self._cursor_key = self.current.key if self.current else None
        self._repaint_changed()

    def _repaint_changed(self) -> None:
        """Repaint the lines whose row changed (all of them when the view moved or the
        header did): a board of agents changes a few rows at a time, many times a minute."""
        top, height = int(self.scroll_offset.y), max(0, self.size.height - 1)
        header = (self.sort, self.reverse, self.servers, len(self.rows) > 0)
        marks = self.marks
        seen = [(row.key, row.version, row.key in marks) for row in self.rows[top : top + height]]
        drawn, self._drawn = self._drawn, (header, top, seen)
        if drawn is None or drawn[:2] != (header, top) or len(drawn[2]) != len(seen):
            self.refresh()
            return
        for offset, (was, now) in enumerate(zip(drawn[2], seen)):
            if was != now:
                self.refresh_lines(top + offset + 1)

    def _resize_virtual(self) -> None:
        resize_scrollable(self, Size(self.size.width, len(self.rows) + 1))

    def on_resize(self) -> None:
        self._strips.clear()
        self.virtual_size = Size(self.size.width, len(self.rows) + 1)
        self._keep_visible(self.cursor)

    # --- columns -------------------------------------------------------------------------

    @property
    def columns(self) -> list[Column]:
        width = self.size.width
        if self._layout_for != (width, self.servers):
            # fit_columns allows 4 cells of border and scrollbar; ours take 3 (the border's
            # two are outside the content region), and the gutter is ours
            self._columns = board_columns(width + 4 - 1 - GUTTER, servers=self.servers)
            self._layout_for = (width, self.servers)
            self._server_shown = any(column.key == "server" for column in self._columns)
        return self._columns

    def column_at(self, x: int) -> str | None:
        at = GUTTER
        for column in self.columns:
            if at <= x < at + column.width + 2:
                return column.key
            at += column.width + 2
        return None

    # --- drawing ---------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    @property
    def _base(self) -> Style:
        """The widget's own style (``rich_style`` works it out anew each time: ~0.1 ms)."""
        base = self._styles.get("")
        if base is None:
            base = self._styles[""] = self.rich_style
        return base

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            if name.startswith("status:"):
                spec = STATUS_STYLES.get(name[7:])
                style = self._base + (theme_style(spec) if spec else Style())
            else:
                component = f"board-table--{name}"
                if name in ("cursor", "marked"):  # laid over a cell's own: what it sets only,
                    part = self.get_component_rich_style(component, partial=True)
                    whole = self.get_component_rich_style(component)  # (alpha blended)
                    style = Style(
                        color=whole.color if part.color else None,
                        bgcolor=whole.bgcolor if part.bgcolor else None,
                        bold=part.bold,
                    )
                else:  # whole, so colours with alpha ($text-muted…) are blended
                    style = self._base + self.get_component_rich_style(component)
            self._styles[name] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y == 0:
            return self._header(width)
        index = self.scroll_offset.y + y - 1
        rows = self.rows
        if index >= len(rows):
            if not rows and y == 1:
                text = Segment(f"  {self.empty_text}", self._style("empty"))
                return Strip([text]).adjust_cell_length(width, self._base)
            return Strip.blank(width, self._base)
        row = rows[index]
        sig = self._signature(row, index)
        self._shown_sigs[index] = sig
        strip = self._strips.get(sig)
        if strip is None:
            strip = self._row(row, width, index == self.cursor)
            self._strips.set(sig, strip)
        return strip

    def _signature(self, row: BoardRow, index: int) -> tuple[object, ...]:
        """What a row's line shows: the same signature, the same line (times move on by
        the second, so a line is drawn again only when what it says changed)."""
        columns = self.columns  # laid out for this width first
        if row.failure is not None:
            cells: tuple[object, ...] = (row.failure,)
        else:
            texts = self._cells(row)
            cells = tuple(texts[column.key] for column in columns)
        return (
            row.key,
            index == self.cursor,
            row.key in self.marks,
            self._flag(row).text,
            self._layout_for,
            cells,
        )

    def refresh_times(self) -> None:
        """Repaint the lines whose text moved on with the clock (times, rates) only."""
        top, height = int(self.scroll_offset.y), max(0, self.size.height - 1)
        rows, shown = self.rows, self._shown_sigs
        for index in range(top, min(len(rows), top + height)):
            if shown.get(index) != self._signature(rows[index], index):
                self.refresh_lines(index + 1)

    def _header(self, width: int) -> Strip:
        segments = [Segment(" " * GUTTER, self._style("header"))]
        for column in self.columns:
            label = column.label
            style = self._style("header")
            if column.key == self.sort:
                label += " ▲" if (BY_KEY[column.key].descending == self.reverse) else " ▼"
                style = self._style("sorted")
            text = fit_cells(label, column.width, column.key in RIGHT)
            segments.append(Segment(f" {text} ", style))
        return Strip(segments).adjust_cell_length(width, self._base)

    def _cells(self, row: BoardRow) -> dict[str, tuple[str, str]]:
        """Each column's text and style name for ``row``."""
        source_in_title = self.servers and not self._server_shown  # no room for its column
        return row_cells(row, self._now(), self._moment(), source_in_title)

    def _row(self, row: BoardRow, width: int, is_cursor: bool) -> Strip:
        base = self._base
        marked = row.key in self.marks
        segments = [
            Segment("●" if marked else " ", self._style("mark")),
            self._flag(row),
            Segment(" ", base),
        ]
        if row.failure is not None:
            segments.extend(self._failure(row, width))
        else:
            cells = self._cells(row)
            for column in self.columns:
                text, style = cells[column.key]
                fitted = fit_cells(text, column.width, column.key in RIGHT)
                segments.append(Segment(f" {fitted} ", self._style(style) if style else base))
        over = self._style("cursor") if is_cursor else self._style("marked") if marked else None
        if over is not None:
            segments = [Segment(seg.text, (seg.style or base) + over) for seg in segments]
            return Strip(segments).adjust_cell_length(width, base + over)
        return Strip(segments).adjust_cell_length(width, base)

    def _flag(self, row: BoardRow) -> Segment:
        if row.failure is not None:
            return Segment("✗", self._style("failure"))
        if row.needs_human:
            return Segment("!", self._style(f"status:{row.status}"))
        if row.followed:
            return Segment("•", self._style("live"))
        return Segment(" ", self._base)

    def _failure(self, row: BoardRow, width: int) -> list[Segment]:
        """What went wrong with the server, and what to do, on the rest of the line."""
        failure = row.failure
        assert failure is not None
        parts = [failure.title]
        if failure.next_step:
            parts.append(f"next: {failure.next_step}")
        if failure.detail and failure.detail != failure.title:
            parts.append(failure.detail)
        text = one_line(" — ".join(parts), 1000)
        out = []
        used = GUTTER + 1
        if self._server_shown:
            cell = f" {fit_cells(row.source, self.columns[0].width)} "
            out.append(Segment(cell, self._base))
            used += len(cell)
        elif self.servers:
            text = f"{row.source} · {text}"
        out.append(Segment(" " + fit_cells(text, width - used - 1), self._style("failure")))
        return out

    # --- cursor --------------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self.rows) - 1)) if self.rows else 0

    def watch_cursor(self, old: int, new: int) -> None:
        self._cursor_key = self.current.key if self.current else None
        self.refresh_lines(old + 1)  # virtual lines: the header is line 0
        self.refresh_lines(new + 1)
        self._keep_visible(new)

    def action_last(self) -> None:
        self.cursor = len(self.rows) - 1

    def on_click(self, event) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            column = self.column_at(offset.x)
            if column is not None:
                self.post_message(self.HeaderClicked(column))
            return
        self.cursor = int(self.scroll_offset.y) + offset.y - 1
