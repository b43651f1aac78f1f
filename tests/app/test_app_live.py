"""Live conversations in the UI: the stream, controls, banners, against the real server."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from tests.helpers.app_helpers import (
    DEMO_ROWS,
    SIZE,
    conversations_shown,
    event_log,
    list_ready,
    make_app,
    push_conversation,
    screen_ready,
    screen_text,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, add_live_demo, load_demo

FIXED = 1_795_000_000.0  # a fixed clock: deterministic live timestamps for pictures


async def open_live(app, pilot, cid: str) -> ConversationScreen:
    screen = await push_conversation(pilot, cid)
    await wait_for(
        lambda: (
            screen.live is not None
            and screen.live.state.connection is not None
            and screen.live.state.connection.state == "live"
            and screen.events.base.complete
        ),
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
        await event_log(pilot, screen)  # every event a row (the steps view: test_reading_view)
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
        await wait_for(
            lambda: tree_ready(screen) and len(screen.events.tree) == stored, pilot=pilot
        )
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
        await wait_for(lambda: screen.new_below > 0, pilot=pilot)
        assert event_list.cursor == 0  # reading stays put
        assert "new (G to follow)" in event_list.border_subtitle
        await pilot.press("G")
        await wait_for(lambda: screen.new_below == 0, pilot=pilot)


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
        await wait_for(lambda: "The run stopped" in screen_text(app), pilot=pilot)
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
        await pilot.press("space")  # run again: a new, paid run, so it asks first
        await wait_for(lambda: screen_ready(app, ConfirmScreen), pilot=pilot)
        assert "Resume the agent?" in screen_text(app)
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(cid) == "running", pilot=pilot)
        await pilot.press("X")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), pilot=pilot)
        await pilot.press("y")
        await wait_for(lambda: server.live.status_sync(cid) == "paused", pilot=pilot)
        await wait_for(lambda: "agent paused" in screen_text(app), pilot=pilot)
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
            lambda: any(
                r.kind == "MessageEvent" and "hello agent" in r.summary for r in rows(screen)
            ),
            pilot=pilot,
        )


async def test_readonly_blocks_agent_controls(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_live(app, pilot, cid)
        await pilot.press("space", "X", "m")
        await settled(pilot)  # had a key started anything, it has run its course
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
        await wait_for(lambda: screen.window.events == store.count_events(cid), pilot=pilot)
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)


def _frames(name: str) -> list:
    import json

    from tests.helpers.samples import SAMPLES
    from tui.models import parse_event

    path = SAMPLES / "agent-server-capture" / "ws" / f"{name}.frames.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [parse_event(line["frame"]) for line in lines if "frame" in line]


async def replay_into_screen(app, pilot, frames: list, cid: str) -> ConversationScreen:
    """Feed captured real frames through the same path the stream worker uses.

    ``cid`` must not be live itself (its sandbox not RUNNING), or its own stream would
    compete with the replay."""
    from tui.app.store.live_session import LiveSession
    from tui.client import StreamEvent, is_transient

    screen = await push_conversation(pilot, cid)
    await wait_for(  # the bars are built after the first rows are painted (deferred.py)
        lambda: (
            screen.events.base.complete
            and screen.conversation is not None
            and screen.stream_preview.is_mounted
        ),
        pilot=pilot,
    )
    fake = screen.conversation.model_copy(
        update={"conversation_url": "/api/conversations/" + cid, "session_api_key": "k"}
    )
    screen.live = LiveSession(app.client.base_url, fake)
    screen.previews = []
    for event in frames:
        screen.apply_live([StreamEvent(event, transient=is_transient(event))])
        preview = screen.query_one("#stream-preview")
        if preview.has_class("-visible"):
            screen.previews.append(screen.live.state.streaming_text)
    return screen


async def test_captured_stream_frames_become_one_message(make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    frames = _frames("stream")
    final = [e for e in frames if e.kind == "MessageEvent" and e.source == "agent"][-1]
    async with app.run_test(size=SIZE) as pilot:
        screen = await replay_into_screen(app, pilot, frames, names["branches"])  # not live itself
        assert screen.previews and screen.previews[-1] == final.llm_message.text  # grew in place
        assert not screen.query_one("#stream-preview").has_class(
            "-visible"
        )  # gone after the message
        kinds = [r.kind for r in rows(screen)]
        assert "StreamingDeltaEvent" not in kinds
        assert final.id in {r.id for r in rows(screen)}
        assert str(screen.live.state.execution_status.value) == "finished"


async def test_captured_failure_shows_banner_and_server_notice(make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await replay_into_screen(app, pilot, _frames("fail"), names["branches"])
        await wait_for(
            lambda: (
                screen.query_one("#error-banner").has_class("-visible")
                and "LLMServiceUnavailableError" in screen_text(app)
            ),
            pilot=pilot,
        )
        app.pop_screen()
        screen = await replay_into_screen(app, pilot, _frames("slow"), names["fail"])
        # notifications arrive as messages
        await wait_for(lambda: any("Server:" in n.message for n in app._notifications), pilot=pilot)


async def test_conversations_table_polls_statuses_and_keeps_cursor(make_server, monkeypatch):
    from tui.app.screens.conversations import conversations as module

    monkeypatch.setattr(module, "POLL_S", 0.2)
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        screen = app.screen
        table = screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)
        table.move_cursor(row=3)
        target = names["hello"]
        sandbox = store.get_conversation(target)["sandbox_id"]
        from tui.client import OpenHandsClient

        async with OpenHandsClient(server.base_url) as client:
            assert await client.pause_sandbox(sandbox)
        await wait_for(
            lambda: (
                str(
                    getattr(
                        screen._rows[target].sandbox_status,
                        "value",
                        screen._rows[target].sandbox_status,
                    )
                )
                == "PAUSED"
            ),
            pilot=pilot,
        )
        assert table.cursor_row == 3


async def test_sandbox_pause_stops_following_then_live_again(live_server):
    from tui.client import OpenHandsClient

    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        sandbox = server.store.get_conversation(cid)["sandbox_id"]
        async with OpenHandsClient(server.base_url) as client:
            await client.pause_sandbox(sandbox)
            # the stream's drop makes the screen read the record: paused, nothing to follow
            await wait_for(lambda: screen.live is None, pilot=pilot)
            await wait_for(lambda: "sandbox PAUSED" in screen_text(app), pilot=pilot)
            await client.resume_sandbox(sandbox)
        await wait_for(
            lambda: screen.live is not None and "● live" in screen_text(app),
            timeout=30,
            pilot=pilot,
        )
        await wait_for(lambda: "sandbox RUNNING" in screen_text(app), pilot=pilot)


async def test_detail_catches_up_with_followed_rows_at_most_twice_a_second(
    demo_server, monkeypatch
):
    # drawing an event's detail costs 10–100 ms; following a fast stream must not redraw it per batch
    from tui.app.screens.conversation import screen as screen_module
    from tui.app.widgets.conversation.event_detail import EventDetail

    interval = screen_module.FOLLOW_DETAIL_S
    ids = load_demo(Store())
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(ids["long"])
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen) and screen.window.row(5) is not None, pilot=pilot)
        detail = screen.query_one(EventDetail)
        await wait_for(lambda: detail._event is not None, pilot=pilot)  # the list's own highlight
        # the screen's clock stands still unless moved here, and its catch-up timers are kept
        # to be fired here: what is checked is when they are due, whatever the machine's speed
        now = [1_000.0]
        monkeypatch.setattr(screen_module, "time", SimpleNamespace(perf_counter=lambda: now[0]))
        timers: list[tuple[float, object]] = []
        monkeypatch.setattr(screen, "set_timer", lambda delay, cb, **kw: timers.append((delay, cb)))
        shown = []
        monkeypatch.setattr(ConversationScreen, "show_detail", lambda self, row: shown.append(row))
        event_list = screen.query_one(EventList)
        followed = [screen.window.row(i) for i in range(7)]

        def follow(row) -> None:
            screen.post_message(EventList.Highlighted(event_list, 0, row, followed=True))

        follow(followed[0])
        await wait_for(lambda: shown == [followed[0]], pilot=pilot)  # at once
        now[0] += 0.02
        for row in followed[1:6]:  # five more batches' cursor moves within the interval
            follow(row)
        await pilot._wait_for_screen()  # the five are handled
        assert shown == [followed[0]]
        assert len(timers) == 1 and abs(timers[0][0] - (interval - 0.02)) < 1e-9
        now[0] += timers[0][0]
        timers[0][1]()  # due: the newest row, once
        assert shown == [followed[0], followed[5]]
        now[0] += interval * 1.5
        await pilot._wait_for_screen()
        assert len(shown) == 2 and len(timers) == 1  # nothing more was due
        now[0] += 0.1
        follow(followed[6])  # after the interval: at once again
        await wait_for(lambda: len(shown) == 3, pilot=pilot)
        assert shown[-1] == followed[6] and len(timers) == 1
        screen.post_message(EventList.Highlighted(event_list, 3, followed[3]))  # a key: at once
        await wait_for(lambda: len(shown) == 4, pilot=pilot)
