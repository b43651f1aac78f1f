"""Pure parts of the stream: dedup/replace rules and the ``StreamState`` fold (no sockets)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers.samples import SAMPLES
from tui.client import EventDeduper, StreamEvent, StreamState, StreamStatus, is_transient
from tui.client.stream_state import stats_totals
from tui.models import ExecutionStatus, RawEvent, parse_event, parse_event_json

WS = SAMPLES / "agent-server-capture" / "ws"


def frames(scenario: str) -> list[dict[str, Any]]:
    lines = (WS / f"{scenario}.frames.jsonl").read_text().splitlines()
    return [d["frame"] for d in map(json.loads, filter(str.strip, lines)) if "frame" in d]


def feed(dedup: EventDeduper, state: StreamState, data: list[dict[str, Any]]) -> list[StreamEvent]:
    out = []
    for frame in data:
        item = dedup.accept(parse_event(frame))
        if item is not None:
            out.append(item)
            state.apply(item)
    return out


def test_captured_live_then_resend_all_pair() -> None:
    """``ws/demo`` (live) then ``ws/demo_resend_all`` (reconnect with resend_mode=all): the
    three live HookExecutionEvents without parent_id are replaced by the replayed copies."""
    live, replay = frames("demo"), frames("demo_resend_all")
    dedup, state = EventDeduper(), StreamState()
    first = feed(dedup, state, live)
    second = feed(dedup, state, replay)

    assert len(first) == len(live)
    # of the replay only the fresh full_state and the three parented hook copies come out
    assert [(i.event.kind, i.replaces, i.transient) for i in second] == [
        ("ConversationStateUpdateEvent", False, True),
        ("HookExecutionEvent", True, False),
        ("HookExecutionEvent", True, False),
        ("HookExecutionEvent", True, False),
    ]
    persisted = [f for f in replay if f.get("key") != "full_state"]
    assert [e.id for e in state.events] == [f["id"] for f in persisted]
    assert [e.parent_id for e in state.events] == [f.get("parent_id") for f in persisted]
    assert state.execution_status == ExecutionStatus.FINISHED
    assert len(dedup) == len(persisted)


def test_dedup_rules() -> None:
    dedup = EventDeduper()
    base = {"id": "e1", "timestamp": "2026-01-01T00:00:01", "source": "user", "kind": "PauseEvent"}
    assert dedup.accept(parse_event(base)) == StreamEvent(parse_event(base))
    assert dedup.accept(parse_event(base)) is None  # plain duplicate
    parented = parse_event({**base, "parent_id": "p"})
    assert dedup.accept(parented) == StreamEvent(parented, replaces=True)
    assert dedup.accept(parse_event(base)) is None  # a copy without parent never wins back
    assert dedup.accept(parented) is None

    # transient frames pass through even with a repeated id; id-less frames too
    delta = parse_event(
        {
            "id": "d",
            "timestamp": "2026-01-01T00:00:09",
            "source": "agent",
            "content": "x",
            "kind": "StreamingDeltaEvent",
        }
    )
    assert dedup.accept(delta).transient and dedup.accept(delta) is not None
    junk = parse_event_json("{nope")
    assert isinstance(junk, RawEvent) and dedup.accept(junk) == StreamEvent(junk)
    assert dedup.accept(junk) is not None


def test_dedup_by_identity_never_by_clock() -> None:
    """One id, two events (another timestamp or kind): both kept, the second numbered as the
    id's second copy; each one's own copies are duplicates; stamps that are no dates, or
    far in the future, are only text here."""
    dedup = EventDeduper()
    first = {"id": "e1", "timestamp": "9999-12-31T23:59:59", "source": "user", "kind": "PauseEvent"}
    assert dedup.accept(parse_event(first)).copy == 1
    other = {**first, "timestamp": "not a date"}
    second = dedup.accept(parse_event(other))
    assert second is not None and second.copy == 2 and not second.replaces
    assert dedup.accept(parse_event(first)) is None and dedup.accept(parse_event(other)) is None
    # the second one's persisted copy (with its parent) replaces it, not the first
    again = dedup.accept(parse_event({**other, "parent_id": "p"}))
    assert again is not None and again.copy == 2 and again.replaces
    kind = dedup.accept(parse_event({**first, "kind": "InterruptEvent"}))
    assert kind is not None and kind.copy == 3
    assert dedup.knows(parse_event(other)) and not dedup.knows(parse_event({**first, "id": "e2"}))
    assert len(dedup) == 1 and "e1" in dedup


def test_state_keeps_both_events_of_a_reused_id() -> None:
    state = StreamState()
    dedup = EventDeduper()
    first = {"id": "e1", "timestamp": "2026-01-01T00:00:01", "source": "user", "kind": "PauseEvent"}
    second = {**first, "timestamp": "2026-01-01T00:00:02", "kind": "InterruptEvent"}
    for data in (first, second, first, {**second, "parent_id": "p"}):
        item = dedup.accept(parse_event(data))
        if item is not None:
            state.apply(item)
    assert [(e.id, e.kind, e.parent_id) for e in state.events] == [
        ("e1", "PauseEvent", None),
        ("e1", "InterruptEvent", "p"),  # its persisted copy took its place
    ]


@pytest.mark.parametrize(
    "frame, expected",
    [
        ({"kind": "StreamingDeltaEvent", "source": "agent"}, True),
        ({"kind": "ServerErrorEvent", "source": "environment", "code": "X", "detail": "y"}, True),
        ({"kind": "ConversationStateUpdateEvent", "key": "full_state", "value": {}}, True),
        ({"kind": "ConversationStateUpdateEvent", "key": "stats", "value": {}}, False),
        (
            {
                "kind": "MessageEvent",
                "source": "user",
                "llm_message": {"role": "user", "content": []},
            },
            False,
        ),
        # not valid events, still classified from the raw JSON
        ({"kind": "StreamingDeltaEvent", "source": "nobody"}, True),
        ({"kind": "ConversationStateUpdateEvent", "key": "full_state", "bogus": 1}, True),
        ({"kind": "FutureEvent"}, False),
    ],
)
def test_is_transient(frame: dict[str, Any], expected: bool) -> None:
    assert is_transient(parse_event(frame)) is expected


def test_stats_totals_forms() -> None:
    snapshot = {
        "usage_to_metrics": {
            "agent": {
                "accumulated_cost": 0.25,
                "accumulated_token_usage": {"prompt_tokens": 100, "completion_tokens": 20},
            },
            "condenser": {
                "accumulated_cost": 0.05,
                "accumulated_token_usage": None,
                "costs": [{"cost": 0.05}],
            },
            "junk": "x",
        }
    }
    assert stats_totals(snapshot) == pytest.approx((0.30, 100, 20))
    assert stats_totals({"usage_to_metrics": {}}) == (0.0, 0, 0)
    assert stats_totals(None) is None and stats_totals({"nope": 1}) is None
    assert stats_totals(
        {
            "usage_to_metrics": {
                "a": {"accumulated_cost": "1", "accumulated_token_usage": {"prompt_tokens": True}}
            }
        }
    ) == (0.0, 0, 0)


def test_full_state_stats_are_the_full_metrics_form() -> None:
    last = [f for f in frames("demo") if f.get("key") == "full_state"][-1]
    state = StreamState()
    changed = state.apply(StreamEvent(parse_event(last), transient=True))
    assert changed == {"status", "stats", "policy"}  # the snapshot says the policies too
    assert (state.prompt_tokens, state.completion_tokens) == (1200, 300)
    assert state.policies_known
    assert state.confirmation_policy == last["value"]["confirmation_policy"]["kind"]
    assert state.full_state is not None and state.events == []


def test_policies_follow_keyed_updates_by_kind() -> None:
    """The real agent server logs ``confirmation_policy`` / ``security_analyzer`` updates
    when either is set (issue 30): kept by kind, None when the analyzer is taken away."""
    state = StreamState()
    policy = _event(
        "ConversationStateUpdateEvent",
        id="p1",
        key="confirmation_policy",
        value={"kind": "AlwaysConfirm"},
    )
    assert state.apply(policy) == {"events", "policy"}
    assert state.confirmation_policy == "AlwaysConfirm"
    analyzer = _event(
        "ConversationStateUpdateEvent",
        id="p2",
        key="security_analyzer",
        value={"kind": "PatternSecurityAnalyzer", "high_patterns": [["rm", "x", "y"]]},
    )
    assert state.apply(analyzer) == {"events", "policy"}
    assert state.security_analyzer == "PatternSecurityAnalyzer"
    off = _event("ConversationStateUpdateEvent", id="p3", key="security_analyzer", value=None)
    assert state.apply(off) == {"events", "policy"}
    assert state.security_analyzer is None


def _event(kind: str, **fields: Any) -> Any:
    return parse_event(
        {"id": fields.pop("id", kind), "timestamp": "2026-01-01T00:00:00", "kind": kind, **fields}
    )


def test_streaming_text_lifecycle_and_aspects() -> None:
    state = StreamState()

    def delta(i: int, **content: Any) -> Any:
        return _event("StreamingDeltaEvent", id=f"d{i}", source="agent", **content)

    running = _event(
        "ConversationStateUpdateEvent", id="s1", key="execution_status", value="running"
    )
    assert state.apply(running) == {"events", "status"}
    assert state.apply(delta(1, content="Hel", reasoning_content="think ")) == {"streaming"}
    assert state.apply(delta(2, content="lo")) == {"streaming"}
    assert state.apply(delta(3)) == set()
    assert (state.streaming_text, state.streaming_reasoning) == ("Hello", "think ")
    # a user message does not end the agent's response
    user = _event(
        "MessageEvent",
        id="u",
        source="user",
        llm_message={"role": "user", "content": [{"type": "text", "text": "hi"}]},
    )
    assert state.apply(user) == {"events"} and state.is_streaming
    # interrupting the run ends it
    assert state.apply(
        _event("ConversationStateUpdateEvent", id="s2", key="execution_status", value="paused")
    ) == {"events", "status", "streaming"}
    assert not state.is_streaming
    # an unknown status is kept as the raw string
    state.apply(
        _event("ConversationStateUpdateEvent", id="s3", key="execution_status", value="warping")
    )
    assert state.execution_status == "warping"
    # duplicates change nothing; statuses are folded too
    assert state.apply(running) == set()
    assert state.apply(StreamStatus("reconnecting", 1, "closed")) == {"connection"}
    assert state.connection == StreamStatus("reconnecting", 1, "closed")
    assert [e.id for e in state.events] == ["s1", "u", "s2", "s3"]


def test_errors_and_notices() -> None:
    state = StreamState()
    state.apply(_event("StreamingDeltaEvent", id="d", source="agent", content="par"))
    error = _event("ConversationErrorEvent", source="environment", code="X", detail="boom")
    assert state.apply(error) == {"events", "error", "streaming"}
    assert state.last_error is error
    notice = _event("ServerErrorEvent", source="environment", code="ValidationError", detail="bad")
    assert state.apply(notice) == {"notice"}
    assert state.server_notice is notice and notice not in state.events


def test_replacement_without_flag_and_raw_events() -> None:
    state = StreamState()
    plain = _event("PauseEvent", id="p", source="user")
    parented = _event("PauseEvent", id="p", source="user", parent_id="x")
    state.apply(plain)
    assert state.apply(parented) == {"events"}  # gains parent_id: replaces in place
    assert state.apply(plain) == set()
    assert state.event("p") is parented
    raw = parse_event({"id": "r", "kind": "ConversationErrorEvent", "source": "environment"})
    assert isinstance(raw, RawEvent)
    assert state.extend([raw, raw]) == {"events"}
    assert state.last_error is None and len(state) == 2
