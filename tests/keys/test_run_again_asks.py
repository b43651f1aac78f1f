"""``space`` never starts a paid run unasked (issue 31 item 4): on an agent that is not
running it asks first (the default answer is no); pausing a running one stays immediate.
The board's ``p`` asks the same before it runs agents."""

from __future__ import annotations

import asyncio

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import (
    dialog_ready,
    make_app,
    screen_text,
    send_burst,
    settled,
    wait_for,
)
from tests.helpers.board_helpers import board_store, open_board
from tui.app.board.options import BoardOptions
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.widgets.board.board_table import BoardTable

NARROW = (80, 24)


async def asked(app, pilot) -> str:
    await wait_for(lambda: dialog_ready(app, ConfirmScreen), pilot=pilot)
    return screen_text(app)


async def test_space_on_a_finished_agent_asks_and_every_no_leaves_it_finished(live_server):
    server, names = live_server()
    cid = names["hello"]
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_live(app, pilot, cid)
        assert server.live.status_sync(cid) == "finished"
        for no in ("n", "escape", "enter"):  # enter: on No, the button focused at first
            await pilot.press("space")
            text = await asked(app, pilot)
            assert "Run the agent again?" in text and "new, paid run" in text
            assert "Write hello.py and run it" in text and "the agent is finished" in text
            assert app.focused is not None and app.focused.id == "no"
            await pilot.press(no)
            await wait_for(lambda: app.screen is screen, pilot=pilot)
            await settled(pilot)
            assert server.live.status_sync(cid) == "finished"
        # the n that answered was not also the screen's "next hit" (find stays closed)
        assert not screen.find_bar.has_class("-visible")

        await pilot.press("space")
        await asked(app, pilot)
        await pilot.press("tab", "enter")  # enter on Run
        await wait_for(lambda: server.live.status_sync(cid) == "running", pilot=pilot)
        await wait_for(lambda: screen.live.running, pilot=pilot)
        await pilot.press("space")  # running: pause at once, no question
        await wait_for(lambda: server.live.status_sync(cid) == "paused", pilot=pilot)
        assert app.screen is screen


async def test_space_then_y_typed_together_runs_it(live_server):
    server, names = live_server()
    cid = names["hello"]
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_live(app, pilot, cid)
        send_burst(app, [("space", " "), ("y", "y")])  # one read from the terminal
        await wait_for(lambda: server.live.status_sync(cid) == "running", pilot=pilot)
        await wait_for(lambda: app.screen is screen, pilot=pilot)


async def test_a_paused_agent_is_resumed_only_when_confirmed(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_live(app, pilot, cid)
        await asyncio.to_thread(server.live.send_message_sync, cid, "work on it")
        await wait_for(lambda: screen.live.running, pilot=pilot)
        await pilot.press("space")
        await asyncio.to_thread(server.live.step_sync, cid, 1)
        await wait_for(lambda: not screen.live.running, pilot=pilot)
        assert server.live.status_sync(cid) == "paused"
        await pilot.press("space")
        text = await asked(app, pilot)
        assert "Resume the agent?" in text and "paused run" in text
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(cid) == "running", pilot=pilot)


def test_the_run_again_question_80x24(snap_compare, live_server):
    server, names = live_server()

    async def run_before(pilot):
        await open_live(pilot.app, pilot, names["hello"])
        await pilot.press("space")
        await asked(pilot.app, pilot)
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=NARROW)


# --- the board's p ---------------------------------------------------------------------------

POLLED = BoardOptions(sockets=0, poll_seconds=60, details_per_poll=100)


def cursor_to(screen, cid: str) -> None:
    table = screen.query_one(BoardTable)
    table.cursor = next(i for i, row in enumerate(table.rows) if row.conversation_id == cid)


async def test_p_on_the_board_asks_before_it_runs_and_pauses_at_once(make_server):
    store, ids = board_store(4, statuses=("running", "stuck"))
    server = make_server(store)
    app = make_app(server.base_url, board=POLLED, profile="ref")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 4)
        cursor_to(screen, ids[1])
        await pilot.press("p")
        text = await asked(app, pilot)
        assert "Run this agent again? It is stuck." in text and "new, paid run" in text
        await pilot.press("n")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await settled(pilot, keep={"board-act"})
        assert server.live.status_sync(ids[1]) == "stuck"

        for cid in (ids[0], ids[1]):  # one running, one stuck: marked together
            cursor_to(screen, cid)
            await pilot.press("space")
        await pilot.press("p")
        text = await asked(app, pilot)
        assert "It is stuck" in text and "The 1 running one is paused." in text
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(ids[1]) == "running", pilot=pilot)
        await wait_for(lambda: server.live.status_sync(ids[0]) == "paused", pilot=pilot)

        cursor_to(screen, ids[2])  # running: p pauses it without a question
        await pilot.press("p")
        await wait_for(lambda: server.live.status_sync(ids[2]) == "paused", pilot=pilot)
        assert app.screen is screen
