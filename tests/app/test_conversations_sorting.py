"""The conversations list sorted by cost, tokens or duration, and its cost chart (issue 20).

Figures come only from what the server says (its metrics snapshot, its timestamps); an
unknown figure is shown as unknown and sorts last whichever way the list is turned.
"""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import DEMO_ROWS, conversations_shown, make_app, settled, wait_for
from tui.app.tables.conversation_rows import ConversationRows, conversation_cells
from tui.app.tables.conversation_sort import (
    conversation_duration,
    short_duration,
    sort_line,
    sort_value,
    sorter,
)
from tui.app.widgets.charts.cost_chart import CostChart
from tui.models import AppConversation
from tui.models.control import MetricsSnapshot, TokenUsage


def conv(
    cid: str, cost: float | None, tokens: int | None = None, span_s: int | None = None, **extra
) -> AppConversation:
    metrics = None
    if cost is not None:
        usage = (
            TokenUsage(prompt_tokens=tokens, completion_tokens=0) if tokens is not None else None
        )
        metrics = MetricsSnapshot(accumulated_cost=cost, accumulated_token_usage=usage)
    times = {}
    if span_s is not None:
        times = {
            "created_at": "2026-11-21T10:00:00+00:00",
            "updated_at": f"2026-11-21T10:{span_s // 60:02d}:{span_s % 60:02d}+00:00",
        }
    return AppConversation(id=cid, sandbox_id="s", metrics=metrics, **times, **extra)


def test_duration_is_the_servers_span_and_unknown_without_both_times():
    assert conversation_duration(conv("a", 1.0, span_s=95)) == 95
    assert conversation_duration(conv("b", 1.0)) is None
    backwards = conv("c", 1.0, created_at="2026-11-21T11:00:00Z", updated_at="2026-11-21T10:00:00Z")
    assert conversation_duration(backwards) is None
    assert [short_duration(s) for s in (None, 0, 59, 95, 3600 * 5 + 60 * 7, 86400 * 3 + 3600)] == [
        "—",
        "0s",
        "59s",
        "1m35s",
        "5h07m",
        "3d1h",
    ]


def test_cells_tell_a_known_zero_from_unknown():
    cells = conversation_cells(conv("a", 0.0, tokens=0, span_s=0))
    assert (cells["cost"].plain, cells["tokens"].plain, cells["duration"].plain) == (
        "$0.00",
        "0",
        "0s",
    )
    unknown = conversation_cells(conv("b", None))
    assert (unknown["cost"].plain, unknown["tokens"].plain, unknown["duration"].plain) == (
        "—",
        "—",
        "—",
    )


def test_sorting_puts_unknown_last_both_ways_and_keeps_sub_conversations_under_parents():
    rows = ConversationRows()
    rows.add_page(
        [
            conv("cheap", 0.5, tokens=10, span_s=300),
            conv("unknown", None),
            conv("dear", 3.0, tokens=5, span_s=20, sub_conversation_ids=["child"]),
            conv("mid", 1.0, tokens=None, span_s=60),
        ]
    )
    rows.add_children([conv("child", 9.0, parent_conversation_id="dear")])
    assert [cid for cid, _ in rows.order(sorter("cost", False))] == [
        "dear",
        "child",
        "mid",
        "cheap",
        "unknown",
    ]
    assert [cid for cid, _ in rows.order(sorter("cost", True))] == [
        "cheap",
        "mid",
        "dear",
        "child",
        "unknown",
    ]
    assert [cid for cid, _ in rows.order(sorter("tokens", False))][:2] == ["cheap", "dear"]
    assert [cid for cid, _ in rows.order(sorter("tokens", False))][-2:] == ["unknown", "mid"]
    assert next(cid for cid, _ in rows.order(sorter("duration", True))) == "dear"
    assert [cid for cid, _ in rows.order()] == ["cheap", "unknown", "dear", "child", "mid"]
    assert sort_line("cost", False) == "sorted by cost, biggest first"
    assert sort_line("duration", True) == "sorted by duration, shortest first"
    with pytest.raises(ValueError):
        sort_value(conv("a", 1.0), "title")


def column_keys(table) -> list[str]:
    return [column.key.value for column in table.ordered_columns]


async def test_s_sorts_by_cost_tokens_duration_and_the_column_shows_even_at_80x24(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        screen = app.screen
        table = screen.query_one("#conversations")
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)
        assert "cost" not in column_keys(table)
        assert not screen.query_one(CostChart).display  # 80×24: the table keeps its rows
        await pilot.press("down")
        chosen = table.current_key
        server_order = table.keys
        await pilot.press("s")
        assert "cost" in column_keys(table) and table.ordered_columns[3].label.plain == "Cost ▼"
        top = [cid for cid in table.keys if not screen._rows[cid].parent_conversation_id]
        costs = [sort_value(screen._rows[cid], "cost") for cid in top]
        assert costs == sorted(costs, reverse=True)
        assert table.current_key == chosen  # the cursor stays on its conversation
        assert "sorted by cost, biggest first" in str(
            screen.query_one("#conversations-status").render()
        )
        await pilot.press("o")
        top = [cid for cid in table.keys if not screen._rows[cid].parent_conversation_id]
        assert [sort_value(screen._rows[cid], "cost") for cid in top] == sorted(costs)
        await pilot.press("s")
        assert "tokens" in column_keys(table) and "cost" not in column_keys(table)
        await pilot.press("s")
        durations = [
            sort_value(screen._rows[cid], "duration")
            for cid in table.keys
            if not screen._rows[cid].parent_conversation_id
        ]
        assert durations == sorted(durations, reverse=True)
        await pilot.press("s")  # back to the server's order
        assert table.keys == server_order and "duration" not in column_keys(table)
        await pilot.press("dollar_sign")
        chart = screen.query_one(CostChart)
        assert chart.display and chart.selected == table.cursor_row
        assert chart.costs == [sort_value(screen._rows[cid], "cost") for cid in table.keys]
        await pilot.press("dollar_sign")
        assert not chart.display


async def test_the_chart_shows_by_default_on_a_big_screen_and_follows_the_cursor(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        screen = app.screen
        table = screen.query_one("#conversations")
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)
        chart = screen.query_one(CostChart)
        await wait_for(lambda: chart.display and len(chart.costs) == DEMO_ROWS, pilot=pilot)
        await pilot.press("down", "down")
        assert chart.selected == 2 and "row 3:" in str(chart.border_title)
        await pilot.click("#conversations", offset=(112, 1))  # the Duration column's title
        assert screen.sort == "duration" and not screen.reverse
        assert chart.costs == [sort_value(screen._rows[cid], "cost") for cid in table.keys]


async def test_the_chart_says_how_many_costs_are_unknown():
    from textual.app import App

    class One(App):
        def compose(self):
            yield CostChart()

    async with One().run_test(size=(80, 14)) as pilot:
        chart = pilot.app.query_one(CostChart)
        chart.show([2.0, None, 0.5], selected=1)
        await settled(pilot)
        assert chart.border_title == "Cost per conversation ($) by row · $2.50 in all · 1 unknown"
        chart.show([None, None], selected=0)
        await settled(pilot)
        assert "gives no cost" in chart.border_title


async def test_a_chart_of_zero_costs_says_so_rather_than_draw_nothing():
    from textual.app import App

    class One(App):
        def compose(self):
            yield CostChart()

    async with One().run_test(size=(80, 14)) as pilot:
        chart = pilot.app.query_one(CostChart)
        chart.show([0.0, 0.0, None], selected=0)
        await settled(pilot)
        assert chart.border_title == (
            "Cost per conversation: $0.00 for each of the 2 with a cost · 1 unknown"
        )
