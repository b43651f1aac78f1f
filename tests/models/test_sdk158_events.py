"""Agent server 1.58's SecurityAnalysisEvent, and kinds newer than this ohtui.

The two SecurityAnalysisEvents and their actions are as a real agent server 1.58.2 logged
them (the ``risky`` scenario of ``../shared/real-servers``, fake LLM, ``LLMSecurityAnalyzer``
with ``ConfirmRisky``). A kind ohtui does not know is an "unknown kind" raw event: listed
as its fields, marked, never an error wall — in the field list and in the transcript."""

from __future__ import annotations

import json

from tui.export import to_jsonl, to_markdown
from tui.models import (
    EVENT_KINDS,
    RawEvent,
    SecurityAnalysisEvent,
    event_fields,
    event_text,
    parse_event,
    parse_event_json,
)
from tui.models.content import SecurityRisk
from tui.models.parse import INVALID, UNKNOWN_KIND

LOW_ACTION = "f8a69ec1-1e64-41b8-9d79-f746b2924f9a"
HIGH_ACTION = "137bc2aa-d673-4d56-a348-8dcd71a76ed4"
# as served by GET /api/conversations/{id}/events/search on agent server 1.58.2
ANALYSES = [
    json.dumps(
        {
            "id": "93ac73f0-113d-4ebc-a6c9-ab4add41ce89",
            "timestamp": "2026-11-24T06:38:35.232423",
            "source": "environment",
            "parent_id": "f2e58dde-4820-44ac-b114-30782c0d2ecd",
            "analyzer": "LLMSecurityAnalyzer",
            "policy": "ConfirmRisky",
            "risks": {LOW_ACTION: "LOW"},
            "details": {},
            "kind": "SecurityAnalysisEvent",
        }
    ),
    json.dumps(
        {
            "id": "b506150b-2b1a-4321-93d4-510992b1dacb",
            "timestamp": "2026-11-24T06:38:35.644918",
            "source": "environment",
            "parent_id": HIGH_ACTION,
            "analyzer": "LLMSecurityAnalyzer",
            "policy": "ConfirmRisky",
            "risks": {HIGH_ACTION: "HIGH"},
            "details": {},
            "kind": "SecurityAnalysisEvent",
        }
    ),
]


def _action(action_id: str, command: str) -> dict:
    return {
        "id": action_id,
        "timestamp": "2026-11-24T06:38:35.000000",
        "source": "agent",
        "thought": [],
        "action": {"kind": "TerminalAction", "command": command},
        "tool_name": "terminal",
        "tool_call_id": "call_1",  # real ids repeat: pairing goes by action_id
        "tool_call": {
            "id": "call_1",
            "name": "terminal",
            "arguments": "{}",
            "origin": "completion",
        },
        "llm_response_id": "r",
        "kind": "ActionEvent",
    }


def _result(action_id: str, text: str) -> dict:
    return {
        "id": f"obs-{action_id[:8]}",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": "call_1",
        "action_id": action_id,
        "observation": {
            "kind": "TerminalObservation",
            "command": "x",
            "exit_code": 0,
            "content": [{"type": "text", "text": text}],
        },
        "kind": "ObservationEvent",
    }


def test_security_analysis_is_typed():
    assert "SecurityAnalysisEvent" in EVENT_KINDS
    low, high = (parse_event_json(text) for text in ANALYSES)
    assert isinstance(low, SecurityAnalysisEvent) and isinstance(high, SecurityAnalysisEvent)
    assert low.source == "environment" and low.analyzer == "LLMSecurityAnalyzer"
    assert low.policy == "ConfirmRisky" and low.details == {}
    assert low.risks == {LOW_ACTION: SecurityRisk.LOW} and high.risks[HIGH_ACTION] == "HIGH"
    assert parse_event_json(ANALYSES[0].encode()) == low  # the careful path agrees


def test_security_analysis_rules():
    base = {
        "source": "environment",
        "analyzer": "A",
        "policy": "P",
        "kind": "SecurityAnalysisEvent",
    }
    assert parse_event({**base, "risks": {}}).details == {}  # details default to {}
    for broken in (
        {**base, "risks": {"a": "SEVERE"}},  # not a SecurityRisk
        {**base},  # risks required
        {**base, "risks": {}, "details": {"a": 5}},  # details are objects per action
        {**base, "risks": {}, "verdict": "x"},  # closed
    ):
        event = parse_event(broken)
        assert isinstance(event, RawEvent) and event.reason == INVALID, broken


def test_the_transcript_puts_each_risk_on_its_step():
    events = [
        parse_event(_action(LOW_ACTION, "echo low-risk")),
        parse_event_json(ANALYSES[0]),
        parse_event(_result(LOW_ACTION, "low-output")),
        parse_event(_action(HIGH_ACTION, "echo pretend-high-risk")),
        parse_event_json(ANALYSES[1]),
        parse_event(_result(HIGH_ACTION, "high-output")),
    ]
    markdown = to_markdown(events)
    low, high = markdown.index("$ echo low-risk"), markdown.index("$ echo pretend-high-risk")
    low_risk = markdown.index("**Risk: LOW** (LLMSecurityAnalyzer, policy ConfirmRisky)")
    high_risk = markdown.index("**Risk: HIGH** (LLMSecurityAnalyzer, policy ConfirmRisky)")
    assert low_risk < low < markdown.index("low-output") < high_risk < high
    assert markdown.index("high-output") > high
    # an analysis of a step already written is said on its own, naming the step
    late = to_markdown([*events[:3], parse_event_json(ANALYSES[0])])
    assert (
        "*Security analysis (LLMSecurityAnalyzer, policy ConfirmRisky):* `$ echo low-risk` **LOW**"
        in late
    )
    assert len(to_jsonl(events).splitlines()) == 6


def test_a_newer_kind_is_its_fields_not_an_error():
    data = {
        "id": "future-1",
        "timestamp": "2027-01-01T00:00:00",
        "source": "environment",
        "parent_id": "p",
        "verdict": "allowed",
        "scores": {"a": 0.5},
        "notes": "line one\nline two",
        "api_key": "sk-should-not-show-0123456789",
        "kind": "PolicyDecisionEvent",
    }
    event = parse_event(data)
    assert isinstance(event, RawEvent) and event.unknown_kind and event.reason == UNKNOWN_KIND
    assert event.kind == "PolicyDecisionEvent" and event.id == "future-1"
    assert "validation" not in event.error
    assert event_fields(event) == [
        ("id", "future-1"),
        ("timestamp", "2027-01-01T00:00:00"),
        ("source", "environment"),
        ("parent_id", "p"),
        ("verdict", "allowed"),
        ("scores", '{"a":0.5}'),
        ("notes", "line one\nline two"),
        ("api_key", "‹redacted›"),
    ]
    text = event_text(event)
    assert text.startswith("PolicyDecisionEvent · unknown kind · environment · 2027-01-01")
    assert "verdict: allowed" in text and "sk-should" not in text
    markdown = to_markdown([event])
    assert (
        "### `PolicyDecisionEvent` (unknown kind) · environment · 2027-01-01 00:00:00" in markdown
    )
    assert "- **verdict**: `allowed`" in markdown and "line two" in markdown
    assert "Unparsed" not in markdown and "sk-should" not in markdown
    assert parse_event_json(json.dumps(data)).unknown_kind  # the same from JSON text


def test_a_known_kind_that_does_not_validate_is_not_an_unknown_kind():
    event = parse_event({"kind": "MessageEvent", "id": "m"})
    assert isinstance(event, RawEvent) and not event.unknown_kind and event.reason == INVALID
    for odd_kind in ("", 7, None, ["x"]):
        event = parse_event({"kind": odd_kind, "id": "k"})
        assert isinstance(event, RawEvent) and not event.unknown_kind
