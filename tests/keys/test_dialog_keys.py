"""Keys that never surprise (issue 16 items 4, 5, 6): dialogs own the key bar and the keys,
read-only offers nothing that changes anything, the palette opens conversations by a
unique prefix and says in words what it cannot open (the resolver itself:
test_id_prefixes.py), notices wait while the user types."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Input

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    make_app,
    screen_text,
    settled,
    wait_for,
)
from tui.app.commands import OhtuiCommands
from tui.app.messages import AgentStatusChanged
from tui.app.notices import Notifier
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.widgets.common.key_bar import KeyBar
from tui.server import Store, load_demo

IDS = load_demo(Store())


def bar_text(app) -> str:
    return app.screen.query(KeyBar).last().text


async def test_a_dialog_owns_the_key_bar_and_its_keys(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store, start_delay=0.2)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("n")
        await wait_for(lambda: isinstance(app.screen, NewConversationScreen), pilot=pilot)
        dialog = app.screen
        await settled(pilot)
        assert bar_text(app) == "esc Cancel  ^s Start"  # nothing of the list underneath
        await pilot.press("tab")  # to the message field
        await pilot.press(*"hi", "2", "p", "1", "j", "question_mark")
        await settled(pilot)
        assert app.screen is dialog  # no screen switch, no help, no quit
        assert dialog.query_one("#new-message", Input).value == "hi2p1j?"
        assert dialog.query_one("#new-title", Input).value == ""  # only where it was typed
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)


async def test_a_confirmation_takes_only_its_own_keys(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("2")
        await wait_for(lambda: isinstance(app.screen, SandboxesScreen), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= 3, pilot=pilot)
        count = table.row_count
        await pilot.press("d")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot=pilot)
        await settled(pilot)
        assert bar_text(app) == "y Yes  n No"
        await pilot.press("1", "2", "question_mark", "q")  # none of them means anything here
        await settled(pilot)
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        await pilot.press("n")
        await wait_for(lambda: isinstance(app.screen, SandboxesScreen), pilot=pilot)
        assert table.row_count == count


async def test_a_text_field_leaves_out_keys_that_would_type(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await settled(pilot)
        assert "n New conversation" in bar_text(app) and "? Help" in bar_text(app)
        await pilot.press("slash")  # the title filter
        await wait_for(lambda: isinstance(app.screen.focused, Input), pilot=pilot)
        await settled(pilot)
        text = bar_text(app)
        assert "New conversation" not in text and "Help" not in text and "Quit" not in text
        assert "^r Refresh" in text


async def test_read_only_offers_nothing_that_changes_anything(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await settled(pilot)
        assert "New conversation" not in bar_text(app)
        names = [name for name, _, _ in OhtuiCommands(app.screen)._commands()]
        assert "New conversation" not in names and "Go to sandboxes" in names
        await pilot.press("question_mark")  # the help lists no mutating key either
        await settled(pilot)
        assert "New conversation" not in screen_text(app)
        await pilot.press("question_mark", "2")
        await wait_for(lambda: isinstance(app.screen, SandboxesScreen), pilot=pilot)
        await settled(pilot)
        text = bar_text(app)
        for words in ("Pause", "Resume", "Start", "Delete", "Stop waiting"):
            assert words not in text
        assert "c Copy id" in text and "^r Refresh" in text
        await pilot.press("question_mark")
        await settled(pilot)
        assert "Delete" not in screen_text(app) and "Pause" not in screen_text(app)


async def test_the_palette_opens_a_prefix_and_refuses_an_unknown_id(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), pilot=pilot)
        await pilot.press(*"0" * 32)
        await settled(pilot)
        await pilot.press("enter")
        await wait_for(
            lambda: any("Conversation not found" in str(n.message) for n in app._notifications),
            pilot=pilot,
        )
        assert conversations_shown(app)  # nothing opened, nothing waits forever
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), pilot=pilot)
        await pilot.press(*IDS["payments"][:8])
        await settled(pilot)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        assert app.screen.conversation_id == IDS["payments"]


async def test_notices_wait_while_the_user_types(demo_server):
    app = make_app(demo_server.base_url)
    app.notifier = Notifier(frozenset({"finished"}), bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("slash")
        await wait_for(lambda: isinstance(app.screen.focused, Input), pilot=pilot)
        app.post_message(AgentStatusChanged("c9", "Job", "running", "finished"))
        await settled(pilot)
        assert not app._notifications  # held: the user is typing
        await pilot.press("escape")  # the filter closes
        await wait_for(lambda: len(app._notifications) == 1, pilot=pilot)
        assert "Job: the agent finished." in str(next(iter(app._notifications)).message)
        app.post_message(AgentStatusChanged("c9", "Job", "running", "finished"))
        await settled(pilot)
        assert len(app._notifications) == 1  # the same change is told once
