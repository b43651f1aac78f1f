"""A DataTable whose columns fit its width, relaid when the terminal is resized.

The table keeps every row's cells by column key, so a relayout (columns left out or
widened) rebuilds the rows from them without asking the screen; the cursor stays on
the same row, by its key, through a relayout, a refresh and a reordering. Every table of
the app moves the same way: j/k, g/G and home/end (first and last row).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from tui.app.tables.table_columns import Column

Cells = dict[str, Text]


def middle_cut(cell: Text, width: int) -> Text:
    """``oh-agent-se…oFoCWUDMmeU``: the start and the end of a too long id, whole cells."""
    plain = cell.plain
    keep = max(1, width - 1)
    head = keep // 3
    tail = keep - head
    return Text(plain[:head] + "…" + plain[len(plain) - tail :], style=cell.style)


def same(old: Text | None, new: Text) -> bool:
    """Drawn alike (rich's ``Text ==`` ignores the base style: a theme change would stick)."""
    return (
        old is not None
        and old.plain == new.plain
        and old.style == new.style
        and old.spans == new.spans
        and old.justify == new.justify
    )


class FittedTable(DataTable):
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("g,home", "first", "First row", show=False, id="table.first"),
        Binding("G,end", "last", "Last row", show=False, id="table.last"),
    ]
    DEFAULT_CSS = """
    FittedTable { border: round $foreground 25%; }
    FittedTable:focus { border: round $accent; }
    """

    def __init__(
        self, layout: Callable[[int], list[Column]], *, middle: Iterable[str] = (), **options
    ) -> None:
        super().__init__(**options)
        self._layout = layout
        #: columns cut in the middle (ids: their ends tell them apart), not at the end
        self._middle = frozenset(middle)
        self._shown: list[Column] = []
        self._cells: dict[str, Cells] = {}  # row key -> cells by column key (all columns)

    @property
    def shown_columns(self) -> list[Column]:
        return self._shown

    def on_mount(self) -> None:
        # the first layout has not sized the table yet; the screen is as wide as the terminal
        self.fit(self.outer_size.width or self.app.size.width)

    def set_layout(self, layout: Callable[[int], list[Column]]) -> None:
        """Lay the columns out another way (e.g. a wider column), the cursor kept."""
        self._layout = layout
        self._shown = []
        self.fit(self.outer_size.width or self.app.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(self.outer_size.width)

    def fit(self, width: int) -> None:
        columns = self._layout(width)
        if columns == self._shown:
            return
        current = self.current_key
        self._shown = columns
        super().clear(columns=True)
        for column in columns:
            self.add_column(column.label, key=column.key, width=column.width)
        for key, cells in self._cells.items():
            self.add_row(*self._ordered(cells), key=key)
        self._cursor_to(current)

    def replace_rows(self, rows: Iterable[tuple[str, Cells]]) -> None:
        """Every row anew, in this order; the cursor stays on its row if that is still there."""
        current = self.current_key
        self.clear()
        for key, cells in rows:
            self.put_row(key, cells)
        self._cursor_to(current)

    def _cursor_to(self, key: str | None) -> None:
        if key in self.rows:
            self.move_cursor(row=self.get_row_index(key))

    def cursor_to(self, key: str | None) -> bool:
        """Put the cursor on the row ``key`` (False when there is no such row)."""
        if key not in self.rows:
            return False
        self._cursor_to(key)
        return True

    @property
    def keys(self) -> list[str]:
        """The row keys, top to bottom."""
        return [row.key.value for row in self.ordered_rows]

    def visible_keys(self) -> list[str]:
        """The keys of the rows in view (one line each), top to bottom: what a poll reads
        again when the table holds more rows than a page of the server's list."""
        first = int(self.scroll_y)
        return [row.key.value for row in self.ordered_rows[first : first + self.size.height]]

    def action_first(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)

    @property
    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def _fitted(self, column: Column, cell: Text) -> Text:
        if column.key in self._middle and cell.cell_len > column.width:
            return middle_cut(cell, column.width)
        return cell

    def _ordered(self, cells: Cells) -> list[Text]:
        return [self._fitted(column, cells[column.key]) for column in self._shown]

    def put_row(self, key: str, cells: Cells) -> None:
        """Add the row, or update the shown cells that changed if it is there."""
        before = self._cells.get(key)
        self._cells[key] = cells
        if key in self.rows:
            for column in self._shown:
                cell = cells[column.key]
                if before is None or not same(before.get(column.key), cell):
                    self.update_cell(key, column.key, self._fitted(column, cell))
        else:
            self.add_row(*self._ordered(cells), key=key)

    def put_cell(self, key: str, column: str, cell: Text) -> None:
        """Change one cell (kept for a relayout even while its column is left out)."""
        cells = self._cells.get(key)
        if cells is None:
            return
        cells[column] = cell
        for shown in self._shown:
            if shown.key == column:
                self.update_cell(key, column, self._fitted(shown, cell))

    def remove_row(self, row_key: RowKey | str) -> None:
        self._cells.pop(row_key.value if isinstance(row_key, RowKey) else row_key, None)
        super().remove_row(row_key)

    def clear(self, columns: bool = False) -> FittedTable:
        self._cells.clear()
        if columns:
            self._shown = []
        super().clear(columns=columns)
        return self
