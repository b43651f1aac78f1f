"""The conversations list's cost chart: one bar per listed conversation, in the list's order.

Bars stand in the table's order (sorted by cost, they fall from left to right), numbered as
the rows are, and the selected conversation's bar has the accent colour, so a bar and its row
are found from each other without a title in the plot: only numbers reach the plot, never
untrusted text. A conversation whose cost the server does not give has no bar, and the
chart's title says how many those are (unknown, not $0).

The plot (``textual-plotext``, ~16 ms of imports) is made when the chart is first shown: at
80×24 the chart is hidden until asked for, and the list's first paint need not wait for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.color import Color
from textual.containers import Vertical

from tui.app.format import money

if TYPE_CHECKING:
    from textual_plotext import PlotextPlot


class CostChart(Vertical):
    """Cost per conversation of the listed rows (the screen calls :meth:`show`): a framed
    plot whose frame's title sums it up (the plot draws over its whole region, so the frame
    is this box's)."""

    DEFAULT_CSS = """
    CostChart { height: 11; border: round $foreground 25%; }
    CostChart > PlotextPlot { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.costs: list[float | None] = []
        self.selected: int | None = None
        self._plot: PlotextPlot | None = None  # made when first shown

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw())

    def on_resize(self) -> None:
        self.redraw()

    def show(self, costs: list[float | None], selected: int | None) -> None:
        """The listed rows' costs, top to bottom, and the cursor's row (redrawn only when
        something changed: the list polls every few seconds)."""
        if costs == self.costs and selected == self.selected:
            return
        self.costs, self.selected = list(costs), selected
        if self.display:
            self.redraw()

    async def on_show(self) -> None:
        if self._plot is None:
            from textual_plotext import PlotextPlot

            self._plot = PlotextPlot()
            await self.mount(self._plot)
            self.call_after_refresh(self.redraw)  # its ticks need its laid-out width
        self.redraw()

    def _colour(self, variable: str) -> tuple[int, int, int]:
        variables = self.app.theme_variables
        value = variables.get(variable) or variables.get("foreground") or "#888888"
        return Color.parse(value).rgb

    def redraw(self) -> None:
        plot = self._plot
        if plot is None or not plot.is_mounted:
            return  # drawn when first shown
        plot.plt.clear_figure()
        self._draw(plot)
        plot.refresh()

    def _draw(self, plot: PlotextPlot) -> None:
        plt = plot.plt
        known = [(row, cost) for row, cost in enumerate(self.costs, 1) if cost is not None]
        unknown = len(self.costs) - len(known)
        if not known:
            self.border_title = (
                "Cost per conversation: none listed"
                if not self.costs
                else "Cost per conversation: the server gives no cost for the listed ones"
            )
            return
        if not any(cost for _, cost in known):  # nothing to draw: say it instead
            title = f"Cost per conversation: $0.00 for each of the {len(known)} with a cost"
            self.border_title = title + (f" · {unknown} unknown" if unknown else "")
            return
        others = [(row, cost) for row, cost in known if row - 1 != self.selected]
        if others:
            plt.bar(
                [row for row, _ in others],
                [cost for _, cost in others],
                color=self._colour("primary"),
                width=0.6,
            )
        chosen = [(row, cost) for row, cost in known if row - 1 == self.selected]
        if chosen:
            plt.bar([chosen[0][0]], [chosen[0][1]], color=self._colour("accent"), width=0.6)
        plt.xlim(0.4, len(self.costs) + 0.6)
        count = len(self.costs)
        room = max(2, plot.size.width // 6)
        step = next((s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500) if count / s <= room), 1000)
        ticks = [1, *range(step, count + 1, step)] if step > 1 else list(range(1, count + 1))
        plt.xticks(ticks, [str(t) for t in ticks])
        plt.ylim(0, max(cost for _, cost in known) or 1)
        title = f"Cost per conversation ($) by row · {money(sum(c for _, c in known))} in all"
        if unknown:
            title += f" · {unknown} unknown"
        if chosen:
            title += f" · row {chosen[0][0]}: {money(chosen[0][1])}"
        self.border_title = title
