"""The steps view over every real capture in ``../shared/samples/openhands`` (and the real
app server's stored history in ``tests/data``), served by the reference server: each
action is on one row with its result, and no event is lost: the rows, their results and
what folded under them are exactly the event log's events. Walked from the head, from the
tail, and from both ends meeting, oldest or newest first, in pages small enough that every
log spans several."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.helpers.samples import SAMPLES
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.row_windows import EventQuery, PagedWindow
from tui.app.store.step_kinds import is_result
from tui.app.store.step_rows import StepRow
from tui.client import OpenHandsClient
from tui.server import Store, load_demo, start_server

READING = EventQuery(steps=True, hide_plumbing=True)
#: events a page: every capture spans several, so the walks meet and results wait
PAGE = 4


def _dedupe(events: list[dict]) -> list[dict]:
    """A websocket capture that resent the history: each event once."""
    seen: set[str] = set()
    out = []
    for event in events:
        key = event.get("id")
        if key in seen:
            continue
        seen.add(key)
        out.append(event)
    return out


def real_logs() -> dict[str, list[dict]]:
    logs: dict[str, list[dict]] = {}
    capture = SAMPLES / "agent-server-capture"
    for folder in sorted((capture / "persisted").iterdir()):
        files = sorted((folder / "events").glob("event-*.json"))
        logs[f"persisted/{folder.name}"] = [json.loads(f.read_text()) for f in files]
    for folder in sorted((SAMPLES / "cli-trajectories").iterdir()):
        files = sorted(folder.glob("event-*.json"))
        logs[f"cli/{folder.name}"] = [json.loads(f.read_text()) for f in files]
    for path in sorted((capture / "ws").glob("*.frames.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        logs[f"ws/{path.name}"] = _dedupe([line["frame"] for line in lines if "frame" in line])
    for path in sorted((SAMPLES / "sdk-fixtures").glob("*.jsonl")):
        lines = path.read_text().splitlines()
        logs[f"sdk/{path.name}"] = [json.loads(line) for line in lines if line.strip()]
    history = Path(__file__).parents[1] / "data" / "real_app_history.json"
    logs["app-server/real_app_history"] = json.loads(history.read_text())
    return {name: events for name, events in logs.items() if events}


@pytest.fixture(scope="module")
def served():
    """Every real log as a conversation of one reference server."""
    store = Store()
    names = load_demo(store)
    template = store.get_conversation(names["branches"])
    ids = {}
    for number, (name, events) in enumerate(real_logs().items()):
        cid = f"{number:032x}"
        store.put_conversation({**template, "id": cid, "title": name})
        store.append_events(cid, events)
        ids[name] = cid
    server = start_server(store)
    try:
        yield server, ids
    finally:
        server.stop()
        store.close()


async def _walk(events: ConversationEvents, window: PagedWindow, order: str) -> None:
    """Every page of ``window``: from the head, from the tail, or each end in turn."""
    turn = 0
    while not window.complete:
        side = {"head": "head", "tail": "tail"}.get(order, ("head", "tail")[turn % 2])
        if window.tail_page is None and side == "tail":
            side = "head"
        await events.fill(window, side)
        turn += 1


def _check(name: str, rows: list, base: list, descending: bool) -> None:
    """Each action with a result in the log holds it; the rows stand for every event."""
    assert all(isinstance(row, StepRow) for row in rows), name
    stood = [event for row in rows for event in row.members()]
    assert sorted(r.id or "" for r in stood) == sorted(r.id or "" for r in base), name
    assert sum(1 + (row.result is not None) + row.folded_count for row in rows) == len(base)
    by_id = {row.id: row for row in rows if row.kind == "ActionEvent"}
    calls = {row.tool_call_id: row for row in rows if row.kind == "ActionEvent"}
    for event in base:
        if not is_result(event):
            continue
        action = (
            by_id.get(event.action_id)
            if event.action_id is not None
            else calls.get(event.tool_call_id)
        )
        if action is None:  # its action is not in the log: a row of its own
            assert any(row.id == event.id for row in rows), (name, event.summary)
            continue
        assert action.result is not None and action.result.id == event.id, (
            name,
            action.summary,
            event.summary,
        )
    stamps = [row.timestamp for row in rows]
    assert stamps == sorted(stamps, reverse=descending), name


@pytest.mark.parametrize(
    ("order", "descending"),
    [("head", False), ("tail", False), ("both", False), ("head", True), ("both", True)],
    ids=["head", "tail", "both", "newest-first-head", "newest-first-both"],
)
async def test_every_action_holds_its_result_and_no_event_is_lost(served, order, descending):
    server, ids = served
    client = OpenHandsClient(server.base_url)
    try:
        paired = 0
        for name, cid in ids.items():
            events = ConversationEvents(client, cid)
            events.page_size = PAGE
            base = events.base
            await events.load_all(base)
            window = await events.open_window(replace(READING, descending=descending))
            await _walk(events, window, order)
            rows = [window.row(i) for i in range(len(window))]
            _check(name, rows, base.head, descending)
            assert window.events == len(base.head) and window.total == len(rows), name
            paired += sum(row.result is not None for row in rows)
        assert paired >= 40  # the captures hold this many actions with results
    finally:
        await client.aclose()
