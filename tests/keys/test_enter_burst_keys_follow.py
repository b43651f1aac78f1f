"""Keys typed right behind the enter that opens a conversation (``⏎ G`` as one burst, a fast
typist or ``tmux send-keys``) act in the opened conversation, not on the list left behind."""

from __future__ import annotations

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    screen_ready,
    send_burst,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversations.conversations import ConversationsScreen
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store
from tui.server.demo import generate_conversation


async def test_keys_after_enter_reach_the_opened_conversation(make_server):
    store = Store()
    ids = [generate_conversation(store, n, seed=s) for s, n in ((1, 20), (2, 150), (3, 20))]
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == 3, pilot=pilot)
        table.focus()
        await wait_for(lambda: table.has_focus, pilot=pilot)
        order = [row.key.value for row in table.ordered_rows]
        send_burst(app, [("j", "j"), ("enter", None), ("G", "G")])
        await wait_for(lambda: screen_ready(app, ConversationScreen), pilot=pilot)
        screen = app.screen
        assert screen.events.conversation_id == order[1]
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list = screen.query_one(EventList)
        # G went to the conversation: its cursor on the last event, once the rows are in
        await wait_for(lambda: event_list.cursor == len(screen.window) - 1 > 0, pilot=pilot)
        assert set(order) == set(ids)
        await pilot.press("escape")  # back on the list: its cursor is where enter left it
        await wait_for(lambda: isinstance(app.screen, ConversationsScreen), pilot=pilot)
        assert table.cursor_row == 1


async def test_enter_in_the_title_filter_applies_it_and_opens_nothing(make_server):
    store = Store()
    for seed in (1, 2):
        generate_conversation(store, 10, seed=seed)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == 2, pilot=pilot)
        await pilot.press("slash", *"zzqq", "enter")
        await wait_for(lambda: table.row_count == 0, pilot=pilot)
        assert isinstance(app.screen, ConversationsScreen)


async def test_keys_after_slash_go_into_the_title_filter(make_server):
    """``/ zzq`` in one burst: the letters go into the field (``q`` reached the table and
    quit the app); a ``/`` typed there is a title's character."""
    store = Store()
    for seed in (1, 2):
        generate_conversation(store, 10, seed=seed)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == 2, pilot=pilot)
        send_burst(app, [("slash", "/"), ("z", "z"), ("z", "z"), ("q", "q")])
        field = app.screen.query_one("#conv-filter")
        await wait_for(lambda: field.value == "zzq", pilot=pilot)
        await pilot.press("slash", "a")
        await wait_for(lambda: field.value == "zzq/a", pilot=pilot)
        assert app.is_running and isinstance(app.screen, ConversationsScreen)
