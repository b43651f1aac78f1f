"""The board (key 3): every active agent in one list, changing in place, acted on by key.

Against the reference server over loopback; agents advance only when a test steps them,
and statuses change either on the server's record (a polled row) or on the conversation's
websocket (a followed row)."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import NamedTuple

import httpx

from tests.helpers.app_helpers import (
    FIXED_NOW,
    dialog_ready,
    make_app,
    screen_text,
    send_burst,
    settled,
    wait_for,
)
from tests.helpers.board_helpers import add_agent, board_store, open_board, set_status
from tui.app.app import OhtuiApp
from tui.app.board.options import BoardOptions
from tui.app.screens.board.board import BoardScreen
from tui.app.screens.board.board_answer import BoardAnswerScreen
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.widgets.board.board_table import BoardTable
from tui.client import OpenHandsClient

POLLED = BoardOptions(sockets=0, poll_seconds=60, details_per_poll=100)
LIVE = BoardOptions(sockets=20, poll_seconds=60, details_per_poll=100)


def board_app(server, options=POLLED, **kw):
    return make_app(server.base_url, board=options, profile="ref", **kw)


class Board(NamedTuple):
    app: OhtuiApp
    pilot: object
    screen: BoardScreen
    server: object
    store: object
    ids: list[str]


@asynccontextmanager
async def on_board(make_server, count, *, statuses=None, options=POLLED, **kw):
    """A reference server with ``count`` agents (``board_store``), the app on it, and its
    board open with every row in (what most tests here start from)."""
    store, ids = board_store(count, statuses) if statuses else board_store(count)
    server = make_server(store)
    app = board_app(server, options, **kw)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, count)
        yield Board(app, pilot, screen, server, store, ids)


def rows_by_id(screen):
    """Rows by conversation id (a bare agent server spells them dashed; the store does not)."""
    return {row.conversation_id.replace("-", ""): row for row in screen.query_one(BoardTable).rows}


def move_to(screen, cid: str) -> None:
    table = screen.query_one(BoardTable)
    table.cursor = next(
        i for i, row in enumerate(table.rows) if row.conversation_id.replace("-", "") == cid
    )


async def test_board_lists_the_active_agents_needing_a_human_first(make_server):
    store, ids = board_store(14)
    finished = add_agent(store, 20, "finished", minutes_ago=90)
    old_error = add_agent(store, 21, "error", minutes_ago=180)
    server = make_server(store)
    app = board_app(server)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 14)
        table = screen.query_one(BoardTable)
        shown = {row.conversation_id for row in table.rows}
        assert shown == set(ids)  # the run finished 1½ h ago and the error 3 h ago have gone
        assert finished not in shown and old_error not in shown
        statuses = [row.status for row in table.rows]
        first = [s for s in statuses if s in ("waiting_for_confirmation", "error", "stuck")]
        assert statuses[: len(first)] == first and len(first) == 6  # needing a human: on top
        row = rows_by_id(screen)[ids[3]]  # waiting, 4 terminal steps and the waiting action
        assert row.steps == 5 and row.step == "$ rm -rf build-3"
        assert rows_by_id(screen)[ids[5]].error == "LLMError: upstream 503 for agent 5"
        assert rows_by_id(screen)[ids[0]].step == "$ pytest -x tests/test_api.py"
        text = screen_text(app)
        assert "14 agents · 6 need you · 0 live, 14 polled" in text
        assert "Agent 03: build docs" in text and "confirm?" in text


async def test_ended_runs_of_the_last_hour_stay_on_the_board(make_server):
    """The board's promise, "ended ones from the last 60 min": a run that finished 3 minutes
    ago is listed, and one that finishes while the board is shown stays (finished was not
    among the default statuses: such a row lingered a minute, dimmed, then went)."""
    store, ids = board_store(3)  # running, running, paused
    recent = add_agent(store, 21, "finished", minutes_ago=3)  # ended 3 minutes ago
    old = add_agent(store, 28, "finished", minutes_ago=61)  # ended over an hour ago
    server = make_server(store)
    options = BoardOptions(sockets=0, poll_seconds=60, details_per_poll=100, linger_s=0)
    app = board_app(server, options)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 4)
        rows = rows_by_id(screen)
        assert set(rows) == {*ids, recent} and old not in rows
        assert rows[recent].status == "finished" and rows[recent].leaving_at is None
        set_status(store, ids[0], "finished")  # finishes while shown
        scans = screen.feed.scans
        screen.feed.refresh_now()
        await wait_for(lambda: screen.feed.scans > scans, pilot=pilot)
        scans = screen.feed.scans
        screen.feed.refresh_now()  # a look after it: a leaving row would go now (linger 0)
        await wait_for(lambda: screen.feed.scans > scans, pilot=pilot)
        row = rows_by_id(screen).get(ids[0])
        assert row is not None and row.status == "finished" and row.leaving_at is None
        await wait_for(lambda: "Agent 21" in screen_text(app), pilot=pilot)


async def test_a_polled_row_changes_in_place_and_floats_up(make_server):
    async with on_board(make_server, 7) as board:
        app, pilot, screen, _, store, ids = board
        table = screen.query_one(BoardTable)
        move_to(screen, ids[0])
        row = rows_by_id(screen)[ids[0]]
        assert row.status == "running" and not row.needs_human
        set_status(store, ids[0], "waiting_for_confirmation")
        screen.feed.refresh_now()
        await wait_for(lambda: row.status == "waiting_for_confirmation", pilot=pilot)
        await wait_for(lambda: table.rows.index(row) < 4, pilot=pilot)
        assert rows_by_id(screen)[ids[0]] is row  # the same row, changed in place
        assert table.current is row  # the cursor went with it
        # the row says it: no toast over the board, a word in its status line
        await wait_for(lambda: "lately: 1 to confirm" in screen_text(app), pilot=pilot)
        assert not app._notifications


async def test_a_followed_row_changes_live_from_its_websocket(make_server):
    async with on_board(make_server, 3, statuses=("running",), options=LIVE) as board:
        _, pilot, screen, server, _, ids = board
        row = rows_by_id(screen)[ids[1]]
        await wait_for(lambda: row.followed, pilot=pilot)
        steps = row.steps
        await asyncio.to_thread(server.live.send_message_sync, ids[1], "[confirm] free space")
        await asyncio.to_thread(server.live.run_until_idle_sync, ids[1])
        await wait_for(lambda: row.status == "waiting_for_confirmation", pilot=pilot)
        assert row.steps == steps + 2 and row.step.startswith("$ rm -rf")
        table = screen.query_one(BoardTable)
        await wait_for(lambda: table.rows[0] is row, pilot=pilot)
        assert screen.feed.scans == 1  # no listing was needed: the socket said it
        assert len(screen.feed.followers) <= LIVE.sockets


async def test_sockets_are_bounded_and_the_rest_polled(make_server):
    async with on_board(
        make_server,
        9,
        statuses=("running",),
        options=BoardOptions(sockets=3, poll_seconds=60, details_per_poll=100),
    ) as board:
        app, pilot, screen, *_ = board
        table = screen.query_one(BoardTable)
        await wait_for(lambda: sum(row.followed for row in table.rows) == 3, pilot=pilot)
        shown = screen.model.shown()  # (the table shows it at its next repaint)
        assert [row.followed for row in shown] == [True] * 3 + [False] * 6  # the first ones
        screen.feed.refresh_now()
        await wait_for(lambda: screen.feed.scans == 2, pilot=pilot)
        assert len(screen.feed.followers) == 3 and screen.feed.most_followed == 3
        await wait_for(lambda: "3 live, 6 polled" in screen_text(app), pilot=pilot)


async def test_pause_the_marked_rows(make_server):
    async with on_board(make_server, 6, statuses=("running", "paused")) as board:
        app, pilot, screen, server, _, ids = board
        for cid in (ids[0], ids[4]):
            move_to(screen, cid)
            await pilot.press("space")
        assert {row.conversation_id for row in screen.model.marked()} == {ids[0], ids[4]}
        assert "2 marked" in screen_text(app)
        await pilot.press("p")
        for cid in (ids[0], ids[4]):
            await wait_for(lambda c=cid: server.live.status_sync(c) == "paused", pilot=pilot)
        assert server.live.status_sync(ids[2]) == "running"  # not marked: left alone
        assert not screen.model.marks  # done: the marks go
        await wait_for(
            lambda: any("Pause asked" in n.message for n in app._notifications), pilot=pilot
        )
        screen.feed.refresh_now()
        await wait_for(lambda: rows_by_id(screen)[ids[0]].status == "paused", pilot=pilot)


async def test_run_a_paused_row(make_server):
    async with on_board(make_server, 2, statuses=("paused",)) as board:
        app, pilot, screen, server, _, ids = board
        move_to(screen, ids[1])
        await pilot.press("p")  # a new, paid run: asked first
        await wait_for(lambda: dialog_ready(app, ConfirmScreen), pilot=pilot)
        assert "Run this agent again? It is paused." in screen_text(app)
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(ids[1]) == "running", pilot=pilot)
        assert server.live.status_sync(ids[0]) == "paused"


async def test_approve_shows_the_waiting_action_first(make_server):
    async with on_board(make_server, 4) as board:
        app, pilot, screen, server, _, ids = board
        move_to(screen, ids[3])
        await pilot.press("A")
        await wait_for(lambda: dialog_ready(app, BoardAnswerScreen), pilot=pilot)
        text = screen_text(app)
        assert "Approve what this agent waits to run?" in text
        assert "Agent 03: build docs" in text and "$ rm -rf build-3" in text
        assert server.live.status_sync(ids[3]) == "waiting_for_confirmation"  # not yet
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(ids[3]) == "running", pilot=pilot)
        assert app.screen is screen


async def test_reject_with_a_reason(make_server):
    async with on_board(make_server, 4) as board:
        app, pilot, screen, server, _, ids = board
        move_to(screen, ids[3])
        await pilot.press("R")
        await wait_for(lambda: dialog_ready(app, BoardAnswerScreen), pilot=pilot)
        await pilot.press(*"not the build dir", "enter")
        await wait_for(lambda: server.live.status_sync(ids[3]) == "idle", pilot=pilot)
        page = await OpenHandsClient(server.base_url).search_events(
            ids[3], kind="UserRejectObservation"
        )
        assert page.items[0].rejection_reason == "not the build dir"


async def test_approve_on_a_row_that_waits_on_nothing_says_so(make_server):
    async with on_board(make_server, 2, statuses=("running",)) as board:
        app, pilot, screen, *_ = board
        await pilot.press("A")
        await wait_for(
            lambda: any("waits for confirmation" in n.message for n in app._notifications),
            pilot=pilot,
        )
        assert app.screen is screen


async def test_interrupt_asks_first(make_server):
    async with on_board(make_server, 2, statuses=("running",)) as board:
        app, pilot, screen, server, _, ids = board
        move_to(screen, ids[0])
        await pilot.press("X")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot=pilot)
        await pilot.press("n")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        assert server.live.status_sync(ids[0]) == "running"
        await pilot.press("X")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot=pilot)
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(ids[0]) == "paused", pilot=pilot)


async def test_pause_the_sandbox(make_server):
    async with on_board(make_server, 2, statuses=("running",)) as board:
        _, pilot, screen, _, store, ids = board
        move_to(screen, ids[1])
        sandbox = rows_by_id(screen)[ids[1]].conversation.sandbox_id
        await pilot.press("P")
        await wait_for(lambda: store.get_sandbox(sandbox)["status"] == "PAUSED", pilot=pilot)


async def test_read_only_shows_no_actions(make_server):
    async with on_board(make_server, 4, readonly=True) as board:
        app, pilot, screen, server, _, ids = board
        keys = screen_text(app).splitlines()[-1]
        for label in ("Mark", "Pause/run", "Interrupt", "Approve", "Reject"):
            assert label not in keys
        assert "Open" in keys and "Filter" in keys
        move_to(screen, ids[3])
        await pilot.press("space", "A", "p")
        await settled(pilot)
        assert not screen.model.marks and app.screen is screen
        assert server.live.status_sync(ids[3]) == "waiting_for_confirmation"


async def test_filter_sort_and_status_filter(make_server):
    async with on_board(make_server, 8) as board:
        _, pilot, screen, *_ = board
        table = screen.query_one(BoardTable)
        await pilot.press("slash", *"docs")
        await wait_for(lambda: len(table.rows) == 2, pilot=pilot)
        assert {row.title for row in table.rows} == {"Agent 03: build docs", "Agent 07: build docs"}
        await pilot.press("enter", "escape")
        await wait_for(lambda: len(table.rows) == 8, pilot=pilot)
        await pilot.press("f")  # only the rows needing a human
        await wait_for(lambda: len(table.rows) == 3, pilot=pilot)
        assert all(row.needs_human for row in table.rows)
        await pilot.press("escape")
        await wait_for(lambda: len(table.rows) == 8, pilot=pilot)
        screen.sort_by("title")
        calm = [row.title for row in table.rows if not row.needs_human]
        assert calm == sorted(calm)
        screen.sort_by("title")  # again: reversed
        calm = [row.title for row in table.rows if not row.needs_human]
        assert calm == sorted(calm, reverse=True)
        await pilot.press("s")
        assert screen.model.sort == "status"


async def test_enter_opens_the_row(make_server):
    from tui.app.screens.conversation import ConversationScreen

    async with on_board(make_server, 3) as board:
        app, pilot, screen, _, _, ids = board
        move_to(screen, ids[1])
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        assert app.screen.conversation_id == ids[1]
        await pilot.press("3")  # back to the same board
        await wait_for(lambda: app.screen is screen, pilot=pilot)


async def test_a_broken_profile_is_one_row_and_never_blocks_the_others(make_server):
    store, ids = board_store(3)
    server = make_server(store)
    dead = httpx.AsyncHTTPTransport(retries=0)  # a port where nothing listens

    def broken():
        return OpenHandsClient("http://127.0.0.1:9", transport=dead, max_retries=0), "x"

    def misconfigured():
        raise RuntimeError("profile 'staging' has no url")

    profiles = {"down": broken, "staging": misconfigured}
    app = board_app(
        server, BoardOptions(sockets=0, poll_seconds=60, all_profiles=True), profiles=profiles
    )
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 5)
        table = screen.query_one(BoardTable)
        failed = {row.source: row.failure for row in table.rows if row.failure is not None}
        assert failed["down"].title == "cannot reach the server"
        assert failed["staging"].title == "cannot use this profile"
        assert "has no url" in failed["staging"].detail
        assert [row.failure is not None for row in table.rows][:2] == [True, True]
        assert {row.conversation_id for row in table.rows if row.failure is None} == set(ids)
        text = screen_text(app)
        assert "Board · 3 servers" in text and "cannot reach the server" in text


async def test_toggle_all_profiles(make_server):
    store, _ids = board_store(2)
    other_store, _other_ids = board_store(1, statuses=("paused",))
    server, other = make_server(store), make_server(other_store)
    profiles = {"other": lambda: (OpenHandsClient(other.base_url), other.base_url)}
    app = board_app(server, profiles=profiles)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 2)
        assert len(screen.feed.sources) == 1
        await pilot.press("a")
        table = screen.query_one(BoardTable)
        await wait_for(lambda: len(table.rows) == 3, pilot=pilot)
        assert {row.source for row in table.rows} == {"ref", "other"}
        await pilot.press("a")
        await wait_for(lambda: len(table.rows) == 2, pilot=pilot)


async def test_a_bare_agent_server(make_server):
    store, ids = board_store(4)
    server = make_server(store, kind="agent", session_key="agent-key")
    client = OpenHandsClient(server.base_url, server_kind="agent", session_api_key="agent-key")
    app = OhtuiApp(
        client, url=server.base_url, clock=lambda: FIXED_NOW, board=LIVE, profile="agent"
    )
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 4)
        row = rows_by_id(screen)[ids[0]]
        assert row.steps == 1 and row.status == "running"
        await wait_for(lambda: row.followed, pilot=pilot)
        move_to(screen, ids[3])
        await pilot.press("A")
        await wait_for(lambda: dialog_ready(app, BoardAnswerScreen), pilot=pilot)
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(ids[3]) == "running", pilot=pilot)


async def test_board_from_the_palette(make_server):
    store, _ids = board_store(2)
    server = make_server(store)
    app = board_app(server)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(lambda: app.screen.query("DataTable"), pilot=pilot)
        await pilot.press("ctrl+p", *"board")
        await wait_for(lambda: "Go to board" in screen_text(app), pilot=pilot)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, BoardScreen), pilot=pilot)


async def test_open_a_row_of_another_profile_connects_there(make_server):
    from tui.app.screens.conversation import ConversationScreen

    store, _ids = board_store(1)
    other_store, other_ids = board_store(2, statuses=("paused",))
    server, other = make_server(store), make_server(other_store)
    profiles = {"other": lambda: (OpenHandsClient(other.base_url), other.base_url)}
    app = board_app(server, BoardOptions(sockets=0, all_profiles=True), profiles=profiles)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 3)
        table = screen.query_one(BoardTable)
        table.cursor = next(
            i for i, r in enumerate(table.rows) if r.conversation_id == other_ids[1]
        )
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        assert app.profile == "other" and app.url == other.base_url
        assert app.screen.conversation_id == other_ids[1]


async def test_keys_typed_right_after_slash_go_into_the_filter(make_server):
    """A paste or a fast typist: the keys arrive before the filter could take the focus
    the usual (deferred) way; none of them may act on the board (s sorts, enter opens)."""
    async with on_board(make_server, 8) as board:
        app, pilot, screen, *_ = board
        send_burst(app, [("slash", "/"), *((c, c) for c in "docs"), ("enter", None)])
        box = screen.query_one("#board-filter")
        await wait_for(lambda: box.value == "docs", pilot=pilot)
        await wait_for(lambda: screen.query_one(BoardTable).has_focus, pilot=pilot)
        assert screen.model.sort == "status"
        assert app.screen is screen and len(screen.query_one(BoardTable).rows) == 2


async def test_a_server_whose_listing_leads_back_is_said_in_its_row_not_walked_for_ever(
    make_server,
):
    """The board lists a server's conversations through the client's one page walk
    (``client/paging.py``): a server that ignores the page id (the first page again, naming
    the same next page) ends the scan in the server's row; the scan asked the same page for
    ever before, the list never growing to its bound."""
    store, _ids = board_store(101)  # one more than a page: the scan asks for a second
    server = make_server(store)
    faults = server.app.state.faults
    faults.add("repeat_page", "/api/v1/app-conversations/search", times=-1)
    app = board_app(server)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(lambda: app.screen.query("DataTable"), pilot=pilot)
        await pilot.press("3")
        await wait_for(lambda: isinstance(app.screen, BoardScreen), pilot=pilot)
        table = app.screen.query_one(BoardTable)
        await wait_for(lambda: any(row.failure is not None for row in table.rows), pilot=pilot)
        failure = next(row.failure for row in table.rows if row.failure is not None)
        assert "repeats an earlier one" in failure.detail  # the scan ended, and says why
        assert app.screen.feed.scans == 1
