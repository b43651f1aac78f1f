"""A new view's first page is sized to the list, and the page-loop guard no longer needs
pages of one size.

A filter's first page asks for the list's height and a margin (reading a page is most of a
filter change); the rest of a full page follows right after the first paint, so the view
scrolls, counts and ends as before. A server that ignores page ids sends its first page
again under a new next id when the page size changes: that is stopped as a loop, with the
rows shown once.
"""

from __future__ import annotations

import gc
import json

from tests.helpers.app_helpers import (
    SIZE,
    RecordingTransport,
    list_ready,
    make_app,
    notes_told,
    push_conversation,
    settled,
    wait_for,
)
from tests.server.test_faults import app_for, open_and_index
from tui.app.screens.conversation.loading import FIRST_PAGE_MARGIN
from tui.app.store.conversation_events import PAGE
from tui.app.store.row_windows import EventQuery
from tui.app.store.rows import EventRow
from tui.app.widgets.conversation.event_list import EventList
from tui.client import PageLoopError
from tui.client.paging import PageTrail, event_mark
from tui.server import Store
from tui.server.demo import generate_conversation

ACTIONS = EventQuery(kind="ActionEvent")


def action_ids(store: Store, cid: str) -> list[str]:
    """The server's ActionEvents, oldest first: what the filtered list must show."""
    rows = sorted(store.iter_events(cid), key=lambda row: (row.timestamp, row.seq))
    events = [json.loads(row.json) for row in rows]
    return [e["id"] for e in events if e["kind"] == "ActionEvent"]


def row(event_id: str | None, stamp: str) -> EventRow:
    return EventRow(event_id, stamp, "agent", "ActionEvent", "")


def page(*ids: str) -> list[EventRow]:
    return [row(i, f"2026-01-01T00:00:{n:02d}") for n, i in enumerate(ids)]


def test_a_page_that_starts_as_an_earlier_one_is_a_loop_whatever_its_size():
    trail = PageTrail(event_mark)
    trail.check(None, "p1", page("a", "b", "c"))  # the first page, sized to the screen
    try:
        trail.check("p1", "p2", page("a", "b", "c", "d", "e", "f"))  # the same page, fuller
    except PageLoopError as exc:
        assert "sent a page it had sent before" in str(exc)
    else:
        raise AssertionError("a page sent again was taken")


def test_pages_that_share_a_first_id_but_not_their_start_are_not_a_loop():
    trail = PageTrail(event_mark)
    trail.check(None, "p1", page("a", "b", "c", "d", "e"))
    # two events with one id (kept as duplicates): the same id starts the next page
    trail.check("p1", "p2", [row("a", "2026-01-01T00:01:00"), *page("x", "y")])
    trail.check("p2", "p3", [*page("a", "b"), row("z", "2026-01-01T00:02:00")])
    trail.check("p3", None, page("q"))  # the last page


def test_a_next_id_already_followed_is_still_a_loop():
    trail = PageTrail(event_mark)
    trail.check(None, "p1", page("a"))
    trail.check("p1", "p2", page("b"))
    for asked, next_page in (("p2", "p2"), ("p2", "p1")):
        try:
            trail.check(asked, next_page, page("c"))
        except PageLoopError as exc:
            assert exc.page_id == next_page
        else:
            raise AssertionError(f"{next_page} followed twice")


async def test_a_filter_asks_for_a_screenful_then_a_full_page_and_shows_every_row(make_server):
    store = Store()
    cid = generate_conversation(store, 600, seed=11)
    expected = action_ids(store, cid)
    assert len(expected) > PAGE  # more than the first two pages: the rest by scrolling
    server = make_server(store)
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list = screen.query_one(EventList)
        first = event_list.size.height + FIRST_PAGE_MARGIN
        before = len(transport.requests)
        screen.apply_query(ACTIONS)
        await wait_for(
            lambda: screen.window.query.kind == "ActionEvent" and list_ready(screen), pilot=pilot
        )
        window = screen.window
        # the next page follows the first paint unasked: paging down finds its rows there
        await wait_for(lambda: len(window.head) == first + PAGE, pilot=pilot)
        await settled(pilot)
        searches = [
            dict(r.url.params)
            for r in transport.requests[before:]
            if r.url.path.endswith("/events/search") and r.url.params.get("kind__eq")
        ]
        assert [(s.get("limit"), "page_id" in s) for s in searches] == [
            (str(first), False),
            (str(PAGE), True),
        ]
        assert [r.id for r in window.head] == expected[: first + PAGE]
        assert len(window) == len(expected)
        assert str(event_list.border_title).endswith(f"· {len(expected):,} events")
        await pilot.press("pagedown")
        assert window.row(event_list.cursor) is not None  # no placeholder to wait for
        await pilot.press("end")
        await wait_for(
            lambda: event_list.cursor == len(expected) - 1 and event_list.current is not None,
            pilot=pilot,
        )
        assert event_list.current.id == expected[-1]


async def test_a_server_ignoring_page_ids_shows_a_filters_rows_once(make_server):
    store = Store()
    cid = generate_conversation(store, 600, seed=11)
    expected = action_ids(store, cid)
    server = make_server(store)
    app = app_for(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        notes = notes_told(app)
        screen = await open_and_index(app, pilot, cid)
        await wait_for(lambda: list_ready(screen) and screen.events.base.complete, pilot=pilot)
        # from now on every search page is the first one (its next id changes with its size)
        server.app.state.faults.add(
            "repeat_page", f"/api/v1/conversation/{cid}/events/search", times=-1
        )
        event_list = screen.query_one(EventList)
        first = event_list.size.height + FIRST_PAGE_MARGIN
        screen.apply_query(ACTIONS)
        await wait_for(
            lambda: any("sent a page it had sent before" in n for n in notes), pilot=pilot
        )
        window = screen.window
        assert window.query.kind == "ActionEvent"
        ids = [r.id for r in window.head]
        assert ids == expected[:first] and len(set(ids)) == first  # each row once
        await pilot.press("j", "j")  # still responsive
        assert event_list.cursor == 2
        assert app.is_running


async def test_the_same_filter_again_walks_its_pages_anew(make_server):
    """Each window keeps its own pages: a later window of the same query (which may get a
    freed window's id) is not taken for a loop of the first one."""
    store = Store()
    cid = generate_conversation(store, 600, seed=11)
    expected = action_ids(store, cid)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        notes = notes_told(app)
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        first = screen.query_one(EventList).size.height + FIRST_PAGE_MARGIN
        for _ in range(3):
            screen.apply_query(ACTIONS)
            await wait_for(
                lambda: (
                    screen.window.query.kind == "ActionEvent"
                    and len(screen.window.head) == first + PAGE
                ),
                pilot=pilot,
            )
            assert [r.id for r in screen.window.head] == expected[: first + PAGE]
            screen.apply_query(EventQuery())
            await wait_for(lambda: screen.window is screen.events.base, pilot=pilot)
            gc.collect()  # the filter's window is freed: the next one may get its id
        assert not any("paging stopped" in n for n in notes), notes
