"""The board's approve/reject question says each waiting action's risk, as the conversation
screen's confirmation bar does: the security analyzer's newest verdict, else the agent's
own estimate."""

from __future__ import annotations

import json

from tests.helpers.app_helpers import dialog_ready, make_app, screen_text, settled, wait_for
from tests.helpers.board_helpers import board_store, open_board
from tui.app.board.options import BoardOptions
from tui.app.board.steer import risk_of
from tui.app.screens.board.board_answer import BoardAnswerScreen
from tui.app.store.action_index import Risk
from tui.app.widgets.board.board_table import BoardTable
from tui.models import parse_event

POLLED = BoardOptions(sockets=0, poll_seconds=600, details_per_poll=100)


def _verdict(action_id: str, risk: str, eid: str, at: str) -> dict:
    return {
        "kind": "SecurityAnalysisEvent",
        "id": eid,
        "timestamp": at,
        "source": "environment",
        "analyzer": "LLMSecurityAnalyzer",
        "policy": "ConfirmRisky",
        "risks": {action_id: risk},
        "details": {},
    }


def _pending(store, cid: str) -> dict:
    events = [json.loads(row.json) for row in store.iter_events(cid)]
    return [e for e in events if e["kind"] == "ActionEvent"][-1]


def _rated_store(risk: str = "MEDIUM"):
    """Four agents; the waiting one's action rated ``risk`` by the analyzer (after the
    agent's own HIGH estimate)."""
    store, ids = board_store(4)
    action = _pending(store, ids[3])
    store.append_events(ids[3], [_verdict(action["id"], risk, "sec-1", action["timestamp"])])
    return store, ids


def test_the_analyzers_newest_verdict_wins_over_the_agents_estimate():
    store, ids = board_store(4)
    action = parse_event(_pending(store, ids[3]))
    at = str(action.timestamp)
    older = parse_event(_verdict(action.id, "LOW", "sec-1", at))
    newer = parse_event(_verdict(action.id, "MEDIUM", "sec-2", at))
    other = parse_event(_verdict("another-action", "HIGH", "sec-3", at))
    assert risk_of(action, []) == Risk("HIGH")  # the agent's own estimate
    assert risk_of(action, [other]) == Risk("HIGH")
    found = risk_of(action, [newer, older])  # newest first
    assert found == Risk("MEDIUM", "LLMSecurityAnalyzer", "ConfirmRisky")
    unrated = parse_event({**_pending(store, ids[3]), "security_risk": "UNKNOWN"})
    assert risk_of(unrated, []) is None


async def test_the_question_names_the_risk(make_server):
    store, ids = _rated_store()
    app = make_app(make_server(store).base_url, board=POLLED, profile="ref")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_board(pilot, 4)
        table = screen.query_one(BoardTable)
        table.cursor = next(i for i, r in enumerate(table.rows) if r.conversation_id == ids[3])
        await pilot.press("R")
        await wait_for(lambda: dialog_ready(app, BoardAnswerScreen), pilot=pilot)
        await settled(pilot, keep={"board-act"})
        text = screen_text(app)
        assert "$ rm -rf build-3" in text
        assert "MEDIUM risk (LLMSecurityAnalyzer, ConfirmRisky)" in text


def test_board_reject_question_with_the_analyzers_risk(snap_compare, make_server):
    store, ids = _rated_store("HIGH")

    async def run_before(pilot):
        screen = await open_board(pilot, 4)
        table = screen.query_one(BoardTable)
        table.cursor = next(i for i, r in enumerate(table.rows) if r.conversation_id == ids[3])
        await pilot.press("R")
        await wait_for(lambda: dialog_ready(pilot.app, BoardAnswerScreen), pilot=pilot)
        await settled(pilot, keep={"board-act"})  # the answer waits for the dialog

    app = make_app(make_server(store).base_url, board=POLLED, profile="ref")
    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))
