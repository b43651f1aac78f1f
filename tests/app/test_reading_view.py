"""The steps view, how a conversation opens: an action and its result on one row, plumbing
folded under the step it follows ("+3", → shows it), the event log one key away (v), and
everything else as in the log: the detail, jumps, find, the tree, copy, export, paging.
Against the reference server; keys as a terminal sends them."""

from __future__ import annotations

import json

from tests.helpers.app_helpers import (
    list_ready,
    make_app,
    notes_told,
    screen_text,
    send_burst,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.store.step_rows import FoldedRow, StepRow
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.server import Store, load_demo

IDS = load_demo(Store())
HELLO_EVENTS = 46  # the demo's hello conversation: 14 steps


async def _open(pilot, name: str) -> ConversationScreen:
    app = pilot.app
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: list_ready(screen), pilot=pilot)
    return screen


def _rows(window) -> list:
    return [window.row(i) for i in range(len(window))]


def _at(window, start: str) -> int:
    return next(i for i, row in enumerate(_rows(window)) if row.summary.startswith(start))


async def _detail_shows(pilot, screen, row) -> EventDetail:
    detail = screen.query_one(EventDetail)
    await wait_for(lambda: detail._event is not None and detail._event.id == row.id, pilot=pilot)
    return detail


async def test_it_opens_as_steps_counted_in_their_own_words(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        window = screen.window
        rows = _rows(window)
        assert window.query.steps and all(isinstance(row, StepRow) for row in rows)
        assert not any(
            row.kind in ("ObservationEvent", "ConversationStateUpdateEvent") for row in rows
        )
        # every event is a row, a row's result or folded under a row
        assert sum(1 + (r.result is not None) + r.folded_count for r in rows) == HELLO_EVENTS
        title = str(screen.query_one(EventList).border_title)
        assert title == f"Steps · oldest first · {len(rows)} steps · {HELLO_EVENTS} events"
        echo = rows[_at(window, "$ echo hello world")]
        assert echo.summary == "$ echo hello world → exit 0 · hello world"
        edit = rows[_at(window, "create /workspace/project/hello.py")]
        assert edit.summary == "create /workspace/project/hello.py +1 -0"  # a file and its ±
        failed = rows[_at(window, "no_such_tool")]
        assert failed.is_error and failed.result.kind == "AgentErrorEvent"  # marked
        # the cursor on the first user message, its "+3" at the row's end
        cursor = screen.query_one(EventList).cursor
        assert rows[cursor].kind == "MessageEvent" and rows[cursor].source == "user"
        line = next(line for line in screen_text(app).splitlines() if "user: Please" in line)
        assert f"+{rows[cursor].folded_count}" in line


async def test_a_steps_detail_shows_its_action_its_result_and_what_folded(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _open(pilot, "hello")
        window = screen.window
        at = _at(window, "$ python3 /workspace/project/hello.py")
        step = window.row(at)
        screen.query_one(EventList).cursor = at
        detail = await _detail_shows(pilot, screen, step)
        await wait_for(lambda: detail._paired is not None, pilot=pilot)
        assert detail._paired.id == step.result.id
        await settled(pilot)
        text = screen_text(app)
        assert "exit code 0" in text and "hello from hello.py" in text
        at = _at(window, "user: Please say hello")
        screen.query_one(EventList).cursor = at
        await _detail_shows(pilot, screen, window.row(at))
        await settled(pilot)
        assert f"{window.row(at).folded_count} folded under this step" in screen_text(app)


async def test_v_switches_to_the_event_log_and_back_on_the_same_event(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    notes = notes_told(app)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        event_list = screen.query_one(EventList)
        steps = screen.window
        at = _at(steps, "$ echo hello world")
        step = steps.row(at)
        event_list.cursor = at
        await pilot.press("v")
        await wait_for(lambda: screen.window is screen.events.base, pilot=pilot)
        await wait_for(lambda: event_list.current is not None, pilot=pilot)
        assert event_list.current.id == step.id  # the action's own row
        assert str(event_list.border_title).startswith("Events · oldest first ·")
        assert any("Event log" in note for note in notes)
        # down to its result (a row of its own here), then back: the step that holds it
        result = next(
            i for i in range(len(screen.window)) if screen.window.row(i).id == step.result.id
        )
        event_list.cursor = result
        await pilot.press("v")
        await wait_for(lambda: screen.window.query.steps, pilot=pilot)
        await wait_for(lambda: event_list.current is not None, pilot=pilot)
        assert event_list.current.id == step.id
        # typed in one burst: there and back, on the same step
        send_burst(app, [("v", "v"), ("v", "v")])
        await wait_for(lambda: screen.window.query.steps, pilot=pilot)
        await settled(pilot)
        assert screen.window.query.steps and event_list.current.id == step.id


async def test_right_shows_what_folded_under_a_step_and_left_folds_it_back(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    notes = notes_told(app)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        window, event_list = screen.window, screen.query_one(EventList)
        title = str(event_list.border_title)
        at = event_list.cursor  # the first user message
        step = window.row(at)
        count, size = step.folded_count, len(window)
        assert count >= 2
        send_burst(app, [("right", None), ("j", "j"), ("j", "j")])
        await wait_for(lambda: len(window) == size + count, pilot=pilot)
        await wait_for(lambda: event_list.cursor == at + 2, pilot=pilot)
        under = [window.row(at + 1 + i) for i in range(count)]
        assert all(isinstance(row, FoldedRow) and row.step is step for row in under)
        assert [row.id for row in under] == [
            r.id for r in sorted(step.folded, key=lambda r: r.timestamp)
        ]
        assert str(event_list.border_title) == title  # still the same steps, counted so
        assert "└ state" in screen_text(app)
        send_burst(app, [("left", None)])  # from a row under the step: back to the step
        await wait_for(lambda: len(window) == size, pilot=pilot)
        assert event_list.cursor == at and window.row(at + 1) is not None
        assert not isinstance(window.row(at + 1), FoldedRow)
        event_list.cursor = _at(window, "$ python3 /workspace/project/hello.py")
        if not window.row(event_list.cursor).folded_count:
            await pilot.press("right")
            await wait_for(lambda: any("Nothing is folded" in n for n in notes), pilot=pilot)
            assert len(window) == size


async def test_jumps_find_and_the_tree_land_on_steps(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        window, event_list = screen.window, screen.query_one(EventList)
        await pilot.press("e")  # a failed command's result joined its action's row
        await wait_for(lambda: event_list.cursor == _at(window, "$ ls /nonexistent"), pilot=pilot)
        await pilot.press("e")  # the agent error joined its action's row: the row is the error
        failed = _at(window, "no_such_tool")
        await wait_for(lambda: event_list.cursor == failed, pilot=pilot)
        event_list.cursor = 0
        await pilot.press("slash", *"cannot access", "enter")  # a result's words
        listed = _at(window, "$ ls /nonexistent-dir")
        await wait_for(lambda: event_list.cursor == listed, pilot=pilot)
        await pilot.press("escape")
        # the tree chooses an event (here a result): the list goes to its step
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        echo = window.row(_at(window, "$ echo hello world"))
        position = next(
            i for i, row in enumerate(screen.events.base.head) if row.id == echo.result.id
        )
        event_list.cursor = 0
        screen.query_one(EventTreeView).post_message(EventTreeView.EventChosen(position))
        await wait_for(lambda: event_list.current is echo, pilot=pilot)


async def test_copy_and_export_a_step_with_its_result(demo_server, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        window, event_list = screen.window, screen.query_one(EventList)
        step = window.row(_at(window, "$ echo hello world"))
        event_list.cursor = _at(window, "$ echo hello world")
        await pilot.press("c")
        await wait_for(lambda: len(copied) == 1, pilot=pilot)
        assert copied[0] == "echo hello world"  # the command, as in the event log
        await pilot.press("C")
        await wait_for(lambda: len(copied) == 2, pilot=pilot)
        both = json.loads(copied[1])
        assert [e["id"] for e in both] == [step.id, step.result.id]
        await pilot.press("ctrl+s")  # the view: each step's event and result, no plumbing
        await wait_for(lambda: list(tmp_path.glob("*.md")), pilot=pilot)
        await settled(pilot)
        (written,) = tmp_path.glob("*.md")
        assert written.name.endswith("-steps.md")
        text = written.read_text()
        assert "echo hello world" in text and "hello from hello.py" in text
        assert "hook_config" not in text


async def test_a_long_conversation_pages_lazily_in_steps(demo_server):
    from tests.helpers.app_helpers import RecordingTransport

    transport = RecordingTransport()
    app = make_app(demo_server.base_url, transport=transport, conversation_id=IDS["long"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "long")
        window = screen.window
        await wait_for(lambda: window.counts is not None, pilot=pilot)
        steps = len(window)
        assert not window.complete and len(window.head) < steps  # not walked to know it
        searches = transport.queries("/events/search")
        assert all(int(q["limit"]) <= 100 for q in searches)
        await pilot.press("G")  # the end, walked from the other side
        event_list = screen.query_one(EventList)
        await wait_for(lambda: event_list.current is not None, pilot=pilot)
        assert event_list.cursor == steps - 1 and not window.complete
        await screen.events.load_all(window)
        rows = _rows(window)
        assert len(rows) == steps  # the count was right before the walk
        assert sum(1 + (r.result is not None) + r.folded_count for r in rows) == 1_492
        assert all(r.result is not None for r in rows if r.kind == "ActionEvent")


async def test_live_results_join_their_actions_and_plumbing_is_counted(live_server):
    import asyncio

    from tests.app.test_app_live import open_live

    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_live(app, pilot, cid)
        window = screen.window
        assert window.query.steps
        waited: set[str] = set()  # actions seen before their result
        counts: dict[str, int] = {}
        await asyncio.to_thread(server.live.send_message_sync, cid, "[hello] once more")
        for _ in range(40):
            frames = await asyncio.to_thread(server.live.step_sync, cid)
            if not frames:
                break
            stored = server.store.count_events(cid)
            await wait_for(lambda n=stored: len(screen.events.base) == n, pilot=pilot)
            rows = _rows(window)
            assert not any(r.kind == "ObservationEvent" for r in rows)
            assert sum(1 + (r.result is not None) + r.folded_count for r in rows) == stored
            for row in rows:
                if row.kind == "ActionEvent" and row.result is None:
                    waited.add(row.id)
                if counts.get(row.id, 0) < row.folded_count:
                    counts[row.id] = row.folded_count
        rows = {row.id: row for row in _rows(window)}
        joined = [aid for aid in waited if rows[aid].result is not None]
        assert joined, "no result arrived live after its action"
        assert len(counts) > 1  # plumbing arriving live was counted on steps


async def test_h_and_V_in_the_steps_view_keep_the_event_and_come_back(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, "hello")
        event_list = screen.query_one(EventList)
        at = _at(screen.window, "$ echo hello world")
        step = screen.window.row(at)
        event_list.cursor = at
        await pilot.press("h")  # plumbing shown: its rows, the steps still joined
        await wait_for(lambda: not screen.window.query.hide_plumbing, pilot=pilot)
        await wait_for(lambda: list_ready(screen) and event_list.current is not None, pilot=pilot)
        rows = _rows(screen.window)
        assert any(r.kind == "ConversationStateUpdateEvent" for r in rows)
        assert event_list.current.id == step.id and event_list.current.result is not None
        assert "plumbing shown" in str(event_list.border_title)
        send_burst(app, [("h", "h"), ("V", "V")])  # folded again, then the raw history
        # every stored event: the index itself
        await wait_for(
            lambda: screen.window is screen.events.base and screen.events.raw, pilot=pilot
        )
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await wait_for(lambda: event_list.current is not None, pilot=pilot)
        assert event_list.current.id == step.id
        await pilot.press("v")  # from raw: back to the view it was shown over
        await wait_for(lambda: not screen.events.raw and screen.window.query.steps, pilot=pilot)
        await wait_for(lambda: list_ready(screen) and event_list.current is not None, pilot=pilot)
        assert screen.window.query.hide_plumbing and event_list.current.id == step.id
