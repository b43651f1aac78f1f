"""Startup with the bundled server: the list paints first, the server follows in a thread."""

from __future__ import annotations

import threading
import time

from textual.widgets import DataTable

from tests.app_helpers import SIZE, make_app, wait_for
from tui.app.screens.conversations import ConversationsScreen
from tui.app.screens.errors import ConnectionErrorScreen
from tui.loopback import DeferredServer
from tui.server import Store, load_demo, start_server


async def test_the_list_shows_before_the_bundled_server_serves():
    served = threading.Event()

    def serve(sock):
        time.sleep(0.3)  # the server's imports and data load, in the warm-up thread
        store = Store()
        load_demo(store)
        server = start_server(store, sock=sock)
        served.set()
        return server.stop

    deferred = DeferredServer(serve)
    app = make_app(deferred.url, warm_up=deferred.start, on_exit=deferred.stop)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationsScreen), pilot=pilot)
        assert not served.is_set()  # on screen while the server was still starting
        table = app.screen.query_one(DataTable)
        await wait_for(lambda: table.row_count == 7, pilot=pilot)  # its requests waited, none failed
        assert served.is_set()
        assert [type(s) for s in app.screen_stack[1:]] == [ConversationsScreen]  # not pushed twice


async def test_a_bundled_server_that_cannot_start_is_said_not_hung_on():
    def serve(sock):
        raise RuntimeError("no demo today")

    deferred = DeferredServer(serve)
    app = make_app(deferred.url, warm_up=deferred.start, on_exit=deferred.stop)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConnectionErrorScreen), timeout=30, pilot=pilot)
        assert any("no demo today" in str(n.message) for n in app._notifications)
