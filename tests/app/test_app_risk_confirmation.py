"""Confirmation by ``action_id``, the analyzer's risk in the bar, security rows (issue 14, 3 + 9).

Real servers do not guarantee unique ``tool_call_id`` values: the bar must still name the
waiting action. SDK 1.58 rates actions in a ``SecurityAnalysisEvent``: its row lists each
action's risk and the bar says the waiting action's (``HIGH risk (LLMSecurityAnalyzer,
ConfirmRisky)``).
"""

from __future__ import annotations

import json

import pytest

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
from tui.app.store.action_index import ActionIndex, Risk
from tui.app.store.rows import make_row
from tui.models import parse_event
from tui.server import Store, load_demo

PENDING = "$ find /workspace/project/scratch -name 'tmp-*' -delete"


def _security(risks: dict[str, str], eid: str = "sec-1") -> dict:
    return {
        "kind": "SecurityAnalysisEvent",
        "id": eid,
        "timestamp": "2026-11-20T10:00:00.000001",
        "source": "environment",
        "analyzer": "LLMSecurityAnalyzer",
        "policy": "ConfirmRisky",
        "risks": risks,
        "details": {},
    }


def risky_store() -> tuple[Store, str]:
    """The demo's waiting conversation, copied with its pending action's ``tool_call_id``
    reused from an earlier (rejected) action and an analyzer's verdict on it."""
    store = Store()
    names = load_demo(store)
    source = names["confirm"]
    events = [json.loads(row.json) for row in store.iter_events(source)]
    actions = [e for e in events if e["kind"] == "ActionEvent"]
    first, pending = actions[0], actions[-1]
    pending["tool_call_id"] = first["tool_call_id"]
    pending["tool_call"]["id"] = first["tool_call_id"]
    low = {"other-action": "LOW"}
    verdict = _security({pending["id"]: "HIGH", **low})
    verdict["timestamp"] = pending["timestamp"]
    verdict["parent_id"] = pending["id"]
    events.insert(events.index(pending) + 1, verdict)
    record = store.get_conversation(source)
    cid = "c0ffee" + source[6:]
    record["id"] = cid
    store.put_conversation(record)
    store.append_events(cid, events)
    return store, cid


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


async def test_the_bar_names_the_action_whose_tool_call_id_repeats_and_its_risk(make_server):
    store, cid = risky_store()
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_waiting(app, pilot, cid)
        text = screen_text(app)
        assert PENDING in text
        assert "HIGH risk (LLMSecurityAnalyzer, ConfirmRisky)" in text
        # the security row names the action it rates (the unknown one by its id)
        rows = [screen.window.row(i) for i in range(len(screen.window))]
        (security,) = [r for r in rows if r.kind == "SecurityAnalysisEvent"]
        assert security.summary == f"2 actions: HIGH {PENDING}, LOW other-ac"
        await pilot.press("end")
        await wait_for(
            lambda: "security     2 actions: HIGH $ find" in screen_text(app), pilot=pilot
        )


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["default", "80x24"])
def test_the_risk_bar_snapshot(snap_compare, make_server, size):
    store, cid = risky_store()
    server = make_server(store, clock=lambda: 1_795_000_000.0)

    async def run_before(pilot):
        screen = await _open_waiting(pilot.app, pilot, cid)
        detail = screen.query_one("#event-detail")
        await wait_for(lambda: detail._event is not None, pilot=pilot)
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=size)


# --- the index on its own -------------------------------------------------------------------


def _action(aid: str, call: str, command: str = "ls") -> dict:
    return {
        "kind": "ActionEvent",
        "id": aid,
        "timestamp": "2026-11-20T10:00:00",
        "source": "agent",
        "thought": [],
        "action": {"kind": "TerminalAction", "command": command},
        "tool_name": "terminal",
        "tool_call_id": call,
        "tool_call": {
            "id": call,
            "name": "terminal",
            "arguments": "{}",
            "origin": "completion",
        },
        "llm_response_id": "r",
        "security_risk": "LOW",
    }


def _remember(index: ActionIndex, data: dict):
    event = parse_event(data)
    row = make_row(event)
    index.remember(event, row)
    return row


def test_a_security_row_names_actions_that_arrive_after_it():
    """Pages can come newest first: the verdict is named once its actions are known."""
    index = ActionIndex()
    row = _remember(index, _security({"a1": "LOW", "a2": "HIGH"}))
    assert row.summary == "2 actions: HIGH a2, LOW a1"
    _remember(index, _action("a2", "call", "rm -rf build"))
    assert row.summary == "2 actions: HIGH $ rm -rf build, LOW a1"
    _remember(index, _action("a1", "call", "echo"))
    assert row.summary == "2 actions: HIGH $ rm -rf build, LOW $ echo"
    assert index.risks["a2"] == Risk("HIGH", "LLMSecurityAnalyzer", "ConfirmRisky")


def test_without_an_analyzer_the_agents_own_estimate_is_the_risk():
    index = ActionIndex()
    data = _action("a1", "call")
    event = parse_event(data)
    row = make_row(event)
    index.remember(event, row)
    assert index.risk_of(row, event) == Risk("LOW")
    assert Risk("LOW").describe() == "LOW risk (the agent's estimate)"
    data["security_risk"] = "UNKNOWN"
    assert index.risk_of(row, parse_event(data)) is None


def test_pending_actions_by_action_id_with_tool_call_id_only_as_the_fallback():
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.rows import EventRow

    def row(eid, kind, *, call=None, answers=None, source="agent"):
        return EventRow(eid, "2026-01-01T00:00:00", source, kind, eid, None, call, "", "", answers)

    events = ConversationEvents(None, "c")  # no requests: rows are handed in
    log = [
        row("u1", "MessageEvent", source="user"),
        row("a1", "ActionEvent", call="call_1"),
        row("o1", "ObservationEvent", call="call_1", answers="a1"),
        row("u2", "MessageEvent", source="user"),
        row("a2", "ActionEvent", call="call_1"),  # the id repeats (real servers do that)
    ]
    events.base.add_head(log, None)
    events._index_pairs(0)
    assert [r.id for r in events.pending_actions()] == ["a2"]
    # an agent error names no action: its tool_call_id answers the action that shares it
    events.base.append_live([row("x", "AgentErrorEvent", call="call_1")])
    events._index_pairs(5)
    assert events.pending_actions() == []
