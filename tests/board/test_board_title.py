"""The board names its server as the conversations list does: the profile, "demo" for the
bundled demo server (whose port is random), with the server's kind under the board."""

from __future__ import annotations

from tests.helpers.app_helpers import make_app, wait_for
from tests.helpers.board_helpers import board_store, open_board
from tui.app.board.options import BoardOptions
from tui.app.widgets.board.board_table import BoardTable

POLLED = BoardOptions(sockets=0, poll_seconds=600, details_per_poll=100)


async def _titles(app, rows: int) -> tuple[str, str]:
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_board(pilot, rows)
        table = screen.query_one(BoardTable)
        await wait_for(lambda: bool(table.border_subtitle), pilot=pilot)
        return str(table.border_title), str(table.border_subtitle)


async def test_the_bundled_demo_is_called_demo(make_server):
    store, _ids = board_store(2)
    app = make_app(make_server(store).base_url, board=POLLED, warm_up=lambda: None)
    assert app.bundled
    assert await _titles(app, 2) == ("Board · demo", "app server")


async def test_a_profile_is_called_by_its_name(make_server):
    store, _ids = board_store(2)
    app = make_app(make_server(store).base_url, board=POLLED, profile="team")
    assert not app.bundled
    assert await _titles(app, 2) == ("Board · team", "app server")
