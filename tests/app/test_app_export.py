"""Export from the UI: the whole conversation, a branch, a filtered view; Markdown and JSONL."""

from __future__ import annotations

import json

from tests.helpers.app_helpers import (
    SIZE,
    event_log,
    list_ready,
    make_app,
    push_conversation,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.store.row_windows import EventQuery, PathWindow
from tui.app.widgets.conversation.event_tree import Branch, EventTreeView
from tui.server import Store, load_demo

IDS = load_demo(Store())


async def _open(app, pilot, cid: str) -> ConversationScreen:
    screen = await push_conversation(pilot, cid)
    await wait_for(lambda: list_ready(screen) and tree_ready(screen), pilot=pilot)
    return screen


async def test_ctrl_s_writes_the_conversation_as_markdown(demo_server, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["hello"])
        await pilot.press("ctrl+s")  # what the list shows: its steps, each with its result
        target = tmp_path / f"ohtui-{IDS['hello'][:8]}-steps.md"
        await wait_for(target.exists, pilot=pilot)
        text = target.read_text(encoding="utf-8")
        assert (
            text.startswith("# Write hello.py and run it (steps)")
            and "## User" in text
            and "python3" in text
            and "hello from hello.py" in text  # a result, with its action
        )
        await pilot.press("ctrl+s")  # a second export never overwrites the first
        await wait_for((tmp_path / f"ohtui-{IDS['hello'][:8]}-steps-2.md").exists, pilot=pilot)
        assert screen.view_name() == "steps"
        await event_log(pilot, screen)  # the event log: every event
        assert screen.view_name() == "conversation"


async def test_branch_and_filtered_views_export_exactly_what_is_shown(
    demo_server, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, IDS["branches"])
        view = screen.query_one(EventTreeView)
        side, stack = None, [view.root]
        while stack and side is None:
            node = stack.pop()
            side = node if isinstance(node.data, Branch) else None
            stack.extend(node.children)
        view.focus()
        view.move_cursor(side)
        await pilot.press("b")
        await wait_for(lambda: isinstance(screen.window, PathWindow), pilot=pilot)
        shown = [screen.window.row(i).id for i in range(len(screen.window))]
        screen.action_export("jsonl", "view")
        target = tmp_path / f"ohtui-{IDS['branches'][:8]}-branch.jsonl"
        # the run ends a moment after its file appears; an export before then cancels it
        await wait_for(lambda: target.exists() and screen.export_run is None, pilot=pilot)
        lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
        assert [e["id"] for e in lines] == shown
        screen.action_show_all()
        await event_log(pilot, screen)  # one kind there: exactly those events
        screen.filter_kind("ActionEvent")
        await wait_for(
            lambda: screen.window.query == EventQuery(kind="ActionEvent") and list_ready(screen),
            pilot=pilot,
        )
        screen.action_export("jsonl", "view")
        filtered = tmp_path / f"ohtui-{IDS['branches'][:8]}-filtered.jsonl"
        await wait_for(filtered.exists, pilot=pilot)
        kinds = {
            json.loads(line)["kind"] for line in filtered.read_text(encoding="utf-8").splitlines()
        }
        assert kinds == {"ActionEvent"}
