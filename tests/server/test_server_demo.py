"""Reference server: demo dataset, generated logs, runner and ``ohtui serve``."""

from __future__ import annotations

import json
import re
import socket
from collections import Counter
from datetime import datetime

import httpx
import pytest

from tui.models import EVENT_KINDS, ROOT_PARENT, EventTree, RawEvent, parse_event
from tui.server import (
    ServerThread,
    Store,
    add_state_update_stretch,
    create_app,
    generate_conversation,
    load_demo,
)
from tui.server.demo import build_demo, generate_events
from tui.server.serve import serve_main

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
HEX32 = re.compile(r"^[0-9a-f]{32}$")


@pytest.fixture(scope="module")
def demo():
    return build_demo()


def all_events(demo) -> list[dict]:
    return [e for events in demo.events.values() for e in events]


def test_every_kind_appears(demo):
    kinds = Counter(e["kind"] for e in all_events(demo))
    # SecurityAnalysisEvent (SDK 1.58) is not in the demo yet; every other kind is
    assert set(kinds) <= set(EVENT_KINDS) and set(EVENT_KINDS) - set(kinds) <= {
        "SecurityAnalysisEvent"
    }
    assert kinds["StreamingDeltaEvent"] == 3
    assert (
        sum(
            1
            for cid, evs in demo.events.items()
            if any(e["kind"] == "StreamingDeltaEvent" for e in evs)
        )
        == 1
    )


def test_every_event_validates(demo):
    for event in all_events(demo):
        parsed = parse_event(event)
        assert not isinstance(parsed, RawEvent), parsed.error


def test_event_formats(demo):
    for cid, events in demo.events.items():
        assert HEX32.match(cid)
        ids = [e["id"] for e in events]
        assert len(set(ids)) == len(ids)
        for event in events:
            assert UUID4.match(event["id"])
            assert event["parent_id"] == ROOT_PARENT or event["parent_id"] in ids
            moment = datetime.fromisoformat(event["timestamp"])
            assert moment.tzinfo is None and "." in event["timestamp"]


def test_content_highlights(demo):
    events = all_events(demo)
    terminal = [
        e["observation"]
        for e in events
        if e["kind"] == "ObservationEvent" and e["observation"]["kind"] == "TerminalObservation"
    ]
    assert any(o["exit_code"] not in (0, -1) for o in terminal)
    edits = [
        e["observation"]
        for e in events
        if e["kind"] == "ObservationEvent" and e["observation"]["kind"] == "FileEditorObservation"
    ]
    assert any(
        o["command"] == "str_replace" and o["old_content"] != o["new_content"] for o in edits
    )
    assert any(o["command"] == "create" for o in edits)
    assert any(
        e["kind"] == "ActionEvent" and e.get("action", {}).get("kind") == "TaskTrackerAction"
        for e in events
    )
    assert any(
        e.get("thinking_blocks") or e.get("llm_message", {}).get("thinking_blocks") for e in events
    )
    assert any(e.get("reasoning_content") for e in events)
    assert any(e["kind"] == "AgentErrorEvent" and e.get("classification") for e in events)
    assert any(e["kind"] == "ActionEvent" and "action" not in e for e in events)  # unknown tool
    rejections = {e["rejection_source"] for e in events if e["kind"] == "UserRejectObservation"}
    assert rejections == {"user", "hook"}
    assert any(e["kind"] == "HookExecutionEvent" and e["blocked"] for e in events)
    keys = {e["key"] for e in events if e["kind"] == "ConversationStateUpdateEvent"}
    assert {"execution_status", "stats", "last_user_message_id", "hook_config"} <= keys


def test_real_branches_exist(demo):
    branched = demo.events[demo.names["branches"]]
    tree = EventTree((e["id"], e["parent_id"]) for e in branched)
    user_forks = [
        p
        for p in tree.branch_points()
        if sum(
            1
            for k in tree.child_list(p)
            if branched[k]["kind"] == "MessageEvent" and branched[k]["source"] == "user"
        )
        >= 2
    ]
    assert user_forks, "two user messages share a parent"
    # a later branch point re-parents a user message onto an event well before the head
    positions = {e["id"]: i for i, e in enumerate(branched)}
    jumps = [
        i
        for i, e in enumerate(branched)
        if e["kind"] == "MessageEvent"
        and e["source"] == "user"
        and e["parent_id"] in positions
        and positions[e["parent_id"]] < i - 5
    ]
    assert len(jumps) >= 2


def test_long_conversation_and_titles(demo):
    sizes = sorted(len(events) for events in demo.events.values())
    assert sizes[-1] >= 1400
    titles = [c["title"] for c in demo.conversations]
    assert any("[bold]" in t and any(ord(ch) > 127 for ch in t) for t in titles)
    assert 6 <= len(titles) <= 8


def test_sandboxes_and_specs(demo):
    assert {s["status"] for s in demo.sandboxes} >= {"RUNNING", "PAUSED", "ERROR", "STARTING"}
    assert len(demo.specs) == 3 and {s["working_dir"] for s in demo.specs} >= {"/workspace/project"}
    assert any(s["id"] == "ghcr.io/openhands/agent-server:1.43.1-python" for s in demo.specs)


def test_deterministic(demo):
    again = build_demo()
    assert json.dumps(again.events, sort_keys=True) == json.dumps(demo.events, sort_keys=True)
    assert again.conversations == demo.conversations

    def without_key(sandbox):
        return {k: v for k, v in sandbox.items() if k != "session_api_key"}

    assert list(map(without_key, again.sandboxes)) == list(map(without_key, demo.sandboxes))
    # sandbox keys are fresh on every build: a key in the code would open every demo server
    keys = {s["session_api_key"] for s in demo.sandboxes + again.sandboxes}
    assert len(keys) == 2 * len(demo.sandboxes) and all(len(k) >= 30 for k in keys)
    a, b = Store(), Store()
    assert load_demo(a) == load_demo(b)
    for cid in a.conversation_ids():
        assert [r.json for r in a.iter_events(cid)] == [r.json for r in b.iter_events(cid)]
    assert build_demo(seed=1).names != demo.names


# -- generated logs ---------------------------------------------------------------------------


def test_generated_events_validate_and_branch():
    events = generate_events(3000, seed=3, branches=4)
    assert len(events) == 3000
    for event in events:
        parsed = parse_event(event)
        assert not isinstance(parsed, RawEvent)
        assert UUID4.match(event["id"])
        assert set(event) == set(parsed.model_dump(mode="json"))  # full dumps, nulls included
    tree = EventTree((e["id"], e["parent_id"]) for e in events)
    forks = [
        p
        for p in tree.branch_points()
        if sum(events[k]["kind"] != "ConversationStateUpdateEvent" for k in tree.child_list(p)) >= 2
    ]
    assert len(forks) >= 4
    assert generate_events(500, seed=3) == generate_events(500, seed=3)
    assert generate_events(500, seed=3) != generate_events(500, seed=4)


def test_generate_conversation_and_stretch():
    store = Store()
    cid = generate_conversation(store, 1000, seed=5)
    assert store.count_events(cid) == 1000
    info = store.get_conversation(cid)
    assert info["title"] == "Generated: 1000 events"
    before = store.count_events(cid, viewable_only=True)
    added = add_state_update_stretch(store, cid, 200, viewable_every=50)
    assert added == 4 and store.count_events(cid, viewable_only=True) == before + 4
    assert store.count_events(cid) == 1200
    for row in store.iter_events(cid):
        assert not isinstance(parse_event(json.loads(row.json)), RawEvent)


def test_append_events_strict_and_raw():
    store = Store()
    with pytest.raises(ValueError):
        store.append_events("c", [{"kind": "MessageEvent", "source": "user"}], strict=True)
    assert store.count_events("c") == 0
    store.append_events(
        "c", [{"kind": "FutureEvent", "id": "x", "timestamp": "2026-01-01T00:00:00"}]
    )
    assert json.loads(store.get_events("c", ["x"])[0]) == {
        "kind": "FutureEvent",
        "id": "x",
        "timestamp": "2026-01-01T00:00:00",
    }


# -- runner and serve -------------------------------------------------------------------------


def test_server_thread_binds_loopback_and_stops():
    with ServerThread(create_app(Store())) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        assert httpx.get(server.base_url + "/alive").json() == {"status": "ok"}
        port = server.port
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/alive", timeout=1)


def test_file_database_round_trip(tmp_path):
    path = str(tmp_path / "demo.sqlite")
    store = Store(path)
    names = load_demo(store)
    store.close()
    again = Store(path)
    assert again.count_events(names["long"]) > 1400
    with ServerThread(create_app(again)) as server:
        body = httpx.get(
            server.base_url + "/api/shared-events/search",
            params={"conversation_id": names["hello"], "limit": 3},
        ).json()
        assert len(body["items"]) == 3 and body["next_page_id"]
    again.close()


def test_serve_reports_a_busy_port(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert serve_main("127.0.0.1", port, None, False, None) == 2
    assert "cannot bind" in capsys.readouterr().err


def test_serve_warns_about_open_network_binding(capsys):
    # port 1 on a documentation address: binding fails, but only after the warning
    assert serve_main("192.0.2.1", 1, None, False, None) == 2
    err = capsys.readouterr().err
    assert "NO authentication" in err
