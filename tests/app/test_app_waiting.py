"""Honest waiting on screen: a slow server is said with what is waited for, a Retry-After is
honoured (not 8 retries in 16 s) and counted down, and an export shows its progress and can
be cancelled, leaving no file.

Faults come from the reference server's queue; the screen's once-a-second clock is made
faster here so no test waits whole seconds for a line to change.
"""

from __future__ import annotations

from tests.helpers.app_helpers import SIZE, conversations_shown, list_ready, make_app, wait_for
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation import waiting as waiting_module
from tui.app.screens.conversation.waiting import duration, waiting_text
from tui.app.store.conversation_events import Waiting
from tui.app.store.event_cache import EventCache
from tui.app.widgets.conversation.event_list import EventList
from tui.client import RateLimited
from tui.server import Store
from tui.server.demo import generate_conversation


def _search(cid: str) -> str:
    return f"/api/v1/conversation/{cid}/events/search"


async def _opened(app, pilot, cid: str) -> ConversationScreen:
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(cid)
    await wait_for(
        lambda: isinstance(app.screen, ConversationScreen) and bool(app.screen.query(EventList)),
        pilot=pilot,
    )
    return app.screen


def test_waiting_text_says_what_for_how_long_and_until_when():
    assert duration(7.4) == "7 s" and duration(118) == "1:58" and duration(724) == "12:04"
    wait = Waiting("events page 1", since=100.0)
    assert waiting_text(wait, 101.0) is None  # quick answers are never mentioned
    assert waiting_text(wait, 112.2) == "Waiting for the server: events page 1 (12 s)…"
    wait.failure = RateLimited("429", status=429, retry_after=120)
    wait.retry_at, wait.asked = 232.0, True
    assert waiting_text(wait, 113.0) == (
        "The server asked to wait (server busy: 429): events page 1 again in 1:59…"
    )


async def test_a_slow_first_page_is_said_in_the_list_with_what_is_waited_for(
    make_server, monkeypatch
):
    monkeypatch.setattr(waiting_module, "SLOW_AFTER", 0.2)
    monkeypatch.setattr(waiting_module, "TICK_S", 0.05)
    store = Store()
    cid = generate_conversation(store, 20, seed=7)
    server = make_server(store)
    server.app.state.faults.add("slow", _search(cid), times=1, delay=1.5)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _opened(app, pilot, cid)
        event_list = screen.query_one(EventList)
        await wait_for(lambda: "Waiting for the server" in event_list.empty_text, pilot=pilot)
        assert "events page 1" in event_list.empty_text
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await wait_for(lambda: screen.waiting_said is None, pilot=pilot)
        assert "Waiting" not in event_list.empty_text  # the wait is over: not said any more


async def test_retry_after_is_honoured_and_counted_down(make_server, monkeypatch):
    monkeypatch.setattr(waiting_module, "TICK_S", 0.05)
    store = Store()
    cid = generate_conversation(store, 20, seed=8)
    server = make_server(store)
    faults = server.app.state.faults
    faults.add("status", _search(cid), times=1, status=429, headers={"retry-after": "120"})
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _opened(app, pilot, cid)
        event_list = screen.query_one(EventList)
        await wait_for(lambda: "again in" in event_list.empty_text, pilot=pilot)
        said = event_list.empty_text
        assert said.startswith("The server asked to wait (server busy: 429): events page 1")
        wait = screen.events.waiting
        assert wait is not None and wait.asked and faults.hits["status"] == 1
        # the store waits the whole 120 s the server asked for, not its own short backoff
        assert wait.retry_at - screen.events.clock() > 100
        wait.retry_at = screen.events.clock() + 61.2  # a minute later, as the clock says
        await wait_for(lambda: "again in 1:01" in event_list.empty_text, pilot=pilot)


async def test_an_export_shows_progress_and_ctrl_s_again_cancels_it(
    make_server, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    store = Store()
    cid = generate_conversation(store, 250, seed=9)
    server = make_server(store)
    app = make_app(server.base_url)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await _opened(app, pilot, cid)
        await wait_for(lambda: list_ready(screen) and screen.events.base.complete, pilot=pilot)
        real = app.notify
        app.notify = lambda message, *a, **k: (notes.append(str(message)), real(message, *a, **k))
        screen.events._cache = EventCache()  # the export must fetch the events by id…
        batch = f"/api/v1/conversation/{cid}/events"
        server.app.state.faults.add("slow", batch, times=-1, delay=0.5)  # …from a slow server
        screen.query_one(EventList).focus()
        await pilot.press("ctrl+s")
        await wait_for(lambda: screen.export_status.startswith("exporting 0/"), pilot=pilot)
        assert "ctrl+s: cancel" in str(screen.query_one(EventList).border_subtitle)
        await pilot.press("ctrl+s")
        await wait_for(lambda: any("Export cancelled" in n for n in notes), pilot=pilot)
        assert screen.export_run is None and screen.export_status == ""
        server.app.state.faults.clear()
    assert list(tmp_path.iterdir()) == []  # neither the file nor a temporary one
