"""The steps view as people see it, at 80×24 (a new terminal) and 160×48: steps with their
results, "+3" where plumbing folded, a step opened (→) and a merged row's detail."""

from __future__ import annotations

from tests.helpers.app_helpers import make_app, settled, wait_for
from tests.snapshots.test_snapshots import _open
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList


def test_reading_view_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        screen = await _open(pilot, "hello")
        assert screen.window.query.steps

    app = make_app(demo_server.base_url)
    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))


def test_reading_view_160x48(snap_compare, demo_server):
    async def run_before(pilot):
        screen = await _open(pilot, "hello")
        event_list = screen.query_one(EventList)
        await pilot.press("right")  # what folded under the first user message, shown
        window = screen.window
        await wait_for(lambda: window.opened > 0, pilot=pilot)
        echo = next(
            i for i in range(len(window)) if window.row(i).summary.startswith("$ echo hello")
        )
        event_list.cursor = echo
        detail = screen.query_one(EventDetail)
        row = window.row(echo)
        await wait_for(
            lambda: detail._event is not None and detail._event.id == row.id, pilot=pilot
        )
        await settled(pilot)

    app = make_app(demo_server.base_url)
    assert snap_compare(app, run_before=run_before, terminal_size=(160, 48))
