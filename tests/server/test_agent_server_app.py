"""The app on a bare agent server (issue 14 items 1 and 2, app half): the kind in the titles,
a server screen instead of sandboxes, ``n`` only with agent settings, errors by what happened."""

from __future__ import annotations

from textual.command import CommandPalette

from tests.helpers.app_helpers import (
    FIXED_NOW,
    SIZE,
    conversations_shown,
    make_app,
    screen_text,
    settled,
    wait_for,
)
from tui.app.app import OhtuiApp
from tui.app.commands import OhtuiCommands
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.errors import ConnectionErrorScreen
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.app.screens.server_info import ServerScreen
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.conversation.conversation_header import ConversationHeader
from tui.client import OpenHandsClient
from tui.server import Store, generate_conversation, load_demo

KEY = "agent-app-key-91d2"
AGENT = {"kind": "Agent", "llm": {"model": "openai/fake-model"}, "tools": [{"name": "terminal"}]}


def agent_app(server, **client_options) -> OhtuiApp:
    client = OpenHandsClient(server.base_url, session_api_key=KEY, **client_options)
    return OhtuiApp(client, url=server.base_url, clock=lambda: FIXED_NOW)


def agent_server(make_server):
    store = Store()
    load_demo(store)
    return make_server(store, session_key=KEY, kind="agent")


async def listed(app, pilot) -> FittedTable:
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    table = app.screen.query_one(FittedTable)
    await wait_for(lambda: table.row_count >= 7, pilot=pilot)
    await wait_for(lambda: bool(table.border_subtitle), pilot=pilot)
    return table


async def test_the_kind_shows_and_key_2_opens_the_server_screen(make_server):
    server = agent_server(make_server)
    app = agent_app(server)
    async with app.run_test(size=SIZE) as pilot:
        table = await listed(app, pilot)
        assert str(table.border_subtitle).startswith("agent server ohtui-reference-")
        text = screen_text(app)
        assert "2 Server" in text and "Sandboxes" not in text
        assert "New conversation" not in text  # no agent settings: nothing to start with
        await pilot.press("n")
        await settled(pilot)
        assert not isinstance(app.screen, NewConversationScreen)

        await pilot.press("2")
        await wait_for(lambda: isinstance(app.screen, ServerScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: screen.info is not None, pilot=pilot)
        await settled(pilot)
        text = screen_text(app)
        for words in ("OpenHands Agent Server", "uptime", "versions", "tools (5)", "terminal"):
            assert words in text
        await pilot.press("ctrl+r")  # refresh: asked again
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)

        names = [name for name, _, _ in OhtuiCommands(app.screen)._commands()]
        assert "Server information" in names and "Go to sandboxes" not in names
        assert "New conversation" not in names


async def test_the_conversation_header_says_the_kind(make_server):
    server = agent_server(make_server)
    app = agent_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await listed(app, pilot)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: "· agent server" in screen_text(app), pilot=pilot)


async def test_with_agent_settings_n_starts_a_conversation_there(make_server):
    server = agent_server(make_server)
    app = agent_app(server, agent_settings=AGENT)
    async with app.run_test(size=SIZE) as pilot:
        await listed(app, pilot)
        assert "n New conversation" in screen_text(app)
        await pilot.press("n")
        await wait_for(lambda: isinstance(app.screen, NewConversationScreen), pilot=pilot)
        assert "on the agent server" in screen_text(app)
        await pilot.press(*"From my settings", "enter", *"hello there", "enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: screen.conversation is not None, pilot=pilot)
        assert screen.conversation.title == "From my settings"


async def test_a_refused_key_is_not_an_unreachable_server(make_server):
    server = agent_server(make_server)
    client = OpenHandsClient(server.base_url, session_api_key="wrong-key")
    app = OhtuiApp(client, url=server.base_url, clock=lambda: FIXED_NOW)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConnectionErrorScreen), pilot=pilot)
        await settled(pilot)
        text = screen_text(app)
        assert "The server refused the key" in text and "Cannot reach" not in text
        assert "session-key" in text  # where keys are given


async def test_no_key_at_all_is_said_as_wanted(make_server):
    server = agent_server(make_server)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConnectionErrorScreen), pilot=pilot)
        await settled(pilot)
        assert "The server wants a key" in screen_text(app)


async def test_shared_on_a_server_without_sharing_is_said_calmly(make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    server.app.state.faults.add("status", "/api/shared-events", status=404, times=-1)
    app = make_app(server.base_url, conversation_id=names["hello"], shared=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConnectionErrorScreen), pilot=pilot)
        await settled(pilot)
        text = screen_text(app)
        assert "this server does not share conversations (it is a self-hosted app server)" in text
        assert "Cannot reach" not in text and "Retry" not in text
        assert app.screen.query_one("#error-box").has_class("-calm")


async def test_palette_has_no_id_opening_in_shared_mode(demo_server):
    names = load_demo(Store())
    app = make_app(demo_server.base_url, conversation_id=names["hello"], shared=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), pilot=pilot)
        await pilot.press(*names["payments"][:8])
        await settled(pilot)
        assert "Open conversation" not in screen_text(app)


async def test_no_sandbox_is_claimed_and_an_empty_conversation_waits_for_events(make_server):
    """A bare agent server runs conversations itself: the header names no sandbox and the
    list's sandbox column says "—"; a conversation with no events yet says so (not "No
    events match.", which is for filters)."""
    store = Store()
    cid = generate_conversation(store, 0, seed=3, title="Nothing yet")
    server = make_server(store, session_key=KEY, kind="agent")
    app = agent_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one(FittedTable)
        await wait_for(lambda: table.row_count == 1, pilot=pilot)
        assert "RUNNING" not in screen_text(app)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: "No events yet." in screen_text(app), pilot=pilot)
        header = str(app.screen.query_one(ConversationHeader).render())
        assert app.screen.conversation_id.replace("-", "") == cid.replace("-", "")
        assert "sandbox" not in header and "No events match" not in screen_text(app)
