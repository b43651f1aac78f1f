"""Sorting the conversations list by the server's figures, and the cost chart under it.

A mixin of :class:`~.conversations.ConversationsScreen` (which owns the table, the rows and
``_redraw_rows``): ``s`` steps through the orders (the server's, then cost, tokens,
duration, biggest first), ``o`` turns the order round, a click on a column's title sorts by
it. The sorted column is never left out of a narrow table. ``$`` shows or hides the chart
of the listed rows' costs; by default it is shown only where the table keeps its room.
"""

from __future__ import annotations

from textual.widgets import DataTable

from tui.app.tables.conversation_sort import SORT_KEYS, sort_value
from tui.app.widgets.charts.cost_chart import CostChart
from tui.app.widgets.common.fitted_table import FittedTable

#: the chart is shown by default only on a screen at least this big (cells): at 80×24 the
#: table keeps every row; ``$`` shows it anywhere
CHART_ROOM = (120, 40)
CHART_HEIGHT = 11
SHORT_CHART_HEIGHT = 8  # on a short screen, shown by ``$``: the table keeps more rows
#: why ``o`` does nothing in the server's order (it is newest first, page by page)
ORDER_REFUSED = (
    "The list is in the server's order, newest first: s sorts it by cost, tokens or duration,"
    " then o turns that order round."
)


class SortedList:
    """Sort state and the chart for the conversations screen."""

    #: the column the rows are sorted by ("": the server's order) and which way
    sort = ""
    reverse = False
    #: the cost chart shown or hidden by ``$`` (None: as the screen's size decides)
    _chart_wanted: bool | None = None

    def action_sort(self) -> None:
        """The next order: the server's, then by cost, tokens, duration (biggest first)."""
        self.sort_by(SORT_KEYS[(SORT_KEYS.index(self.sort) + 1) % len(SORT_KEYS)])

    def action_order(self) -> None:
        if self.sort:
            self.sort_by(self.sort, reverse=not self.reverse)

    def sort_by(self, key: str, *, reverse: bool = False) -> None:
        self.sort, self.reverse = key, reverse
        table = self.query_one(FittedTable)
        table.set_layout(self._layout())
        self._redraw_rows()
        table.move_cursor(row=table.cursor_row, scroll=True)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        """A click on Cost, Tokens or Duration sorts by it; again, the other way round."""
        key = event.column_key.value
        if key in SORT_KEYS:
            self.sort_by(key, reverse=not self.reverse if key == self.sort else False)

    def action_cost_chart(self) -> None:
        chart = self.query_one(CostChart)
        self._chart_wanted = not chart.display
        self._place_chart()

    def on_resize(self) -> None:
        self._place_chart()

    def _place_chart(self) -> None:
        wanted = self._chart_wanted
        width, height = self.app.size
        if wanted is None:
            wanted = width >= CHART_ROOM[0] and height >= CHART_ROOM[1]
        chart = self.query_one(CostChart)
        chart.styles.height = CHART_HEIGHT if height >= CHART_ROOM[1] else SHORT_CHART_HEIGHT
        if chart.display != wanted:
            chart.display = wanted
            self._chart()

    def _chart(self) -> None:
        """The chart follows the table: its rows' costs in order, the cursor's bar marked."""
        table = self._table()
        if table is None:
            return
        chart = self.query_one(CostChart)
        if not chart.display:
            return
        rows = self.rows.rows
        costs = [sort_value(rows[key], "cost") if key in rows else None for key in table.keys]
        chart.show(costs, table.cursor_row if table.row_count else None)
