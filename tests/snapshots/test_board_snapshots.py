"""What the board looks like, pinned at 80×24 and 160×48 (fixed clock, agents that advance
only when the test says, every row polled so nothing depends on a socket's timing)."""

from __future__ import annotations

import httpx

from tests.helpers.app_helpers import dialog_ready, make_app, settled, wait_for
from tests.helpers.board_helpers import board_store, open_board, set_status
from tui.app.board.options import BoardOptions
from tui.app.screens.board.board_answer import BoardAnswerScreen
from tui.app.widgets.board.board_table import BoardTable
from tui.client import OpenHandsClient

POLLED = BoardOptions(sockets=0, poll_seconds=600, details_per_poll=100)
SMALL, LARGE = (80, 24), (160, 48)


def board_app(server, options=POLLED, **kw):
    return make_app(server.base_url, board=options, profile="ref", **kw)


async def settle(pilot) -> None:
    """Every row drawn as the model has it, no toast left."""
    screen = pilot.app.screen
    pilot.app.clear_notifications()
    screen.flush(force=True)
    await settled(pilot)


def _many(snap_compare, make_server, size):
    store, _ids = board_store(30)
    server = make_server(store)

    async def run_before(pilot):
        await open_board(pilot, 30)
        await settle(pilot)

    return snap_compare(board_app(server), run_before=run_before, terminal_size=size)


def test_board_many_rows_small(snap_compare, make_server):
    assert _many(snap_compare, make_server, SMALL)


def test_board_many_rows_large(snap_compare, make_server):
    assert _many(snap_compare, make_server, LARGE)


def test_board_row_floats_up_when_it_waits(snap_compare, make_server):
    store, ids = board_store(7)
    server = make_server(store)

    async def run_before(pilot):
        screen = await open_board(pilot, 7)
        table = screen.query_one(BoardTable)
        table.cursor = next(i for i, r in enumerate(table.rows) if r.conversation_id == ids[4])
        set_status(store, ids[4], "waiting_for_confirmation")
        screen.feed.refresh_now()
        row = table.current
        await wait_for(lambda: row.status == "waiting_for_confirmation", pilot=pilot)
        await wait_for(lambda: table.rows.index(row) < 2, pilot=pilot)
        # said in the status line, not in a toast over the rows
        await wait_for(lambda: bool(screen._lately), pilot=pilot)
        await settle(pilot)

    assert snap_compare(board_app(server), run_before=run_before, terminal_size=SMALL)


def test_board_paused_marked_rows(snap_compare, make_server):
    store, ids = board_store(8, statuses=("running",))
    server = make_server(store)

    async def run_before(pilot):
        screen = await open_board(pilot, 8)
        table = screen.query_one(BoardTable)
        for cid in (ids[1], ids[5]):
            table.cursor = next(i for i, r in enumerate(table.rows) if r.conversation_id == cid)
            await pilot.press("space")
        await pilot.press("p")
        await wait_for(lambda: not screen.model.marks, pilot=pilot)
        await wait_for(
            lambda: sum(r.status == "paused" for r in table.rows) == 2, pilot=pilot, timeout=30
        )
        table.cursor = 0
        await settle(pilot)

    assert snap_compare(board_app(server), run_before=run_before, terminal_size=LARGE)


def test_board_marked_rows(snap_compare, make_server):
    store, ids = board_store(8)
    server = make_server(store)

    async def run_before(pilot):
        screen = await open_board(pilot, 8)
        table = screen.query_one(BoardTable)
        for cid in (ids[0], ids[4]):
            table.cursor = next(i for i, r in enumerate(table.rows) if r.conversation_id == cid)
            await pilot.press("space")
        await settle(pilot)

    assert snap_compare(board_app(server), run_before=run_before, terminal_size=SMALL)


def test_board_approve_question(snap_compare, make_server):
    store, ids = board_store(4)
    server = make_server(store)

    async def run_before(pilot):
        screen = await open_board(pilot, 4)
        table = screen.query_one(BoardTable)
        table.cursor = next(i for i, r in enumerate(table.rows) if r.conversation_id == ids[3])
        await pilot.press("A")
        await wait_for(lambda: dialog_ready(pilot.app, BoardAnswerScreen), pilot=pilot)
        await settled(pilot, keep={"board-act"})  # the answer waits for the dialog

    assert snap_compare(board_app(server), run_before=run_before, terminal_size=SMALL)


def _broken(snap_compare, make_server, size):
    store, _ids = board_store(5)
    server = make_server(store)
    dead = httpx.AsyncHTTPTransport(retries=0)

    def down():
        return OpenHandsClient("http://127.0.0.1:9", transport=dead, max_retries=0), "x"

    def staging():
        raise RuntimeError("profile 'staging' has no url")

    async def run_before(pilot):
        await open_board(pilot, 7)
        await settle(pilot)

    app = board_app(
        server,
        BoardOptions(sockets=0, poll_seconds=600, details_per_poll=100, all_profiles=True),
        profiles={"down": down, "staging": staging},
    )
    return snap_compare(app, run_before=run_before, terminal_size=size)


def test_board_broken_profile_small(snap_compare, make_server):
    assert _broken(snap_compare, make_server, SMALL)


def test_board_broken_profile_large(snap_compare, make_server):
    assert _broken(snap_compare, make_server, LARGE)
