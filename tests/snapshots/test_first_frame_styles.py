"""The conversation screen's first frame skips restyling work, and nothing shows it.

The screen's first resume keeps the styles its widgets were given as they mounted
(``screens/conversation/first_frame.py``). What a person sees must still follow focus,
theme changes and later resumes.
"""

from __future__ import annotations

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.filter_dialog import FilterDialog
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, load_demo

IDS = load_demo(Store())


async def _opened(pilot) -> ConversationScreen:
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(IDS["hello"])
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: list_ready(screen), pilot=pilot)
    await settled(pilot)
    return screen


def _cursor(event_list: EventList):
    return event_list.get_component_rich_style("event-list--cursor")


async def test_the_cursor_style_follows_focus_both_ways(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _opened(pilot)
        event_list = screen.query_one(EventList)
        assert event_list.has_focus
        focused = _cursor(event_list)
        await pilot.press("tab")  # list → detail
        await wait_for(lambda: not event_list.has_focus, pilot=pilot)
        await settled(pilot)
        blurred = _cursor(event_list)
        assert blurred != focused
        screen.action_focus("event-list")
        await wait_for(lambda: event_list.has_focus, pilot=pilot)
        await settled(pilot)
        assert _cursor(event_list) == focused


async def test_a_theme_changed_under_a_dialog_recolours_the_list_on_return(demo_server):
    """A later resume restyles as before: the theme changed while a dialog covered the
    screen shows in the list's component styles once the dialog is gone, exactly as in an
    app started in that theme."""
    app = make_app(demo_server.base_url, theme="ohtui-light")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _opened(pilot)
        light = _cursor(screen.query_one(EventList))
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _opened(pilot)
        event_list = screen.query_one(EventList)
        dark = _cursor(event_list)
        await pilot.press("f")
        await wait_for(lambda: isinstance(app.screen, FilterDialog), pilot=pilot)
        app.theme = "ohtui-light"
        await settled(pilot)
        await pilot.press("escape")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await settled(pilot)
        assert event_list.has_focus
        assert _cursor(event_list) == light != dark
