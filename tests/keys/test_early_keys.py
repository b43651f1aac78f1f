"""Keys pressed as a conversation opens, before its first rows or its count are in, are
handled: they act once the screen can, and what they lead to (the detail of the row the
cursor ends on) is shown."""

from __future__ import annotations

from tests.helpers.app_helpers import (
    SIZE,
    list_ready,
    make_app,
    push_conversation,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.loading import first_user_message
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store
from tui.server.demo import generate_conversation


def _detail_follows_cursor(screen: ConversationScreen) -> bool:
    event_list = screen.query_one(EventList)
    row = screen.window.row(event_list.cursor)
    shown = screen.query_one(EventDetail)._event
    return row is not None and shown is not None and shown.id == row.id


async def test_end_pressed_before_the_first_rows_lands_on_the_last_event(make_server):
    store = Store()
    cid = generate_conversation(store, 700, seed=5)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await pilot.press("end")  # the screen is current; its rows and count are on their way
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list = screen.query_one(EventList)
        await wait_for(lambda: event_list.cursor == len(screen.window) - 1, pilot=pilot)
        await wait_for(lambda: _detail_follows_cursor(screen), pilot=pilot)


async def test_keys_typed_right_after_the_open_move_the_cursor_in_order(make_server):
    store = Store()
    cid = generate_conversation(store, 300, seed=6)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await pilot.press("j", "j", "j", "k")
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list = screen.query_one(EventList)
        start = first_user_message(screen.window)  # where the list opens
        await wait_for(lambda: event_list.cursor == start + 2, pilot=pilot)
        await wait_for(lambda: _detail_follows_cursor(screen), pilot=pilot)
        await pilot.press("shift+tab")  # list → tree (Tab order: tree, list, detail)
        await settled(pilot)
        assert screen.focused is screen.query_one("#event-tree")
