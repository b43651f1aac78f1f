"""The sandboxes screen polls what is shown, and less often while nothing changes (hostile
testing, issue 32, finding 15): with 5,000 sandboxes an idle screen read all 50 pages of
the list every 4 s (12.5 requests a second) and every second while a change was on its way
(peaks of 52). Requests are counted on the wire; each poll is driven by the test (the
screen's own timer is pushed out of the test's way), so no clock is waited on."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.helpers.app_helpers import (
    FIXED_NOW,
    SIZE,
    RecordingTransport,
    conversations_shown,
    make_app,
    screen_ready,
    settled,
    wait_for,
)
from tui.app.screens.sandboxes import sandboxes_poll
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.widgets.common.fitted_table import FittedTable
from tui.server import Store, load_demo
from tui.server.demo.dataset import SPECS
from tui.server.times import utc_text

MANY = 5_000
SEARCH = ("GET", "/api/v1/sandboxes/search")
BATCH = ("GET", "/api/v1/sandboxes")
FAST, SLOW = 400.0, 3_000.0  # the screen's waits in this test: its timer never fires here
BASE = FIXED_NOW.replace(tzinfo=None) - timedelta(days=30)


def _sandbox(index: int, *, status: str = "RUNNING", age_s: float | None = None) -> dict:
    return {
        "id": f"many-{index:05d}",
        "created_at": utc_text(BASE - timedelta(seconds=index if age_s is None else age_s)),
        "created_by_user_id": None,
        "sandbox_spec_id": SPECS[0]["id"],
        "status": status,
        "session_api_key": None,
        "status_detail": None,
        "port": 40000 + index,
        "due_status": None,
        "due_at": None,
    }


@pytest.fixture
def many(make_server, monkeypatch):
    """A server with the demo and 5,000 more sandboxes, and an app that records requests."""
    monkeypatch.setattr(sandboxes_poll, "IDLE_POLL_S", FAST)
    monkeypatch.setattr(sandboxes_poll, "IDLE_MAX_S", SLOW)
    store = Store()
    load_demo(store)
    with store.transaction():
        for index in range(MANY):
            store.put_sandbox(_sandbox(index))
    server = make_server(store)
    transport = RecordingTransport()
    return store, server, transport, make_app(server.base_url, transport=transport)


def _asked(transport: RecordingTransport, since: int = 0) -> list[tuple[str, str]]:
    return [
        (r.method, r.url.path) for r in transport.requests[since:] if "/sandboxes" in r.url.path
    ]


def _batch_ids(transport: RecordingTransport, since: int) -> list[list[str]]:
    return [
        r.url.params.get_list("id")
        for r in transport.requests[since:]
        if (r.method, r.url.path) == BATCH
    ]


async def _sandboxes(app, pilot, total: int):
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    await pilot.press("2")
    await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
    screen = app.screen
    table = screen.query_one(FittedTable)
    await wait_for(lambda: table.row_count == total, pilot=pilot)
    await settled(pilot)
    return screen, table


async def _poll(screen, pilot) -> None:
    """One poll, as the screen's timer makes it."""
    screen.poll_sandboxes()
    await settled(pilot)


async def test_an_idle_poll_reads_the_first_page_and_waits_longer_each_time(many):
    store, server, transport, app = many
    async with app.run_test(size=SIZE) as pilot:
        total = len(store.search_sandboxes(limit=10 * MANY)[0])
        screen, table = await _sandboxes(app, pilot, total)
        listing = _asked(transport)
        assert listing == [SEARCH] * (total // 100 + 1)  # opening reads the whole list once
        assert screen.pace.interval == FAST
        since = len(transport.requests)
        waits = []
        for _ in range(5):
            await _poll(screen, pilot)
            waits.append(screen.pace.interval)
        assert _asked(transport, since) == [SEARCH] * 5  # one page a poll, not 51
        assert waits == [2 * FAST, 4 * FAST, SLOW, SLOW, SLOW]
        # a change elsewhere on the first page shows, and the waits are short again
        first = table.keys[0]
        server.lifecycle.pause_sandbox(first)
        await _poll(screen, pilot)
        assert screen._sandboxes[first].status == "PAUSED"
        assert table.get_cell(first, "status").plain.endswith("PAUSED")
        assert screen.pace.interval == FAST
        await _poll(screen, pilot)
        assert screen.pace.interval == 2 * FAST
        # a key (the cursor moves): the next poll comes at the short wait again
        await pilot.press("j")
        await settled(pilot)
        assert screen.pace.interval == FAST


async def test_rows_on_screen_below_the_first_page_are_read_by_id(many):
    store, server, transport, app = many
    async with app.run_test(size=SIZE) as pilot:
        total = len(store.search_sandboxes(limit=10 * MANY)[0])
        screen, table = await _sandboxes(app, pilot, total)
        table.move_cursor(row=2_500)
        await settled(pilot)
        shown = table.visible_keys()
        assert table.current_key in shown and 0 < len(shown) <= SIZE[1]
        deleted, paused = shown[3], shown[4]
        server.lifecycle.delete_sandbox(deleted)  # elsewhere
        server.lifecycle.pause_sandbox(paused)
        since = len(transport.requests)
        await _poll(screen, pilot)
        assert _asked(transport, since) == [SEARCH, BATCH]
        (asked,) = _batch_ids(transport, since)
        assert asked == shown and len(asked) <= 100  # what is on screen, in one request
        assert deleted not in table.rows and deleted not in screen._sandboxes
        assert table.get_cell(paused, "status").plain.endswith("PAUSED")
        assert table.row_count == total - 1 and screen.pace.interval == FAST


async def test_a_sandbox_started_elsewhere_comes_and_the_one_it_pushes_down_stays(many):
    store, _server, transport, app = many
    async with app.run_test(size=SIZE) as pilot:
        total = len(store.search_sandboxes(limit=10 * MANY)[0])
        screen, table = await _sandboxes(app, pilot, total)
        first_page = [box["id"] for box in store.search_sandboxes(limit=100)[0]]
        store.put_sandbox(_sandbox(MANY, age_s=-60))  # the newest of all
        since = len(transport.requests)
        await _poll(screen, pilot)
        assert f"many-{MANY:05d}" in table.rows and table.row_count == total + 1
        assert screen.pace.interval == FAST
        # the first page's last row moved to the second page: asked about by id in the same
        # poll, to tell it from one deleted elsewhere; it stays
        assert _asked(transport, since) == [SEARCH, BATCH]
        assert _batch_ids(transport, since) == [[first_page[-1]]]
        assert first_page[-1] in table.rows
        since = len(transport.requests)
        await _poll(screen, pilot)
        assert _asked(transport, since) == [SEARCH]


async def test_a_change_on_its_way_is_asked_about_alone(many):
    store, _server, transport, app = many
    async with app.run_test(size=SIZE) as pilot:
        total = len(store.search_sandboxes(limit=10 * MANY)[0])
        screen, table = await _sandboxes(app, pilot, total)
        await _poll(screen, pilot)
        await _poll(screen, pilot)
        assert screen.pace.interval == 4 * FAST  # idle for a while
        running = next(k for k in table.keys if screen._sandboxes[k].status == "RUNNING")
        table.cursor_to(running)
        since = len(transport.requests)
        await pilot.press("p")
        await wait_for(lambda: not screen._pending, pilot=pilot)
        await settled(pilot)
        asked = _asked(transport, since)
        assert asked[0] == ("POST", f"/api/v1/sandboxes/{running}/pause")
        assert asked[1:] and set(asked[1:]) == {BATCH}  # never the whole list
        assert all(ids == [running] for ids in _batch_ids(transport, since))
        assert screen._sandboxes[running].status == "PAUSED"
        assert screen.pace.interval == FAST  # a change: the next idle poll comes soon


async def test_no_poll_while_another_screen_is_shown(many):
    store, _server, transport, app = many
    async with app.run_test(size=SIZE) as pilot:
        total = len(store.search_sandboxes(limit=10 * MANY)[0])
        screen, _table = await _sandboxes(app, pilot, total)
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await settled(pilot)
        since = len(transport.requests)
        screen.poll_due()  # the timer's turn while the conversations are shown
        await settled(pilot)
        assert _asked(transport, since) == []
        await pilot.press("2")  # back: one poll at once, from the short wait
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await settled(pilot)
        assert _asked(transport, since) == [SEARCH] and screen.pace.interval == 2 * FAST
