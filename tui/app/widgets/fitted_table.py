"""A DataTable whose columns fit its width, relaid when the terminal is resized.

The table keeps every row's cells by column key, so a relayout (columns left out or
widened) rebuilds the rows from them without asking the screen; the cursor stays on
the same row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.text import Text
from textual import events
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from ..table_columns import Column

Cells = dict[str, Text]


class FittedTable(DataTable):
    DEFAULT_CSS = """
    FittedTable { border: round $foreground 25%; }
    FittedTable:focus { border: round $accent; }
    """

    def __init__(self, layout: Callable[[int], list[Column]], **options) -> None:
        super().__init__(**options)
        self._layout = layout
        self._shown: list[Column] = []
        self._cells: dict[str, Cells] = {}  # row key -> cells by column key (all columns)

    @property
    def shown_columns(self) -> list[Column]:
        return self._shown

    def on_mount(self) -> None:
        # the first layout has not sized the table yet; the screen is as wide as the terminal
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

    @property
    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def _ordered(self, cells: Cells) -> list[Text]:
        return [cells[column.key] for column in self._shown]

    def put_row(self, key: str, cells: Cells) -> None:
        """Add the row, or update its shown cells in place if it is there."""
        self._cells[key] = cells
        if key in self.rows:
            for column in self._shown:
                self.update_cell(key, column.key, cells[column.key])
        else:
            self.add_row(*self._ordered(cells), key=key)

    def put_cell(self, key: str, column: str, cell: Text) -> None:
        """Change one cell (kept for a relayout even while its column is left out)."""
        cells = self._cells.get(key)
        if cells is None:
            return
        cells[column] = cell
        if any(shown.key == column for shown in self._shown):
            self.update_cell(key, column, cell)

    def remove_row(self, row_key: RowKey | str) -> None:
        self._cells.pop(row_key.value if isinstance(row_key, RowKey) else row_key, None)
        super().remove_row(row_key)

    def clear(self, columns: bool = False) -> FittedTable:
        self._cells.clear()
        if columns:
            self._shown = []
        super().clear(columns=columns)
        return self
