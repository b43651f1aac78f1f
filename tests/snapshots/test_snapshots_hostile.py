"""What people see when a server is hostile or unlucky, pinned: two events with one id, a
wait for the server (said with what is waited for, a Retry-After counted down), a refused
live stream (why, in the header), a fork with thousands of branches (folded). At the
default size and at 80×24 where the screen changes.

Countdowns and elapsed times read the event store's clock, frozen here once the wait is on
screen, so the pictures hold still.
"""

from __future__ import annotations

import dataclasses

from tests.app.test_app_duplicates import _store_with_duplicate
from tests.app.test_app_live import FIXED
from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.store import live_session
from tui.app.store.duplicate_rows import is_duplicate
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.client import EventStream
from tui.server import Store, add_live_demo, load_demo
from tui.server.views import conversation_info

SMALL = (80, 24)
FROZEN = 1_000.0


async def _opened(pilot, cid: str) -> ConversationScreen:
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(cid)
    await wait_for(
        lambda: isinstance(app.screen, ConversationScreen) and bool(app.screen.query(EventList)),
        pilot=pilot,
    )
    return app.screen


async def _freeze_wait(screen: ConversationScreen, pilot, *, elapsed: float, left: float | None):
    """The store's clock stopped: the wait for the first page has lasted ``elapsed`` s
    (``left`` s to go). The record is loaded first, so the page's is the only wait."""
    await wait_for(
        lambda: screen.events.record is not None and screen.events.waiting is not None,
        pilot=pilot,
    )
    wait = screen.events.waiting
    assert wait.what == "events page 1"
    screen.events.clock = lambda: FROZEN
    wait.since = FROZEN - elapsed
    if left is not None:
        wait.retry_at = FROZEN + left
    screen.say_waiting()
    pilot.app.clear_notifications()  # the retry's toast times out on its own: not pictured
    await settled(pilot, keep={"load"})  # the page is held


def _duplicate_app(make_server):
    store, cid, _ = _store_with_duplicate()
    return make_app(make_server(store).base_url), cid


def _select_duplicate(cid: str):
    async def run_before(pilot):
        screen = await _opened(pilot, cid)
        await wait_for(lambda: list_ready(screen) and screen.events.base.complete, pilot=pilot)
        index = next(i for i in range(len(screen.window)) if is_duplicate(screen.window.row(i)))
        screen.query_one(EventList).cursor = index
        detail = screen.query_one(EventDetail)
        await wait_for(lambda: detail._note is not None, pilot=pilot)
        await settled(pilot)

    return run_before


def test_duplicate_id_row_and_its_detail(snap_compare, make_server):
    app, cid = _duplicate_app(make_server)
    assert snap_compare(app, run_before=_select_duplicate(cid), terminal_size=SIZE)


def test_duplicate_id_row_and_its_detail_80x24(snap_compare, make_server):
    app, cid = _duplicate_app(make_server)
    assert snap_compare(app, run_before=_select_duplicate(cid), terminal_size=SMALL)


def _waiting_app(make_server, fault: dict):
    store = Store()
    cid = "5e1f5e1f5e1f5e1f5e1f5e1f5e1f5e1f"
    store.put_conversation(
        conversation_info(
            id=cid,
            sandbox_id="sb-wait",
            title="A server that makes us wait",
            created_at="2026-11-20T10:00:00Z",
            updated_at="2026-11-20T10:01:00Z",
            execution_status="finished",
        )
    )
    server = make_server(store)
    events = f"/api/v1/conversation/{cid}/events"
    server.app.state.faults.add(path=f"{events}/search", **fault)
    # the count is slow too: the list's length stays unknown while the picture is taken
    server.app.state.faults.add("slow", f"{events}/count", times=-1, delay=30.0)
    return make_app(server.base_url), cid


def test_retry_after_counted_down_where_the_rows_will_be_80x24(snap_compare, make_server):
    app, cid = _waiting_app(
        make_server,
        {"kind": "status", "times": -1, "status": 429, "headers": {"retry-after": "120"}},
    )

    async def run_before(pilot):
        screen = await _opened(pilot, cid)
        await wait_for(
            lambda: screen.events.waiting is not None and screen.events.waiting.retry_at,
            pilot=pilot,
        )
        await _freeze_wait(screen, pilot, elapsed=3, left=118.4)

    assert snap_compare(app, run_before=run_before, terminal_size=SMALL)


def test_a_slow_server_is_said_with_what_is_waited_for(snap_compare, make_server):
    app, cid = _waiting_app(make_server, {"kind": "slow", "times": -1, "delay": 30.0})

    async def run_before(pilot):
        screen = await _opened(pilot, cid)
        await _freeze_wait(screen, pilot, elapsed=12.2, left=None)

    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


def test_a_refused_live_stream_says_why_in_the_header(snap_compare, make_server, monkeypatch):
    def refused(endpoint, **options):
        return EventStream(dataclasses.replace(endpoint, key="not-the-key"), **options)

    monkeypatch.setattr(live_session, "EventStream", refused)
    store = Store()
    load_demo(store)
    cid = add_live_demo(store, clock=lambda: FIXED)
    server = make_server(store, clock=lambda: FIXED)

    async def run_before(pilot):
        screen = await _opened(pilot, cid)
        await wait_for(
            lambda: (
                screen.live is not None
                and screen.live.state.connection is not None
                and screen.live.state.connection.state == "failed"
                and screen.events.base.complete
            ),
            pilot=pilot,
        )
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)


def test_a_fork_with_thousands_of_branches_is_folded(snap_compare, make_server):
    store = Store()
    cid = "f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0"
    store.put_conversation(
        conversation_info(
            id=cid,
            sandbox_id="sb-fan",
            title="One question, 2,000 answers",
            created_at="2026-11-20T10:00:00Z",
            updated_at="2026-11-20T10:01:00Z",
            execution_status="finished",
        )
    )
    question = {
        "id": "q",
        "timestamp": "2026-11-20T10:00:00.000000",
        "source": "user",
        "parent_id": "__root__",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "Which is best?"}]},
        "kind": "MessageEvent",
    }
    answers = [
        {
            "id": f"a{i:04d}",
            "timestamp": f"2026-11-20T10:{1 + i // 60:02d}:{i % 60:02d}.000000",
            "source": "agent",
            "parent_id": "q",
            "llm_message": {
                "role": "assistant",
                "content": [{"type": "text", "text": f"Answer number {i}"}],
            },
            "kind": "MessageEvent",
        }
        for i in range(2_000)
    ]
    store.append_events(cid, [question, *answers])
    server = make_server(store)

    async def run_before(pilot):
        screen = await _opened(pilot, cid)
        tree = screen.query_one(EventTreeView)
        await wait_for(lambda: tree.shown_size == 2_001, pilot=pilot)
        tree.focus()
        tree.action_scroll_end()
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)
