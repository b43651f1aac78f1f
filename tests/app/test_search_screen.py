"""Search all conversations (``S`` on the list, the palette): the index fills in the
background with its progress said, hits come as the query is typed, grouped by
conversation, and enter lands on the hit's event in its conversation. Pinned at 80×24 and
160×48."""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import (
    FIXED_NOW,
    conversations_shown,
    make_app,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tui.app.commands import OhtuiCommands
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.search import SearchScreen
from tui.app.store.search import FindQuery
from tui.app.store.step_rows import holds
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.search_results import SearchResults
from tui.search_index import find_pattern
from tui.server import Store, load_demo


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def demo(make_server):
    store = Store()
    names = load_demo(store, now=FIXED_NOW.timestamp())
    return make_server(store), names


def _filled(app) -> bool:
    progress = app.search.progress
    return progress is not None and progress.done


async def _search(pilot, text: str) -> SearchScreen:
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    await pilot.press("S")
    await wait_for(lambda: screen_ready(app, SearchScreen), pilot=pilot)
    await wait_for(lambda: _filled(app), pilot=pilot)
    for key in text:
        await pilot.press(key if key != " " else "space")
    screen = app.screen
    await wait_for(lambda: screen._query == text and screen._answered == screen._asked, pilot=pilot)
    return screen


async def test_hits_as_typed_and_enter_lands_on_the_event(demo):
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _search(pilot, "hello.py")
        found = screen._results
        assert found.groups[0].conversation == names["hello"]
        shown = screen_text(app)
        total = app.search.progress.total
        assert f"indexed {total} of {total} conversations" in shown
        assert "Write hello.py and run it" in shown
        results = screen.query_one(SearchResults)
        await pilot.press("down")  # from the query to the hits
        assert results.has_focus
        await pilot.press("down")
        hit = results.chosen
        assert hit is found.groups[0].hits[1]
        await pilot.press("enter")
        await wait_for(lambda: screen_ready(app, ConversationScreen), pilot=pilot)
        conversation = app.screen
        assert conversation.conversation_id == hit.conversation
        # the list's cursor on the row that stands for the event (in the steps view an
        # observation is its action's row), its detail shown
        event_list = conversation.query_one(EventList)
        detail = conversation.query_one(EventDetail)

        def landed() -> bool:
            row = event_list.current
            shown = detail._event
            return (
                row is not None
                and holds(row, hit.event_id)
                and shown is not None
                and (shown.id == row.id)
            )

        await wait_for(landed, pilot=pilot)
        await pilot.press("escape")  # back to the hits, as they were
        await wait_for(lambda: screen_ready(app, SearchScreen), pilot=pilot)
        assert app.screen is screen and screen.query_one(SearchResults).chosen is hit


async def test_a_filter_that_is_no_time_is_said_and_the_palette_offers_search(demo):
    server, _ = demo
    app = make_app(server.base_url)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        labels = [label for label, *_ in OhtuiCommands(app.screen)._commands()]
        assert "Search all conversations" in labels
        screen = await _search(pilot, "since:soon")
        assert "not a time" in screen_text(app)
        assert not screen.query_one(SearchResults).option_count


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_the_search_screen_snapshot(snap_compare, demo, size):
    server, _ = demo

    async def run_before(pilot):
        await _search(pilot, "pytest kind:action")
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=size)


async def test_new_events_are_found_after_a_refill(demo):
    """What a run adds after the first fill (its conversation's ``updated_at`` moves) is
    found once the index is brought up to date, as the screen's refill timer does."""
    server, names = demo
    app = make_app(server.base_url)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _search(pilot, "quokkaland")
        assert not screen._results.groups
        cid = names["hello"]
        store = server.store
        store.append_events(
            cid,
            [
                {
                    "id": "late-output",
                    "timestamp": "2026-11-21T11:59:00",
                    "source": "agent",
                    "kind": "MessageEvent",
                    "llm_message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "deployed to quokkaland"}],
                    },
                    "parent_id": None,
                }
            ],
        )
        store.put_conversation(
            {**store.get_conversation(cid), "updated_at": "2026-11-21T11:59:01Z"}
        )
        rounds = app.search.rounds
        app.search.fill()
        await wait_for(lambda: app.search.rounds > rounds, pilot=pilot)
        await wait_for(lambda: screen._results.groups, pilot=pilot)
        hit = screen._results.groups[0].hits[0]
        assert (hit.conversation, hit.event_id) == (cid, "late-output")
        assert "quokkaland" in screen_text(app)


async def test_the_hits_words_are_marked_by_the_find_bar_and_the_cursor_stays(demo):
    """After enter on a hit the conversation's find bar holds the query's words (filters
    left out) and marks them, as ``/`` would, while the cursor stays on the hit's event."""
    server, _ = demo
    app = make_app(server.base_url)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _search(pilot, "hello.py kind:action")
        await pilot.press("down", "down")
        hit = screen.query_one(SearchResults).chosen
        await pilot.press("enter")
        await wait_for(lambda: screen_ready(app, ConversationScreen), pilot=pilot)
        conversation = app.screen
        event_list = conversation.query_one(EventList)
        await wait_for(
            lambda: event_list.current is not None and holds(event_list.current, hit.event_id),
            pilot=pilot,
        )
        await wait_for(lambda: conversation.finder is not None, pilot=pilot)
        bar = conversation.find_bar
        assert bar.has_class("-visible") and bar.query_text == find_pattern("hello.py")
        assert bar.current() == (FindQuery(find_pattern("hello.py"), regex=True), False)
        assert event_list._finder is conversation.finder
        await wait_for(lambda: "hit" in bar.status or "of" in bar.status, pilot=pilot)
        assert holds(event_list.current, hit.event_id)  # marked, not moved
        assert event_list.has_focus  # n / N walk the words' other hits
        await pilot.press("escape")  # the hit's words need no esc of their own: back to the hits
        await wait_for(lambda: screen_ready(app, SearchScreen), pilot=pilot)
        assert app.screen is screen
