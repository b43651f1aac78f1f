"""The conversations list sorted by a figure, with its cost chart, pinned at 80×24 (the chart
toggled on with ``$``, the sorted column kept) and at 160×48 (the chart shown by default)."""

from __future__ import annotations

from tests.helpers.app_helpers import DEMO_ROWS, conversations_shown, make_app, settled, wait_for
from tui.app.widgets.charts.cost_chart import CostChart


async def listed(pilot) -> None:
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    table = app.screen.query_one("#conversations")
    await wait_for(lambda: table.row_count >= DEMO_ROWS, pilot=pilot)


def test_sorted_by_cost_with_the_chart_at_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        await listed(pilot)
        await pilot.press("s", "down", "dollar_sign")
        chart = pilot.app.screen.query_one(CostChart)
        await wait_for(lambda: chart.display and chart.selected == 1, pilot=pilot)
        await settled(pilot)

    app = make_app(demo_server.base_url)
    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))


def test_sorted_by_duration_shortest_first_at_160x48(snap_compare, demo_server):
    async def run_before(pilot):
        await listed(pilot)
        await pilot.press("s", "s", "s", "o")
        chart = pilot.app.screen.query_one(CostChart)
        await wait_for(lambda: chart.display and len(chart.costs) == DEMO_ROWS, pilot=pilot)
        await settled(pilot)

    app = make_app(demo_server.base_url)
    assert snap_compare(app, run_before=run_before, terminal_size=(160, 48))
