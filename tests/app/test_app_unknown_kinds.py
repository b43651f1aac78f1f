"""Kinds newer than this client, the folder server's unreadable files, and SDK 1.58's security
verdicts, on screen (issue 14, item 3): readable rows and details, never an error wall."""

from __future__ import annotations

import pytest

from tests.app.test_app_risk_confirmation import PENDING, risky_store
from tests.helpers.app_helpers import (
    SIZE,
    make_app,
    push_conversation,
    screen_text,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, load_demo

NEWER = {
    "kind": "GoalProgressEvent",
    "id": "0f0f0f0f-0000-4000-8000-000000000001",
    "timestamp": "2026-11-20T10:00:01",
    "source": "agent",
    "goal": "ship the release",
    "progress": {"done": 3, "of": 5},
    "api_key": "sk-should-not-show",
}
UNREADABLE = {
    "kind": "UnreadableEventFile",
    "id": "0f0f0f0f-0000-4000-8000-000000000002",
    "timestamp": "2026-11-20T10:00:02",
    "file": "event-00007-abc.json",
    "error": "invalid JSON at line 1 column 17",
    "preview": '{"kind": "Acti',
}


def _store() -> tuple[Store, str]:
    store = Store()
    names = load_demo(store)
    cid = names["hello"]
    store.append_events(cid, [NEWER, UNREADABLE])
    return store, cid


async def _open(app, pilot, cid: str) -> ConversationScreen:
    screen = await push_conversation(pilot, cid)
    await wait_for(lambda: tree_ready(screen), pilot=pilot)
    return screen


async def _select(pilot, screen, kind: str) -> str:
    """Put the list's cursor on the first row of ``kind``; returns the detail pane's text."""
    rows = [screen.window.row(i) for i in range(len(screen.window))]
    target = next(i for i, r in enumerate(rows) if r.kind == kind)
    screen.query_one(EventList).cursor = target
    detail = screen.query_one(EventDetail)
    await wait_for(lambda: detail._event is not None and detail._event.kind == kind, pilot=pilot)
    await settled(pilot)
    return screen_text(pilot.app)


async def test_an_unknown_kind_is_its_fields_not_an_error(make_server):
    store, cid = _store()
    app = make_app(make_server(store).base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, cid)
        text = await _select(pilot, screen, "GoalProgressEvent")
        assert "unknown kind · newer than this ohtui" in text
        assert "goal: ship the release" in text and 'progress: {"done":3,"of":5}' in text
        assert "could not be parsed" not in text and "sk-should-not-show" not in text
        row = screen.events.base.head[-2]
        assert row.flag == "" and row.summary.startswith("unknown kind · goal: ship the release")


async def test_an_unreadable_file_is_shown_as_its_fields_and_found(make_server):
    store, cid = _store()
    app = make_app(make_server(store).base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, cid)
        text = await _select(pilot, screen, "UnreadableEventFile")
        assert "file: event-00007-abc.json" in text
        assert "error: invalid JSON at line 1 column 17" in text
        assert "could not be parsed" not in text
        assert screen.events.base.head[-1].flag == "error"  # a failure all the same
        screen.query_one(EventList).cursor = 0
        await pilot.press("slash", *"column 17", "enter")
        await wait_for(
            lambda: screen.query_one(EventList).cursor == len(screen.window) - 1,  # the last
            pilot=pilot,
        )


async def test_a_security_verdict_has_its_own_detail(make_server):
    store, cid = risky_store()
    app = make_app(make_server(store).base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, cid)
        text = await _select(pilot, screen, "SecurityAnalysisEvent")
        assert "2 actions assessed by LLMSecurityAnalyzer · policy ConfirmRisky" in text
        assert f"HIGH    {PENDING}" in text
        assert "LOW     action other-action" in text


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["default", "80x24"])
def test_unknown_kind_detail_snapshot(snap_compare, make_server, size):
    store, cid = _store()
    server = make_server(store, clock=lambda: 1_795_000_000.0)

    async def run_before(pilot):
        screen = await _open(pilot.app, pilot, cid)
        await _select(pilot, screen, "GoalProgressEvent")
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=size)
