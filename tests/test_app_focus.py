"""Esc steps back one level at a time: out of the filter bar first, then off the screen."""

from __future__ import annotations

from tests.app_helpers import SIZE, conversations_shown, list_ready, make_app, settled, wait_for
from tui.app.screens.conversation import ConversationScreen
from tui.app.widgets.event_list import EventList
from tui.app.widgets.filter_bar import FilterBar
from tui.server import Store, load_demo

IDS = load_demo(Store())


async def test_escape_leaves_the_filter_bar_before_the_screen(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        screen.action_focus_filter()
        await settled(pilot)
        assert screen.query_one(FilterBar) in app.focused.ancestors_with_self
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is screen and isinstance(app.focused, EventList)
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
