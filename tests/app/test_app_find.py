"""Find, jump keys and copy in a conversation, against the real reference server."""

from __future__ import annotations

import json

from tests.helpers.app_helpers import (
    SIZE,
    RecordingTransport,
    list_ready,
    make_app,
    push_conversation,
    screen_text,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.store.row_windows import PathWindow
from tui.app.store.step_rows import members
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.find_bar import FindBar
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation

IDS = load_demo(Store())


async def _open(app, pilot, cid: str, *, indexed: bool = True) -> ConversationScreen:
    screen = await push_conversation(pilot, cid)
    await wait_for(
        lambda: list_ready(screen) and (screen.events.base.complete or not indexed), pilot=pilot
    )
    if indexed:
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
    return screen


def _status(screen) -> str:
    return str(screen.query_one("#find-status").content)


async def _find(pilot, screen, text: str) -> None:
    await pilot.press("slash")
    assert screen.query_one(FindBar).has_class("-visible")
    await pilot.press(*text, "enter")


async def test_find_moves_to_hits_and_n_N_walk_them(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["hello"])
        event_list = screen.query_one(EventList)
        rows = [screen.window.row(i) for i in range(len(screen.window))]
        hits = [i for i, r in enumerate(rows) if "hello" in (r.summary + r.text).lower()]
        assert len(hits) >= 3
        await _find(pilot, screen, "HELLO")  # case-insensitive by default
        await wait_for(lambda: event_list.cursor == hits[0], pilot=pilot)
        await wait_for(lambda: _status(screen) == f"hit 1 of {len(hits)}", pilot=pilot)
        screen.query_one(EventList).focus()
        await pilot.press("n")
        await wait_for(lambda: event_list.cursor == hits[1], pilot=pilot)
        await pilot.press("N")
        await wait_for(lambda: event_list.cursor == hits[0], pilot=pilot)
        await pilot.press("N")  # wraps to the last hit
        await wait_for(lambda: event_list.cursor == hits[-1], pilot=pilot)
        text = screen_text(app)
        assert "›" in text  # matching rows are marked in the list
        detail = screen.query_one(EventDetail)
        assert detail._finder is not None


async def test_regex_case_and_only_matches(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["hello"])
        await pilot.press("slash", "ctrl+r")
        await pilot.press(*r"exit \d", "enter")
        await wait_for(  # a command's row says its result: "$ echo hi → exit 0 · hi"
            lambda: "exit " in screen.query_one(EventList).current.summary, pilot=pilot
        )
        await pilot.press("ctrl+o")  # only matches
        await wait_for(
            lambda: isinstance(screen.window, PathWindow) and screen.window.what == "find",
            pilot=pilot,
        )
        shown = [screen.window.row(i) for i in range(len(screen.window))]
        assert shown and all("exit " in r.summary or "exit " in r.text for r in shown)
        assert "find: 'exit \\\\d' (regex)" in str(
            screen.query_one(EventList).border_title
        ) or "find:" in str(screen.query_one(EventList).border_title)
        assert "steps match" in _status(screen)
        await pilot.press("ctrl+t")  # match case: "EXIT" would not match, "exit" still does
        await wait_for(lambda: "steps match" in _status(screen), pilot=pilot)
        await pilot.press("escape")  # closes find: all events again, no marks
        await wait_for(lambda: screen.window is screen.query_window, pilot=pilot)
        assert not screen.query_one(FindBar).has_class("-visible")
        assert "›" not in screen_text(app)


async def test_invalid_regex_is_said_in_the_bar(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["hello"])
        await pilot.press("slash", "ctrl+r")
        await pilot.press(*"(unclosed", "enter")
        await wait_for(lambda: "not a valid regular expression" in _status(screen), pilot=pilot)
        assert screen.finder is None and app.is_running


async def test_find_loads_pages_as_needed_on_a_long_conversation(make_server):
    store = Store()
    cid = generate_conversation(store, 3_000, seed=11)
    events = [json.loads(r.json) for r in store.iter_events(cid)]
    store.append_events(
        cid,
        [
            {
                "id": "needle-1",
                "timestamp": "2099-01-01T00:00:00.000000",
                "source": "user",
                "parent_id": events[-1]["id"],
                "kind": "MessageEvent",
                "llm_message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "the zebra needle"}],
                },
            }
        ],
    )
    server = make_server(store)
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, cid, indexed=False)
        screen.workers.cancel_group(screen, "index")  # search must load what it needs by itself
        await _find(pilot, screen, "zebra needle")
        event_list = screen.query_one(EventList)
        await wait_for(
            lambda: event_list.current is not None and event_list.current.id == "needle-1",
            timeout=60,
            pilot=pilot,
        )
        assert len(transport.queries("/events/search")) > 5


async def test_jump_keys(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["branches"])
        event_list = screen.query_one(EventList)
        event_list.focus()
        rows = [screen.window.row(i) for i in range(len(screen.window))]
        users = [i for i, r in enumerate(rows) if r.kind == "MessageEvent" and r.source == "user"]
        after = next(i for i in users if i > event_list.cursor)  # it opens on the first one
        await pilot.press("u")
        await wait_for(lambda: event_list.cursor == after, pilot=pilot)
        await pilot.press("U")
        await wait_for(
            lambda: event_list.cursor == users[0] or event_list.cursor == users[-1], pilot=pilot
        )
        from tui.app.widgets.conversation.event_tree import EventTreeView

        forks = screen.query_one(EventTreeView).fork_positions()
        tree = screen.events.tree
        fork_rows = [  # a step is a branch point where any event it stands for is one
            i
            for i, r in enumerate(rows)
            if any(tree.index_of(m.id) in forks for m in members(r) if m.id is not None)
        ]
        assert fork_rows and len(fork_rows) > 1
        held = sum(sum(tree.index_of(m.id) in forks for m in members(rows[i])) for i in fork_rows)
        assert held == screen.query_one(EventTreeView).fork_count()
        event_list.cursor = 0
        await pilot.press("right_square_bracket")
        second = next(i for i in fork_rows if i > 0)
        await wait_for(lambda: event_list.cursor == second, pilot=pilot)
        await pilot.press("left_square_bracket")
        await wait_for(
            lambda: event_list.cursor == max(i for i in fork_rows if i < second), pilot=pilot
        )
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["fail"])
        event_list = screen.query_one(EventList)
        event_list.focus()
        errors = [i for i in range(len(screen.window)) if screen.window.row(i).is_error]
        assert errors
        event_list.cursor = 0
        await pilot.press("e")
        await wait_for(lambda: event_list.cursor == errors[0], pilot=pilot)
        await pilot.press("E")
        await wait_for(lambda: event_list.cursor == errors[-1], pilot=pilot)


async def test_copy_command_and_event_json(demo_server):
    app = make_app(demo_server.base_url)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["hello"])
        screen.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        event_list = screen.query_one(EventList)
        event_list.focus()
        target = next(
            i for i in range(len(screen.window)) if screen.window.row(i).summary.startswith("$ ")
        )
        event_list.cursor = target
        await pilot.press("c")
        step = screen.window.row(target)
        command = step.own.summary[2:]  # the action's own words: "$ echo hello world"
        await wait_for(lambda: app.clipboard == command, pilot=pilot)
        assert any("Copied the command" in n for n in notes)
        await pilot.press("C")  # a step: its action and its result
        await wait_for(lambda: app.clipboard.startswith("["), pilot=pilot)
        copied = json.loads(app.clipboard)
        assert [e["id"] for e in copied] == [step.id, step.result.id]


def test_find_snapshot(snap_compare, demo_server):
    async def run_before(pilot):
        screen = await _open(pilot.app, pilot, IDS["hello"])
        await _find(pilot, screen, "hello")
        detail = screen.query_one(EventDetail)
        event_list = screen.query_one(EventList)
        await wait_for(lambda: "hit 1 of" in _status(screen), pilot=pilot)
        await wait_for(
            lambda: detail._event is not None and detail._event.id == event_list.current.id,
            pilot=pilot,
        )
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


async def test_find_key_can_be_remapped(demo_server):
    app = make_app(
        demo_server.base_url, keymap={"conversation.find": "ctrl+k", "conversation.next-error": "x"}
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["fail"])
        screen.query_one(EventList).focus()
        await pilot.press("x")  # next error, remapped
        errors = [i for i in range(len(screen.window)) if screen.window.row(i).is_error]
        await wait_for(lambda: screen.query_one(EventList).cursor == errors[0], pilot=pilot)
        await pilot.press("ctrl+k")
        await wait_for(lambda: screen.query_one(FindBar).has_class("-visible"), pilot=pilot)
