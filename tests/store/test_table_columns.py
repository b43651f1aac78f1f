"""The conversations table's columns fit the terminal: the title takes what is left."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from tests.helpers.app_helpers import (
    DEMO_ROWS,
    SIZE,
    conversations_shown,
    make_app,
    settled,
    wait_for,
)
from tui.app.format import short_model, status_text
from tui.app.tables.table_columns import CELL_PADDING, CHROME, conversation_columns, sandbox_columns


def used(columns) -> int:
    return CHROME + sum(column.width + CELL_PADDING for column in columns)


@pytest.mark.parametrize("width", [80, 100, 120, 140, 160, 200, 260])
def test_columns_fill_the_width_exactly(width):
    columns = conversation_columns(width)
    assert columns[0].key == "title" and used(columns) == width


def test_wider_terminals_show_more_and_longer():
    keys = {width: [c.key for c in conversation_columns(width)] for width in (80, 120, 160)}
    assert keys[80] == ["title", "agent", "sandbox", "updated"]
    assert set(keys[80]) < set(keys[120]) < set(keys[160])
    assert "trigger" in keys[160] and "trigger" not in keys[120]  # the least needed goes first
    titles = [conversation_columns(width)[0].width for width in (160, 200, 260)]
    assert titles == sorted(titles) and titles[0] >= 40
    roomy = {c.key: c.width for c in conversation_columns(260)}
    assert roomy["model"] == 30 and roomy["trigger"] == 22  # "microagent_management" whole


def test_too_narrow_keeps_a_readable_title_and_the_status():
    columns = conversation_columns(50)
    assert [c.key for c in columns] == ["title", "agent", "sandbox", "updated"]
    assert columns[0].width == 24  # the table scrolls sideways rather than hide more


def test_local_folders_count_events_where_the_sandbox_was():
    labels = [c.label for c in conversation_columns(140, local=True)]
    assert "Events" in labels and "Sandbox" not in labels


def test_model_loses_its_routing_prefix_only():
    assert short_model("litellm_proxy/claude-sonnet-4-5-20250929") == "claude-sonnet-4-5-20250929"
    assert short_model("openai/gpt-5.5") == "gpt-5.5"
    assert short_model("gpt-4o") == "gpt-4o"
    assert short_model("openrouter/anthropic/claude-3") == "claude-3"
    assert short_model("model [bold red]x[/] y") == "model [bold red]x[/] y"  # not a prefix
    assert short_model("provider/") == "provider/"
    assert short_model(None) is None and short_model("") == ""


def test_short_status_fits_a_column_and_keeps_its_colour():
    full, short = (
        status_text("waiting_for_confirmation"),
        status_text("waiting_for_confirmation", short=True),
    )
    assert full.plain == "waiting_for_confirmation" and short.plain == "confirm?"
    assert short.style == full.style
    assert status_text("running", short=True).plain == "running"


async def test_resizing_the_terminal_relays_the_columns_and_keeps_the_cursor(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            lambda: conversations_shown(app) and app.screen.query(DataTable), pilot=pilot
        )
        table = app.screen.query_one(DataTable)
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)
        await pilot.press("down", "down", "down")
        chosen = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        assert [c.key.value for c in table.ordered_columns] == [
            c.key for c in conversation_columns(SIZE[0])
        ]
        await pilot.resize_terminal(80, 30)
        await wait_for(lambda: len(table.ordered_columns) == 4, pilot=pilot)
        assert [c.label.plain for c in table.ordered_columns] == [
            "Title",
            "Agent",
            "Sandbox",
            "Updated",
        ]
        assert table.row_count == DEMO_ROWS
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == chosen
        await pilot.resize_terminal(200, 40)
        wide = len(conversation_columns(200))
        await wait_for(lambda: len(table.ordered_columns) == wide, pilot=pilot)
        title = table.ordered_columns[0]
        assert title.width == conversation_columns(200)[0].width
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == chosen
        # the routing prefix is left to the conversation's header
        model = app.screen._rows[chosen].llm_model
        assert "/" in model and model.rsplit("/", 1)[1] in table.get_row(chosen)[3].plain
        assert model.split("/", 1)[0] not in table.get_row(chosen)[3].plain


def test_times_ahead_of_our_clock_fit_the_column():
    from datetime import UTC, datetime

    from tui.app.format import relative_time

    now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    assert relative_time("2026-11-22T12:02:00Z", now) == "just now"  # a little clock skew
    assert relative_time("2026-11-23T09:30:00Z", now) == "2026-11-23"  # far ahead: the date
    assert relative_time("2026-11-22T11:00:00Z", now) == "1h ago"
    width = {c.key: c.width for c in conversation_columns(160)}["created"]
    assert len("2026-11-23") <= width


@pytest.mark.parametrize("width", [80, 100, 120, 140, 160, 200])
def test_sandbox_columns_fill_the_width_and_keep_id_and_status(width):
    columns = sandbox_columns(width)
    assert [c.key for c in columns][:3] == ["id", "status", "spec"] and used(columns) == width
    assert columns[0].width == 30  # sandbox ids whole


def test_sandbox_urls_outlast_the_created_column():
    keys = {width: [c.key for c in sandbox_columns(width)] for width in (100, 120, 160)}
    assert "urls" not in keys[100]
    assert "urls" in keys[120] and "created" not in keys[120]
    assert "created" in keys[160]
    spec = {c.key: c.width for c in sandbox_columns(140)}["spec"]
    assert spec >= len("ghcr.io/openhands/agent-server:1.43.1-python")


async def test_a_cell_changed_while_its_column_is_hidden_shows_when_it_returns():
    from rich.text import Text
    from textual.app import App

    from tui.app.widgets.common.fitted_table import FittedTable

    class One(App):
        def compose(self):
            yield FittedTable(conversation_columns, id="t")

    cells = {
        key: Text(key)
        for key in (
            "title",
            "agent",
            "sandbox",
            "model",
            "cost",
            "tokens",
            "duration",
            "created",
            "updated",
            "trigger",
        )
    }
    app = One()
    async with app.run_test(size=(80, 10)) as pilot:
        table = app.query_one(FittedTable)
        table.put_row("a", dict(cells))
        table.put_row("b", dict(cells))
        table.move_cursor(row=1)
        assert "trigger" not in [c.key for c in table.shown_columns]
        table.put_cell("a", "trigger", Text("slack"))
        await pilot.resize_terminal(200, 10)
        await settled(pilot)
        assert [c.key for c in table.shown_columns][-1] == "trigger"
        assert table.get_cell("a", "trigger").plain == "slack" and table.current_key == "b"
        table.remove_row("a")
        await pilot.resize_terminal(80, 10)
        await settled(pilot)
        assert [key.value for key in table.rows] == ["b"]
        table.clear(columns=True)
        await pilot.resize_terminal(81, 10)
        await settled(pilot)
        assert next(c.key for c in table.shown_columns) == "title" and table.row_count == 0
