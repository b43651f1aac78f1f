"""Esc steps back one level at a time: out of the filter dialog first, then off the screen."""

from __future__ import annotations

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    screen_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.filter_dialog import FilterDialog
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, load_demo

IDS = load_demo(Store())


async def test_escape_leaves_the_filter_dialog_before_the_screen(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await pilot.press("f")
        await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
        await pilot.press("escape")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        assert isinstance(app.focused, EventList) and screen.window.query.is_plain
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
