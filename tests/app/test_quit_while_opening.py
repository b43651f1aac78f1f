"""Quitting right after a conversation was opened ends the app cleanly: the screen, pushed a
moment before, gets its Mount after its widgets are gone, and its handlers' failures then
are only logged (they used to end ``run`` with a traceback: seen in a suite run of
``ohtui PATH --conversation ID``)."""

from __future__ import annotations

from tests.helpers.app_helpers import SIZE, conversations_shown, make_app, wait_for
from tui.app.screens.conversation import ConversationScreen
from tui.server import Store
from tui.server.demo import generate_conversation


async def test_quit_in_the_same_moment_as_an_open(make_server):
    store = Store()
    cid = generate_conversation(store, 20, seed=1)
    app = make_app(make_server(store).base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(cid)
        assert isinstance(app.screen, ConversationScreen)
        app.exit()
    assert app.return_code in (0, None)


async def test_closing_in_the_same_moment_as_an_open(make_server):
    """The same when the app is closed without ``exit`` (the test harness's teardown, a
    terminal gone): the screen is pruned before its Mount is handled."""
    store = Store()
    cid = generate_conversation(store, 20, seed=2)
    app = make_app(make_server(store).base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(cid)
        assert isinstance(app.screen, ConversationScreen)
