"""Statuses, diffs and the live mark take their colours from the theme, in every theme.

Both bundled themes set every ohtui colour variable and give each its own value, so the
light theme recolours every status and diff (snapshots in both themes show it); any other
Textual theme gets the variables from its own semantic colours.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    make_app,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.format import STATUS_STYLES
from tui.app.screens.conversation import ConversationScreen
from tui.app.themes import VARIABLES, theme_style
from tui.app.widgets.conversation.conversation_header import LIVE_MARKS
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, load_demo

THEMES = Path(__file__).resolve().parents[2] / "themes"
IDS = load_demo(Store())


def _specs() -> list[str]:
    """Every theme-coloured style the app draws with (statuses, live marks, diffs)."""
    specs = [spec for spec in STATUS_STYLES.values() if "$" in spec]
    specs += [spec for _, spec in LIVE_MARKS.values() if "$" in spec]
    specs += ["$diff-added", "$diff-removed", "$diff-hunk"]
    return specs


@pytest.mark.parametrize("name", ["ohtui-dark", "ohtui-light"])
def test_bundled_themes_set_every_colour_variable(name):
    variables = json.loads((THEMES / f"{name}.json").read_text())["variables"]
    assert set(VARIABLES) <= set(variables)


async def _colours(theme: str, demo_url: str) -> dict[str, object]:
    app = make_app(demo_url, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        return {spec: theme_style(spec).color for spec in _specs()}


async def test_each_status_and_diff_colour_differs_between_the_themes(demo_server):
    dark = await _colours("ohtui-dark", demo_server.base_url)
    light = await _colours("ohtui-light", demo_server.base_url)
    assert all(colour is not None for colour in [*dark.values(), *light.values()])
    assert [spec for spec in dark if dark[spec] == light[spec]] == []


async def test_a_textual_theme_colours_them_from_its_own_palette(demo_server):
    colours = await _colours("textual-light", demo_server.base_url)
    assert all(colour is not None for colour in colours.values())


async def _open(pilot, name: str, select: str) -> None:
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(IDS[name])
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: tree_ready(screen), pilot=pilot)
    target = next(
        i for i in range(len(screen.window)) if screen.window.row(i).summary.startswith(select)
    )
    screen.query_one(EventList).cursor = target
    detail = screen.query_one(EventDetail)
    await wait_for(
        lambda: detail._event is not None and detail._event.id == screen.window.row(target).id,
        pilot=pilot,
    )
    await settled(pilot)


def test_light_theme_statuses_snapshot(snap_compare, demo_server):
    """Every agent and sandbox status of the demo list, in the light theme's colours."""

    async def run_before(pilot):
        app = pilot.app
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= 7, pilot=pilot)
        await settled(pilot)

    app = make_app(demo_server.base_url, theme="ohtui-light")
    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


def test_light_theme_file_edit_diff_snapshot(snap_compare, demo_server):
    """A file edit's diff (added, removed, hunk lines) in the light theme's colours."""

    async def run_before(pilot):
        await _open(pilot, "branches", "str_replace")

    app = make_app(demo_server.base_url, theme="ohtui-light")
    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


async def test_switching_theme_recolours_what_was_drawn(demo_server):
    """Table cells, the header and the detail have colours drawn in: a new theme redraws them."""
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= 7, pilot=pilot)
        hello = IDS["hello"]
        before = table.get_cell(hello, "sandbox").style.color
        app.theme = "ohtui-light"
        await settled(pilot)
        light = theme_style("$status-running").color
        await wait_for(lambda: table.get_cell(hello, "sandbox").style.color == light, pilot=pilot)
        assert before != light
