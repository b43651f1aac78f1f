"""Keys that reach a conversation as it opens, before its list has any rows (a burst typed
right behind the enter that opened it), act once the rows are given, in order."""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    send_burst,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.loading import first_user_message
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store
from tui.server.demo import generate_conversation


@pytest.mark.parametrize(
    ("keys", "where"),
    [(("G",), "last"), (("end",), "last"), (("j", "j", "j", "k"), 2)],
    ids=["G", "end", "jjjk"],
)
async def test_keys_that_reach_the_list_before_its_rows_act_in_order(make_server, keys, where):
    store = Store()
    cid = generate_conversation(store, 300, seed=6)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == 1, pilot=pilot)
        app.open_conversation(cid)
        send_burst(app, ((k, k if len(k) == 1 else None) for k in keys))
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list = screen.query_one(EventList)
        await wait_for(lambda: list_ready(screen) and screen.window.total, pilot=pilot)
        # counted from where the list opens: its first user message
        start = first_user_message(screen.window)
        wanted = len(screen.window) - 1 if where == "last" else start + where
        await wait_for(lambda: event_list.cursor == wanted, pilot=pilot)
