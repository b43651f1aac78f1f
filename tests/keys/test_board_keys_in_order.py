"""The board's filter takes a burst of keys in the order they were typed (a paste, tmux
send-keys, a fast typist): its own editing keys (ctrl+u, backspace) once ran after the
letters typed behind them, erasing them."""

from __future__ import annotations

from tests.helpers.app_helpers import make_app, send_burst, wait_for
from tests.helpers.board_helpers import board_store, open_board
from tui.app.board.options import BoardOptions
from tui.app.widgets.board.board_table import BoardTable

POLLED = BoardOptions(sockets=0, poll_seconds=600, details_per_poll=100)


async def test_slash_then_typing_in_one_press_sequence(make_server):
    store, _ids = board_store(8)
    app = make_app(make_server(store).base_url, board=POLLED, profile="ref")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 8)
        await pilot.press("slash", "a", "b", "c")
        box = screen.query_one("#board-filter")
        await wait_for(lambda: box.value == "abc", pilot=pilot)
        assert box.has_focus and screen.model.text == "abc"


async def test_editing_keys_in_a_burst_act_where_they_were_typed(make_server):
    store, _ids = board_store(8)
    app = make_app(make_server(store).base_url, board=POLLED, profile="ref")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 8)
        box = screen.query_one("#board-filter")
        await pilot.press("slash", *"old")
        await wait_for(lambda: box.value == "old", pilot=pilot)
        await pilot.press("enter")
        await wait_for(lambda: screen.query_one(BoardTable).has_focus, pilot=pilot)
        # what `tmux send-keys / C-u 'docx' BSpace s` sends in one write
        keys = [("slash", "/"), ("ctrl+u", None), *((c, c) for c in "docx")]
        send_burst(app, [*keys, ("backspace", None), ("s", "s")])
        await wait_for(lambda: box.value == "docs", pilot=pilot)
        assert screen.model.text == "docs" and screen.model.sort == "status"
        await pilot.press("enter")
        await wait_for(lambda: len(screen.query_one(BoardTable).rows) == 2, pilot=pilot)


async def test_every_text_field_takes_a_burst_in_order(demo_server):
    """Find and the list's title filter: editing keys in a burst act where they were typed
    (``ab backspace c`` is ``ac``), as in the board's filter."""
    from tests.helpers.app_helpers import conversations_shown, screen_ready, settled
    from tui.app.screens.conversation import ConversationScreen

    app = make_app(demo_server.base_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("slash")
        box = app.screen.query_one("#conv-filter")
        await wait_for(lambda: box.has_focus, pilot=pilot)
        send_burst(app, [("a", "a"), ("b", "b"), ("backspace", None), ("c", "c")])
        await wait_for(lambda: box.value == "ac", pilot=pilot)
        await pilot.press("escape", "escape")
        await wait_for(lambda: app.screen.query_one("#conversations").has_focus, pilot=pilot)
        await pilot.press("enter")
        await wait_for(lambda: screen_ready(app, ConversationScreen), pilot=pilot)
        await settled(pilot)
        await pilot.press("slash")
        await wait_for(lambda: app.screen.query_one("#find-input").has_focus, pilot=pilot)
        find = app.screen.query_one("#find-input")
        send_burst(app, [("x", "x"), ("y", "y"), ("backspace", None), ("z", "z")])
        await wait_for(lambda: find.value == "xz", pilot=pilot)
