"""A conversation opens where a person starts reading: on its first user message (the
detail pane shows it), not on the hook_config state update that starts the log."""

from __future__ import annotations

from tests.helpers.app_helpers import list_ready, make_app, screen_text, send_burst, wait_for
from tui.app.screens.conversation import ConversationScreen
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, load_demo

IDS = load_demo(Store())


def _first_user(window) -> int:
    return next(
        i
        for i in range(len(window))
        if window.row(i).kind == "MessageEvent" and window.row(i).source == "user"
    )


async def test_the_cursor_starts_on_the_first_user_message(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list = screen.query_one(EventList)
        assert screen.window.row(0).kind != "MessageEvent"  # the log starts with plumbing
        at = _first_user(screen.window)
        assert event_list.cursor == at
        detail = screen.query_one(EventDetail)
        row = screen.window.row(at)
        await wait_for(
            lambda: detail._event is not None and detail._event.id == row.id, pilot=pilot
        )
        assert "Please say hello" in screen_text(app)


async def test_keys_typed_before_the_rows_start_from_there(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=(80, 24)) as pilot:
        from tests.helpers.app_helpers import conversations_shown

        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(IDS["hello"])
        send_burst(app, [("j", "j"), ("j", "j")])  # behind the enter that opened it
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list = screen.query_one(EventList)
        await wait_for(lambda: event_list.cursor == _first_user(screen.window) + 2, pilot=pilot)
