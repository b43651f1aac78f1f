"""The board raises no toast for what its own rows show: a status change is said once in
its status line (and rings the bell as the app's notices do); on another screen, the
board's changes still become a few toasts."""

from __future__ import annotations

from tests.helpers.app_helpers import make_app, screen_text, wait_for
from tests.helpers.board_helpers import board_store, open_board, set_status
from tui.app.board.notices import Lately
from tui.app.board.options import BoardOptions
from tui.app.widgets.board.board_table import BoardTable

POLLED = BoardOptions(sockets=0, poll_seconds=600, details_per_poll=100)


def test_lately_counts_the_news_of_the_last_seconds():
    now = [100.0]
    lately = Lately(keep=30, clock=lambda: now[0])
    assert not lately and lately.summary() == ""
    lately.add("finished")
    now[0] += 20
    lately.add("waiting_for_confirmation")
    lately.add("finished")
    assert lately.summary() == "lately: 2 finished, 1 to confirm"
    now[0] += 15  # the first one is older than 30 s
    assert lately.summary() == "lately: 1 to confirm, 1 finished"
    now[0] += 30
    assert lately.summary() == "" and not lately


def test_one_piece_of_news_is_said_with_its_title():
    now = [100.0]
    lately = Lately(keep=30, clock=lambda: now[0])
    lately.add("error", "Fix the build\x1b[2J on main")
    # a title is untrusted: shown literally, its controls neutralised
    assert lately.summary() == "lately: “Fix the build\u241b[2J on main” failed"
    assert lately.summary(room=30) == "lately: “Fix the buil…” failed"  # cut to fit 30
    assert lately.summary(room=20) == "lately: 1 failed"  # no room for a title
    lately.add("finished", "Another")
    assert lately.summary() == "lately: 1 failed, 1 finished"  # several: counted
    now[0] += 31
    lately.add("finished", "x" * 80)
    assert lately.summary() == f"lately: “{'x' * 39}…” finished"


async def test_changes_on_the_board_go_to_its_status_line_not_to_toasts(make_server):
    store, ids = board_store(7, statuses=("running",))
    server = make_server(store)
    app = make_app(server.base_url, board=POLLED, profile="ref")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_board(pilot, 7)
        bells = []
        app.bell = lambda: bells.append(1)
        for cid, status in zip(ids, ("finished", "finished", "stuck", "paused")):
            set_status(store, cid, status)
        screen.feed.refresh_now()
        table = screen.query_one(BoardTable)
        await wait_for(lambda: sum(r.status != "running" for r in table.rows) == 4, pilot=pilot)
        await wait_for(lambda: "lately: 2 finished, 1 stuck" in screen_text(app), pilot=pilot)
        assert not app._notifications and bells  # paused is not news (as in the app)
        # the app's notifier heard of them: the list below will not tell them again
        assert app.notifier.notice(ids[0], "x", "running", "finished") is None


async def test_changes_while_another_screen_is_shown_are_toasts(make_server):
    from tui.app.screens.conversation import ConversationScreen

    store, ids = board_store(4, statuses=("running",))
    server = make_server(store)
    app = make_app(server.base_url, board=POLLED, profile="ref")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 4)
        table = screen.query_one(BoardTable)
        table.cursor = next(i for i, r in enumerate(table.rows) if r.conversation_id == ids[1])
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        set_status(store, ids[2], "error")
        screen.feed.refresh_now()
        await wait_for(
            lambda: any("stopped with an error" in n.message for n in app._notifications),
            pilot=pilot,
        )
