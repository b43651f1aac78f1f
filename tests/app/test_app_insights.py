"""The insights view, driven by keys against the real reference server: opened with ``i``
or the palette, tabs, Enter going to the event in the list, the per-conversation cache,
and a server that fails pages on the way."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest

from tests.helpers.app_helpers import (
    SIZE,
    RecordingTransport,
    make_app,
    push_conversation,
    screen_text,
    tree_ready,
    wait_for,
)
from tui.app.commands import OhtuiCommands
from tui.app.screens import insights as insights_screen
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.insights import InsightsScreen
from tui.app.widgets.conversation.event_list import EventList
from tui.client import OpenHandsClient
from tui.insights import compute_insights
from tui.models import parse_event
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation

IDS = load_demo(Store())


@pytest.fixture(autouse=True)
def fresh_cache():
    insights_screen.CACHE.clear()
    yield
    insights_screen.CACHE.clear()


async def open_conversation(pilot, cid: str) -> ConversationScreen:
    screen = await push_conversation(pilot, cid)
    await wait_for(lambda: tree_ready(screen), pilot=pilot)
    return screen


async def open_insights(pilot) -> InsightsScreen:
    await pilot.press("i")
    app = pilot.app
    await wait_for(
        lambda: isinstance(app.screen, InsightsScreen) and app.screen.insights is not None,
        pilot=pilot,
    )
    return app.screen


def expected(store, cid: str):
    events = [parse_event(json.loads(row.json)) for row in store.iter_events(cid)]
    return compute_insights(events, cid)


async def test_i_shows_the_conversations_insights_and_tabs_switch(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await open_conversation(pilot, IDS["long"])
        screen = await open_insights(pilot)
        want = expected(demo_server.store, IDS["long"])
        found = screen.insights
        assert (found.events, found.cost, found.tokens) == (want.events, want.cost, want.tokens)
        assert found.title == "Port the CLI to asyncio (long session)"
        text = screen_text(app)
        assert "Insights · Port the CLI to asyncio (long session)" in text
        assert f"${want.cost:,.2f}" in text and "condensation" in text
        tabs = screen.query_one("#insights-tabs")
        for tab in ("timeline", "tools", "slowest", "steps", "models", "failures", "summary"):
            await pilot.press("right_square_bracket")
            assert tabs.active == tab
        await pilot.press("left_square_bracket")
        assert tabs.active == "failures"
        assert app.focused.id == "failures-table"
        assert "×" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, ConversationScreen)


async def test_enter_on_a_slow_action_goes_to_it_in_the_list(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        conversation = await open_conversation(pilot, IDS["hello"])
        screen = await open_insights(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        assert app.focused.id == "slowest-table"
        await pilot.press("down")  # the second slowest
        wanted = screen.insights.slowest[1].event_id
        await pilot.press("enter")
        assert app.screen is conversation
        event_list = conversation.query_one(EventList)
        assert conversation.window.row(event_list.cursor).id == wanted
        assert app.focused is event_list


async def test_enter_on_a_repeated_failure_goes_to_its_last_failure(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        conversation = await open_conversation(pilot, IDS["long"])
        screen = await open_insights(pilot)
        await pilot.press("left_square_bracket")  # wraps to the last tab
        worst = screen.insights.failures[0]
        await pilot.press("enter")
        assert app.screen is conversation
        row = conversation.window.row(conversation.query_one(EventList).cursor)
        assert row.id == worst.last_id and row.summary.startswith("$ pytest")


async def test_tables_without_events_to_open_do_not_offer_enter(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await open_conversation(pilot, IDS["hello"])
        screen = await open_insights(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert app.focused.id == "tools-table"
        assert "Open event" not in screen_text(app)
        await pilot.press("enter")
        assert app.screen is screen
        await pilot.press("right_square_bracket")
        assert "Open event" in screen_text(app)


async def test_insights_are_kept_per_conversation_and_r_reads_again(demo_server):
    transport = RecordingTransport()
    app = make_app(demo_server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        await open_conversation(pilot, IDS["hello"])
        first = await open_insights(pilot)
        pages = len(transport.queries("/events/search"))
        await pilot.press("escape")
        again = await open_insights(pilot)
        assert again is not first and again.insights is first.insights
        assert len(transport.queries("/events/search")) == pages  # nothing read again
        await pilot.press("r")
        await wait_for(lambda: again.insights is not first.insights, pilot=pilot)
        assert len(transport.queries("/events/search")) > pages
        assert again.insights == first.insights  # the same log, the same answers


async def test_the_palette_offers_insights_in_a_conversation(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await open_conversation(pilot, IDS["hello"])
        provider = OhtuiCommands(app.screen)
        (entry,) = [c for c in provider._commands() if c[0] == "Insights"]
        entry[1]()
        await wait_for(
            lambda: isinstance(app.screen, InsightsScreen) and app.screen.insights is not None,
            pilot=pilot,
        )


async def test_failing_pages_are_read_again_until_every_event_counts(make_server):
    store = Store()
    cid = generate_conversation(store, 450, seed=7)
    server = make_server(store)
    client = OpenHandsClient(server.base_url, max_retries=1, backoff=0.01)
    from tests.helpers.app_helpers import FIXED_NOW
    from tui.app.app import OhtuiApp

    app = OhtuiApp(client, url=server.base_url, clock=lambda: FIXED_NOW)
    async with app.run_test(size=SIZE) as pilot:
        await open_conversation(pilot, cid)
        search = f"/api/v1/conversation/{cid}/events/search"
        server.app.state.faults.add("status", search, times=3, status=503)
        screen = await open_insights(pilot)
        assert server.app.state.faults.pending == 0
        found = replace(screen.insights, title=None, record_cost=None)
        assert found == replace(expected(store, cid), record_cost=None)


async def test_an_event_not_indexed_yet_is_shown_in_the_detail(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        conversation = await open_conversation(pilot, IDS["hello"])
        target = conversation.events.base.head[-1]
        conversation.events.base.head.pop()  # as if the index had not reached it
        conversation.go_to_event(target.id)
        detail = conversation.query_one("#event-detail")
        await wait_for(
            lambda: detail._event is not None and detail._event.id == target.id, pilot=pilot
        )


def test_the_client_keeps_no_insights_between_servers():
    one = OpenHandsClient("http://127.0.0.1:1", transport=httpx.MockTransport(lambda r: None))
    two = OpenHandsClient("http://127.0.0.1:2", transport=httpx.MockTransport(lambda r: None))
    assert insights_screen.cache_key(one, "c") != insights_screen.cache_key(two, "c")
