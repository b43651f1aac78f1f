"""Startup with the bundled server: the list paints first; the server (the app's child,
``demo_process.py``) is waited for in a thread."""

from __future__ import annotations

import threading

from textual.widgets import DataTable

from tests.helpers.app_helpers import (
    DEMO_ROWS,
    SIZE,
    conversations_shown,
    make_app,
    screen_text,
    wait_for,
)
from tui.app.screens.conversations.conversations import ConversationsScreen
from tui.app.screens.dialogs.errors import ConnectionErrorScreen
from tui.loopback import LOOPBACK, bind_socket, url_for
from tui.server import Store, load_demo, start_server


def reserved_port():
    """A listening loopback socket and its URL, as ``ohtui`` has for its demo's child."""
    sock = bind_socket(LOOPBACK, 0)
    sock.listen(128)
    return sock, url_for(LOOPBACK, sock.getsockname()[1])


async def test_the_list_shows_before_the_bundled_server_serves():
    served = threading.Event()
    loaded = threading.Event()  # set by the test once the list is on screen

    sock, url = reserved_port()
    stops = [sock.close]

    def serve():  # the warm-up thread waits while the server imports and loads its data
        loaded.wait(60)
        store = Store()
        load_demo(store)
        stops.append(start_server(store, sock=sock).stop)
        served.set()

    app = make_app(url, warm_up=serve, on_exit=lambda: [stop() for stop in reversed(stops)])
    async with app.run_test(size=SIZE) as pilot:
        try:
            await wait_for(lambda: conversations_shown(app), pilot=pilot)
            assert not served.is_set()  # on screen while the server was still starting
        finally:
            loaded.set()
        table = app.screen.query_one(DataTable)
        await wait_for(
            lambda: table.row_count == DEMO_ROWS, pilot=pilot
        )  # its requests waited, none failed
        assert served.is_set()
        assert [type(s) for s in app.screen_stack[1:]] == [ConversationsScreen]  # not pushed twice


async def test_a_bundled_server_that_cannot_start_is_said_not_hung_on():
    sock, url = reserved_port()

    def serve():  # as a child that fails: its socket closes (waiting requests fail at once)
        sock.close()
        raise RuntimeError("no demo today")

    app = make_app(url, warm_up=serve, on_exit=sock.close)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            lambda: isinstance(app.screen, ConnectionErrorScreen), timeout=30, pilot=pilot
        )
        assert any("no demo today" in str(n.message) for n in app._notifications)


async def test_the_client_is_built_after_the_first_frame_in_a_thread(demo_server):
    from tests.helpers.app_helpers import FIXED_NOW
    from tui.app.app import OhtuiApp
    from tui.client import OpenHandsClient

    built: list[tuple[str, bool]] = []

    def factory():
        # the list is on screen (loading) before the client and its imports exist
        built.append((threading.current_thread().name, isinstance(app.screen, ConversationsScreen)))
        return OpenHandsClient(demo_server.base_url)

    app = OhtuiApp(
        client_factory=factory,
        url=demo_server.base_url,
        clock=lambda: FIXED_NOW,
        warm_up=lambda: None,  # the demo server already serves
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one(DataTable)
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)
        assert len(built) == 1  # once, though the list and the connection check both waited
        thread, listed_first = built[0]
        assert thread != threading.main_thread().name and listed_first


async def test_a_client_that_cannot_be_built_is_said():
    from tests.helpers.app_helpers import FIXED_NOW
    from tui.app.app import OhtuiApp

    def factory():
        raise ValueError("bad URL for this test")

    app = OhtuiApp(client_factory=factory, url="http://127.0.0.1:9", clock=lambda: FIXED_NOW)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConnectionErrorScreen), pilot=pilot)
        await wait_for(lambda: "bad URL for this test" in screen_text(app), pilot=pilot)
