"""One meaning per key across screens where habits allow (issue 31 item 4): ``o`` orders the
conversations list, the board and a conversation (one word, "Order"); where a key differs
(``n`` is vim's next hit in a conversation, a new conversation on the list) the help says
so on the key's line; ``ctrl+c`` copies (the text selected, else what the screen's copy key
copies) and where there is nothing to copy says how to copy and how to quit. Keys are sent
in bursts, as a terminal delivers them."""

from __future__ import annotations

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    notes_told,
    push_conversation,
    screen_ready,
    send_burst,
    settled,
    wait_for,
)
from tests.helpers.board_helpers import board_store, open_board
from tui.app.board.options import BoardOptions
from tui.app.keymap_ids import binding_ids
from tui.app.screens.board.board import BoardScreen
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversations.conversations import ConversationsScreen
from tui.app.screens.dialogs.help import HelpScreen, key_groups
from tui.app.screens.dialogs.help_notes import elsewhere
from tui.app.widgets.board.board_table import BoardTable
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.filter_bar import FilterBar
from tui.server import Store, load_demo

IDS = load_demo(Store())
NOTHING_TO_COPY = "Nothing is selected to copy: select text with the mouse, then ctrl+c copies it."


def descriptions(screen_class) -> dict[str, str]:
    return {
        key: bindings[0].description
        for key, bindings in screen_class._merged_bindings.key_to_bindings.items()
    }


def copied(app) -> list[str]:
    """What the app puts on the clipboard from now on."""
    copies: list[str] = []
    real = app.copy_to_clipboard

    def copy(text: str) -> None:
        copies.append(text)
        real(text)

    app.copy_to_clipboard = copy
    return copies


def row_of(screen, keys: str) -> tuple[str, str]:
    """The help's line for ``keys`` (as shown): (description, what follows it)."""
    for group in key_groups(screen):
        for shown, description, said in group.rows:
            if shown == keys:
                return description, said
    raise AssertionError(f"no help line for {keys!r}")


def test_o_is_order_everywhere_and_the_old_keymap_id_still_works():
    for screen_class in (ConversationsScreen, ConversationScreen, BoardScreen):
        assert descriptions(screen_class)["o"] == "Order"
    assert "conversation.order" in binding_ids() and "conversation.sort" not in binding_ids()


async def test_a_keymap_naming_the_old_id_moves_the_new_one(demo_server):
    app = make_app(demo_server.base_url, keymap={"conversation.sort": "O"})
    notes = notes_told(app)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, IDS["hello"])
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        bar = screen.query_one(FilterBar)
        assert not bar.applied.descending
        send_burst(app, [("O", "O"), ("O", "O"), ("O", "O")])  # three at once: round, back, round
        await wait_for(lambda: bar.applied.descending, pilot=pilot)
        await settled(pilot)
        assert bar.applied.descending
        assert not any("Unknown binding id" in note for note in notes)


async def test_o_on_the_list_in_the_servers_order_says_what_orders_it(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        screen = app.screen
        notes = notes_told(app)
        send_burst(app, [("o", "o")])
        await wait_for(lambda: bool(notes), pilot=pilot)
        assert notes == [
            (
                "The list is in the server's order, newest first: s sorts it by cost, tokens"
                " or duration, then o turns that order round."
            )
        ]
        send_burst(app, [("s", "s"), ("o", "o")])  # by cost, then the other way round
        await wait_for(lambda: screen.sort == "cost" and screen.reverse, pilot=pilot)


async def test_the_help_says_where_a_key_means_something_else(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        listing = app.screen
        assert row_of(listing, "n") == ("New conversation", "in Conversation: Next hit")
        assert row_of(listing, "c") == ("Copy id", "")  # "Copy" in a conversation: the same
        await pilot.press("s")  # sorted by a column: o turns it round
        await wait_for(lambda: listing.sort == "cost", pilot=pilot)
        assert row_of(listing, "o") == ("Order", "")  # the same word everywhere: no note

        screen = await push_conversation(pilot, IDS["hello"])
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        assert row_of(screen, "n") == ("Next hit", "in Conversations: New conversation")
        # space is offered only on a live agent: its note waits for it
        assert elsewhere(screen)["space"] == "in Board: Mark"
        assert row_of(screen, "o") == ("Order", "Newest or oldest first (as o on the lists)")
        assert row_of(screen, "esc")[1] == ""  # back, whatever its words: one spirit
        _, said = row_of(screen, "^c super+c")
        assert said == "with the mouse; else as c: Copy"
        await pilot.press("question_mark")
        await wait_for(lambda: screen_ready(app, HelpScreen), pilot=pilot)
        assert "n Next hit" in app.screen.query_one("KeyList").text


async def test_ctrl_c_copies_the_row_the_cursor_is_on(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one(FittedTable)
        await wait_for(lambda: table.row_count > 3, pilot=pilot)
        notes = notes_told(app)
        copies = copied(app)
        send_burst(app, [("j", "j"), ("j", "j"), ("ctrl+c", None)])
        await wait_for(lambda: bool(notes), pilot=pilot)
        assert table.cursor_row == 2
        assert copies == [table.current_key]
        assert notes == [f"Copied the id {table.current_key}."]


async def test_ctrl_c_in_a_conversation_copies_the_event_as_c_does(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, IDS["hello"])
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        events = screen.query_one(EventList)
        copies = copied(app)
        send_burst(app, [("G", "G"), ("c", "c")])
        await wait_for(lambda: len(copies) == 1, pilot=pilot)
        send_burst(app, [("ctrl+c", None)])
        await wait_for(lambda: len(copies) == 2, pilot=pilot)
        assert copies[0] == copies[1] and events.cursor == len(screen.window) - 1


async def test_ctrl_c_on_the_board_copies_the_rows_id(make_server):
    store, _ids = board_store(4)
    server = make_server(store)
    options = BoardOptions(sockets=0, poll_seconds=60, details_per_poll=100)
    app = make_app(server.base_url, board=options, profile="ref")
    async with app.run_test(size=(160, 48)) as pilot:
        board = await open_board(pilot, 4)
        table = board.query_one(BoardTable)
        copies = copied(app)
        send_burst(app, [("j", "j"), ("ctrl+c", None)])
        await wait_for(lambda: bool(copies), pilot=pilot)
        assert table.cursor == 1 and copies == [table.current.conversation_id]


async def test_ctrl_c_with_nothing_to_copy_says_how_to_copy_and_quit(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("question_mark")  # a dialog: its keys stop before the app's
        await wait_for(lambda: screen_ready(app, HelpScreen), pilot=pilot)
        notes = notes_told(app)
        send_burst(app, [("ctrl+c", None)])
        await wait_for(lambda: bool(notes), pilot=pilot)
        assert notes == [f"{NOTHING_TO_COPY} To quit: ^q."]  # q closes the help here
        assert isinstance(app.screen, HelpScreen)
