"""A key that does nothing here says why (issue 31 item 4). The key bar and the help leave
out what does not apply (``check_action``), so they stay honest; pressed anyway, the key
tells the reason for a few seconds instead of doing nothing in silence. Keys a text field
types or a dialog holds say nothing: they were not refused, they were taken."""

from __future__ import annotations

import pytest

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    dialog_ready,
    list_ready,
    make_app,
    notes_told,
    push_conversation,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tests.helpers.board_helpers import board_store, open_board
from tests.helpers.samples import SAMPLES
from tests.server.test_agent_server_app import agent_app, agent_server
from tui.app import refusals
from tui.app.board.options import BoardOptions
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.widgets.common.key_bar import KeyBar
from tui.server import Store, load_demo
from tui.server.folders import FolderStore

IDS = load_demo(Store())
READ_ONLY = "Read-only mode: nothing can be changed"
LOCAL = "Local folders are read-only"


def bar(app) -> str:
    return app.screen.query_one(KeyBar).text


async def pressed(pilot, *keys: str) -> None:
    await pilot.press(*keys)
    await settled(pilot)


@pytest.fixture
def reasons_stay(monkeypatch):
    """A reason once said counts as still on screen for the whole test, so "said once, not
    again at once" never depends on how fast the machine runs the test."""
    monkeypatch.setattr(refusals, "REASON_S", 1e9)


async def test_read_only_agent_keys_say_so_once_and_steer_nothing(live_server, reasons_stay):
    server, names = live_server()
    cid = names["hello"]
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        assert "Pause/run" not in bar(app) and "Message" not in bar(app)
        notes = notes_told(app)
        await pressed(pilot, "space")
        assert len(notes) == 1 and notes[0].startswith(READ_ONLY)
        await pressed(pilot, "m", "X", "A", "space")  # the same reason: not said again at once
        assert len(notes) == 1
        assert app.screen is screen and not screen.message_line.is_open
        assert server.live.status_sync(cid) == "finished"


async def test_a_conversation_that_is_not_live_says_why_it_has_no_agent(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, IDS["branches"])  # its sandbox is PAUSED
        await wait_for(lambda: screen.conversation is not None, pilot=pilot)
        notes = notes_told(app)
        await pressed(pilot, "space")
        assert notes == [
            (
                "Its sandbox is PAUSED: the agent can be steered only while the sandbox runs"
                " (resume it on the sandboxes screen)."
            )
        ]
        await pressed(pilot, "ctrl+r")  # find's regex toggle, with find closed
        assert notes[-1] == "Find is closed: / opens it, then ^r ^t ^o switch its options."
        assert app.screen is screen and screen.finder is None


async def test_approve_with_nothing_waiting_says_so(live_server):
    server, names = live_server()
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await open_live(app, pilot, names["hello"])
        notes = notes_told(app)
        await pressed(pilot, "A")
        assert notes == ["The agent waits for no approval: there is nothing to approve or reject."]


async def test_local_folders_say_they_are_read_only(make_server, reasons_stay):
    store = FolderStore(SAMPLES / "agent-server-capture" / "persisted")
    server = make_server(store)
    app = make_app(server.base_url, readonly=True, local=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        listing = app.screen
        notes = notes_told(app)
        await pressed(pilot, "2")
        assert notes == ["Local folders have no sandboxes and no server to show."]
        await pressed(pilot, "n")
        assert notes[-1].startswith(LOCAL)
        await pressed(pilot, "i")
        assert notes[-1] == "Local folders have no sandboxes: there are no sandbox ids to show."
        assert app.screen is listing

        app.open_conversation(next(iter(store.logs)))
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: app.screen.conversation is not None, pilot=pilot)
        told = len(notes)
        await pressed(pilot, "space")
        assert len(notes) == told + 1 and notes[-1].startswith(LOCAL)
        await pressed(pilot, "m")  # the same reason, just said: not again
        assert len(notes) == told + 1
        assert isinstance(app.screen, ConversationScreen) and not app.screen.message_line.is_open


async def test_n_on_an_agent_server_without_agent_settings_says_what_to_set(make_server):
    server = agent_server(make_server)
    app = agent_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await wait_for(lambda: app.server_info is not None, pilot=pilot)
        notes = notes_told(app)
        await pressed(pilot, "n")
        assert notes == [
            (
                "This agent server has no agent settings to start a conversation with:"
                " set agent_settings_file in the config (ohtui config path shows where it is)."
            )
        ]
        assert conversations_shown(app)


async def test_read_only_board_says_so(make_server):
    store, _ids = board_store(4)
    server = make_server(store)
    options = BoardOptions(sockets=0, poll_seconds=60, details_per_poll=100)
    app = make_app(server.base_url, readonly=True, board=options, profile="ref")
    async with app.run_test(size=(160, 48)) as pilot:
        board = await open_board(pilot, 4)
        notes = notes_told(app)
        await pressed(pilot, "p")
        assert len(notes) == 1 and notes[0].startswith(READ_ONLY)
        assert app.screen is board and not board.model.marks


async def test_read_only_sandboxes_say_so(demo_server):
    app = make_app(demo_server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("2")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        sandboxes = app.screen
        table = sandboxes.query_one("DataTable")
        await wait_for(lambda: table.row_count > 0, pilot=pilot)
        assert "Delete" not in bar(app)
        count = table.row_count
        notes = notes_told(app)
        await pressed(pilot, "d")
        assert len(notes) == 1 and notes[0].startswith(READ_ONLY)
        assert app.screen is sandboxes and table.row_count == count


async def test_keys_a_field_types_or_a_dialog_holds_say_nothing(live_server):
    server, names = live_server()
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        notes = notes_told(app)
        await pressed(pilot, "slash", "n", "space")  # typed into the title filter
        assert notes == [] and app.screen.query_one("#conv-filter").value == "n "

    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await open_live(app, pilot, names["hello"])
        await pilot.press("X")
        await wait_for(lambda: dialog_ready(app, ConfirmScreen), pilot=pilot)
        notes = notes_told(app)
        await pressed(pilot, "1", "q", "space", "m")  # the question's own keys only
        assert notes == [] and isinstance(app.screen, ConfirmScreen)
        assert "Interrupt the agent now?" in screen_text(app)
        await pilot.press("n")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)


async def test_a_shared_link_offers_no_other_screen_and_says_why(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"], shared=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await settled(pilot)
        assert "Conversations" not in bar(app) and "Board" not in bar(app)
        notes = notes_told(app)
        await pressed(pilot, "3")
        assert notes == ["This is a shared link: it shows this one conversation and nothing else."]
        assert app.screen is screen
