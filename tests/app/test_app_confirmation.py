"""Confirmation mode from the keyboard: see what waits, approve it or reject it with a reason."""

from __future__ import annotations

import asyncio
import json

from tests.helpers.app_helpers import (
    SIZE,
    list_ready,
    make_app,
    push_conversation,
    screen_text,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.models import ExecutionStatus


async def _open_waiting(app, pilot, cid: str) -> ConversationScreen:
    screen = await push_conversation(pilot, cid)
    await wait_for(
        lambda: (
            list_ready(screen)
            and screen.events.base.complete
            and screen.live is not None
            and screen.live.waiting_for_confirmation
        ),
        pilot=pilot,
    )
    await wait_for(lambda: "waits for your approval of 1 action" in screen_text(app), pilot=pilot)
    return screen


def _stored(server, cid: str) -> list[dict]:
    return [json.loads(row.json) for row in server.store.iter_events(cid)]


async def test_the_pending_action_is_shown_and_approved_with_A(live_server):
    server, names = live_server()
    cid = names["confirm"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_waiting(app, pilot, cid)
        assert "$ find /workspace/project/scratch -name 'tmp-*' -delete" in screen_text(app)
        # the keys are in the footer while they apply
        await wait_for(
            lambda: "A Approve" in screen_text(app) and "R Reject" in screen_text(app), pilot=pilot
        )
        await pilot.press("A")
        await wait_for(lambda: not screen.live.waiting_for_confirmation, pilot=pilot)
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        await wait_for(lambda: "waits for your approval" not in screen_text(app), pilot=pilot)
        await wait_for(lambda: "A Approve" not in screen_text(app), pilot=pilot)
        kinds = [e["kind"] for e in _stored(server, cid)]
        assert "ObservationEvent" in kinds[-6:]  # the approved command ran


async def test_reject_asks_for_a_reason_and_the_agent_gets_it(live_server):
    server, names = live_server()
    cid = names["confirm"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_waiting(app, pilot, cid)
        await pilot.press("R")
        await settled(pilot)
        assert "why reject?" in screen_text(app)
        await pilot.press(*"keep tmp files", "enter")
        await wait_for(
            lambda: any(
                e["kind"] == "UserRejectObservation"
                and e.get("rejection_reason") == "keep tmp files"
                for e in _stored(server, cid)
            ),
            pilot=pilot,
        )
        await wait_for(
            lambda: screen.live.state.execution_status != ExecutionStatus.WAITING_FOR_CONFIRMATION,
            pilot=pilot,
        )
        await wait_for(lambda: "waits for your approval" not in screen_text(app), pilot=pilot)
        assert (
            "message to the agent" in screen.query_one("#message-line").placeholder
        )  # back to normal


async def test_readonly_cannot_approve(live_server):
    server, names = live_server()
    cid = names["confirm"]
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_waiting(app, pilot, cid)
        await pilot.press("A")
        await settled(pilot)
        assert screen.live.waiting_for_confirmation
        assert _stored(server, cid)[-1]["kind"] in ("ConversationStateUpdateEvent", "ActionEvent")


def test_confirmation_bar_snapshot(snap_compare, make_server):
    from tui.server import Store, load_demo

    store = Store()
    names = load_demo(store)
    server = make_server(store, clock=lambda: 1_795_000_000.0)

    async def run_before(pilot):
        screen = await _open_waiting(pilot.app, pilot, names["confirm"])
        await wait_for(lambda: "A Approve" in screen_text(pilot.app), pilot=pilot)
        detail = screen.query_one("#event-detail")
        await wait_for(lambda: detail._event is not None, pilot=pilot)
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)
