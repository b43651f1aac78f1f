"""Live conversations in the UI: the stream, controls, banners, against the real server."""

from __future__ import annotations

import asyncio

from tests.app_helpers import SIZE, make_app, screen_text, wait_for
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversations import ConversationsScreen
from tui.app.widgets.event_list import EventList
from tui.server import Store, add_live_demo, load_demo

FIXED = 1_795_000_000.0  # a fixed clock: deterministic live timestamps for pictures


async def open_live(app, pilot, cid: str) -> ConversationScreen:
    await wait_for(lambda: isinstance(app.screen, ConversationsScreen), pilot=pilot)
    app.open_conversation(cid)
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(
        lambda: screen.live is not None
        and screen.live.state.connection is not None
        and screen.live.state.connection.state == "live"
        and screen.feed.base.complete,
        pilot=pilot,
    )
    return screen


def rows(screen) -> list:
    return [screen.window.row(i) for i in range(len(screen.window))]


async def test_live_run_appears_in_list_and_tree(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        before = len(screen.window)
        assert "● live" in screen_text(app)
        screen.query_one(EventList).action_last()  # at the end: the list follows the tail
        await asyncio.to_thread(server.live.send_message_sync, cid, "say hi please")
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        stored = server.store.count_events(cid)
        await wait_for(lambda: len(screen.window) == stored, pilot=pilot)
        shown = rows(screen)
        ids = [r.id for r in shown]
        assert len(ids) == len(set(ids)) and len(shown) > before
        assert not any(r.kind == "StreamingDeltaEvent" for r in shown)  # deltas are never rows
        event_list = screen.query_one(EventList)
        assert event_list.cursor == len(screen.window) - 1  # followed the tail
        await wait_for(lambda: screen.feed.tree is not None and len(screen.feed.tree) == stored, pilot=pilot)
        assert screen.live.state.streaming_text == ""  # the streamed reply became its message


async def test_new_rows_marker_when_not_at_the_end(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        event_list = screen.query_one(EventList)
        event_list.cursor = 0
        await asyncio.to_thread(server.live.send_message_sync, cid, "one more thing")
        await asyncio.to_thread(server.live.step_sync, cid, 3)
        await wait_for(lambda: screen._new_below > 0, pilot=pilot)
        assert event_list.cursor == 0  # reading stays put
        assert "new (G to follow)" in event_list.border_subtitle
        await pilot.press("G")
        await wait_for(lambda: screen._new_below == 0, pilot=pilot)


async def test_error_banner_on_conversation_error(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        await asyncio.to_thread(server.live.send_message_sync, cid, "go")
        await asyncio.to_thread(server.live.fail_sync, cid)
        await asyncio.to_thread(server.live.step_sync, cid, 2)
        banner = screen.query_one("#error-banner")
        await wait_for(lambda: banner.has_class("-visible"), pilot=pilot)
        await pilot.pause(0.1)
        assert "The run stopped" in screen_text(app)
        assert str(screen.live.state.execution_status.value) == "error"


async def test_pause_run_and_interrupt_keys(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        await asyncio.to_thread(server.live.send_message_sync, cid, "work on it")
        await wait_for(lambda: screen.live.running, pilot=pilot)
        await pilot.press("space")  # pause: between steps
        await asyncio.to_thread(server.live.step_sync, cid, 1)
        await wait_for(lambda: server.live.status_sync(cid) == "paused", pilot=pilot)
        await wait_for(lambda: not screen.live.running, pilot=pilot)
        await pilot.press("space")  # run again
        await wait_for(lambda: server.live.status_sync(cid) == "running", pilot=pilot)
        await pilot.press("X")
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot=pilot)
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(cid) == "paused", pilot=pilot)
        await pilot.pause(0.1)
        assert "agent paused" in screen_text(app)
        kinds = [r.kind for r in rows(screen)]
        await wait_for(lambda: "InterruptEvent" in [r.kind for r in rows(screen)], pilot=pilot)
        del kinds


async def test_send_message_from_the_input_line(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        await pilot.press("m")
        await pilot.press(*"hello agent", "enter")
        await wait_for(
            lambda: any(r.kind == "MessageEvent" and "hello agent" in r.summary for r in rows(screen)),
            pilot=pilot,
        )


async def test_readonly_blocks_agent_controls(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_live(app, pilot, cid)
        await pilot.press("space", "X", "m")
        await pilot.pause(0.3)
        assert isinstance(app.screen, ConversationScreen)
        assert server.live.status_sync(cid) != "running"


def test_live_view_snapshot(snap_compare, make_server):
    store = Store()
    load_demo(store)
    cid = add_live_demo(store, clock=lambda: FIXED)
    server = make_server(store, clock=lambda: FIXED)
    server.live.send_message_sync(cid, "say hi please")
    server.live.step_sync(cid, 4)

    async def run_before(pilot):
        screen = await open_live(pilot.app, pilot, cid)
        screen.query_one(EventList).action_last()
        await wait_for(lambda: len(screen.window) == store.count_events(cid), pilot=pilot)
        await pilot.pause(0.3)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)
