"""The key bar: the keys that apply now, on one line; a click presses a key."""

from __future__ import annotations

from tests.helpers.app_helpers import SIZE, conversations_shown, make_app, screen_ready, wait_for
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.app.widgets.common.key_bar import KeyBar


async def test_keys_follow_the_screen_and_a_click_presses_one(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        bar = app.screen.query_one(KeyBar)
        await wait_for(lambda: bar.items, pilot=pilot)
        assert "n New conversation" in bar.text and "q Quit" in bar.text
        assert bar.palette is not None and bar.palette.display == "^p"
        assert all(item.description != "Down" for item in bar.items)  # show=False keys stay out
        await wait_for(
            lambda: any(span[2].description == "New conversation" for span in bar._spans),
            pilot=pilot,
        )
        start, _end, item = next(
            span for span in bar._spans if span[2].description == "New conversation"
        )
        await pilot.click(KeyBar, offset=(start + 1, 0))
        await wait_for(lambda: screen_ready(app, NewConversationScreen), pilot=pilot)
        # the modal's own bindings (no key bar of its own) leave the conversations bar as it was
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        assert item.key == "n"
