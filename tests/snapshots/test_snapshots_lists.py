"""What the lists, the server screen, the dialogs and the error screens look like, pinned at
80×24 (designed for first) and at the default size. Elapsed times and uptimes come from
clocks the tests hold still."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tests.helpers.app_helpers import (
    DEMO_ROWS,
    FIXED_NOW,
    SIZE,
    conversations_shown,
    make_app,
    settled,
    wait_for,
)
from tui.app import server_marks
from tui.app.app import OhtuiApp
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.errors import ConnectionErrorScreen
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen, SpecPicker
from tui.app.screens.server_info import ServerScreen
from tui.client import OpenHandsClient
from tui.server import Store, load_demo
from tui.server.demo.ids import SeededIds
from tui.server.real_app_server import real_app_server_options

SMALL = (80, 24)
SIZES = pytest.mark.parametrize("size", [SMALL, SIZE], ids=["80x24", "default"])
KEY = "snapshot-agent-key"


@pytest.fixture(autouse=True)
def still_elapsed(monkeypatch):
    """Elapsed times on screen do not move while a picture is taken."""
    monkeypatch.setattr(server_marks, "monotonic", lambda: 1000.0)


async def listed(pilot, rows: int = DEMO_ROWS) -> None:
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    table = app.screen.query_one("DataTable")
    await wait_for(lambda: table.row_count >= rows, pilot=pilot)
    await settled(pilot)


async def sandboxes(pilot) -> SandboxesScreen:
    app = pilot.app
    await listed(pilot)
    await pilot.press("2")
    await wait_for(lambda: isinstance(app.screen, SandboxesScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: screen.query_one("DataTable").row_count >= 5, pilot=pilot)
    return screen


@SIZES
def test_conversations_list(snap_compare, demo_server, size):
    async def run_before(pilot):
        await listed(pilot)
        await pilot.press("down", "down")  # the sub-conversation: its parent named below
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=size)


def test_conversations_list_read_only(snap_compare, demo_server):
    async def run_before(pilot):
        await listed(pilot)

    app = make_app(demo_server.base_url, readonly=True)
    assert snap_compare(app, run_before=run_before, terminal_size=SMALL)


def test_conversations_list_with_sandbox_ids(snap_compare, demo_server):
    async def run_before(pilot):
        await listed(pilot)
        await pilot.press("i")
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


def test_sandboxes_at_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        await sandboxes(pilot)
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SMALL)


@SIZES
def test_sandbox_start_on_its_way(snap_compare, make_server, size):
    store = Store()
    load_demo(store)
    server = make_server(
        store, clock=lambda: 1_900_000_000.0, **real_app_server_options(sandbox_start=30.0)
    )
    server.lifecycle._ids = SeededIds(random.Random(7))  # the new sandbox's id, the same each run

    async def run_before(pilot):
        screen = await sandboxes(pilot)
        await pilot.press("s")
        await wait_for(lambda: isinstance(pilot.app.screen, SpecPicker), pilot=pilot)
        await pilot.press("enter")
        await wait_for(lambda: screen.start is not None, pilot=pilot)
        await wait_for(lambda: screen.query_one("DataTable").row_count == 6, pilot=pilot)
        await settled(pilot, keep={"sandbox-start"})  # the start goes on

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=size)


def test_spec_picker_at_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        await sandboxes(pilot)
        await pilot.press("s")
        await wait_for(lambda: isinstance(pilot.app.screen, SpecPicker), pilot=pilot)
        await settled(pilot, keep={"specs"})  # it waits for the pick

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SMALL)


def test_delete_confirmation_at_80x24(snap_compare, make_server):
    store = Store()
    load_demo(store)
    server = make_server(store)

    async def run_before(pilot):
        await sandboxes(pilot)
        await pilot.press("d")
        await wait_for(lambda: isinstance(pilot.app.screen, ConfirmScreen), pilot=pilot)
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SMALL)


@SIZES
def test_new_conversation_dialog(snap_compare, demo_server, size):
    async def run_before(pilot):
        await listed(pilot)
        await pilot.press("n")
        await wait_for(lambda: isinstance(pilot.app.screen, NewConversationScreen), pilot=pilot)
        await pilot.press(*"Fix the flaky test", "tab", *"It fails one run in ten")
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=size)


def test_new_conversation_following_its_start(snap_compare, make_server):
    store = Store()
    load_demo(store)
    clock = [1_900_000_000.0]
    server = make_server(store, clock=lambda: clock[0], **real_app_server_options(start=60.0))

    async def run_before(pilot):
        await listed(pilot)
        await pilot.press("n")
        await wait_for(lambda: isinstance(pilot.app.screen, NewConversationScreen), pilot=pilot)
        dialog = pilot.app.screen
        await pilot.press(*"Fix the flaky test", "enter", *"Go", "enter")
        await wait_for(lambda: dialog.progress is not None, pilot=pilot)
        await wait_for(lambda: dialog.progress.status == "WORKING", pilot=pilot)
        clock[0] += 3  # past WORKING, into the long wait for the sandbox
        await wait_for(lambda: dialog.progress.status == "WAITING_FOR_SANDBOX", pilot=pilot)
        dialog.draw()
        await settled(pilot, keep={"new-conversation"})  # the start goes on

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SMALL)


SHOWN_URL = "http://127.0.0.1:18010"  # what the screens say (the test server's port varies)


def agent_app(server, key: str = KEY) -> OhtuiApp:
    client = OpenHandsClient(server.base_url, session_api_key=key)
    return OhtuiApp(client, url=SHOWN_URL, clock=lambda: FIXED_NOW)


@SIZES
def test_server_screen(snap_compare, make_server, size):
    store = Store()
    load_demo(store)
    server = make_server(store, session_key=KEY, kind="agent")
    app = agent_app(server)

    async def run_before(pilot):
        await listed(pilot, 7)
        real = app.client.server_info

        async def still():  # uptime as the server says it, held still for the picture
            info = await real()
            fixed = {**info.details, "uptime": 3 * 3600 + 25 * 60 + 7, "idle_time": 42.0}
            return replace(info, version="1.58.2", details=fixed)

        app.client.server_info = still  # type: ignore[method-assign]
        await pilot.press("2")
        await wait_for(lambda: isinstance(app.screen, ServerScreen), pilot=pilot)
        await wait_for(lambda: app.screen.info is not None, pilot=pilot)
        await settled(pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=size)


def test_error_screen_for_a_refused_key(snap_compare, make_server):
    store = Store()
    load_demo(store)
    server = make_server(store, session_key=KEY, kind="agent")
    app = agent_app(server, "wrong")

    async def run_before(pilot):
        await wait_for(lambda: isinstance(app.screen, ConnectionErrorScreen), pilot=pilot)
        await settled(pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SMALL)


def test_error_screen_for_a_server_that_does_not_share(snap_compare, make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    server.app.state.faults.add("status", "/api/shared-events", status=404, times=-1)
    client = OpenHandsClient(server.base_url)
    app = OhtuiApp(
        client,
        url="http://127.0.0.1:3000",
        conversation_id=names["hello"],
        shared=True,
        clock=lambda: FIXED_NOW,
    )

    async def run_before(pilot):
        await wait_for(lambda: isinstance(app.screen, ConnectionErrorScreen), pilot=pilot)
        await settled(pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SMALL)
