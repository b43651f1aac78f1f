"""The spec's rules, one by one: required fields, defaults, closed objects, constraints."""

from __future__ import annotations

import pytest

from tui.models import EVENT_KINDS, RawEvent, parse_event, parse_event_json
from tui.models.content import ReasoningItemModel, TextContent
from tui.models.events import DEFAULT_REJECTION_REASON

TOOL_CALL = {"id": "call_1", "name": "terminal", "arguments": "{}", "origin": "completion"}
TEXT = {"type": "text", "text": "hi"}

# One minimal valid instance per kind: exactly the spec's required fields.
MINIMAL: dict[str, dict] = {
    "ServerErrorEvent": {"source": "environment", "code": "E", "detail": "d"},
    "ACPToolCallEvent": {"tool_call_id": "t", "title": "x"},
    "Condensation": {"llm_response_id": "r"},
    "CondensationRequest": {},
    "CondensationSummaryEvent": {"summary": "s"},
    "ConversationErrorEvent": {"source": "environment", "code": "E", "detail": "d"},
    "ConversationStateUpdateEvent": {},
    "HookExecutionEvent": {
        "hook_event_type": "PreToolUse",
        "hook_command": "c",
        "success": True,
        "exit_code": 0,
    },
    "LLMCompletionLogEvent": {"filename": "f", "log_data": "{}"},
    "ActionEvent": {
        "thought": [],
        "tool_name": "terminal",
        "tool_call_id": "call_1",
        "tool_call": TOOL_CALL,
        "llm_response_id": "r",
    },
    "MessageEvent": {"source": "user", "llm_message": {"role": "user", "content": [TEXT]}},
    "AgentErrorEvent": {"tool_name": "t", "tool_call_id": "c", "error": "boom"},
    "ObservationEvent": {
        "tool_name": "think",
        "tool_call_id": "c",
        "action_id": "a",
        "observation": {"kind": "ThinkObservation"},
    },
    "UserRejectObservation": {"tool_name": "t", "tool_call_id": "c", "action_id": "a"},
    "SystemPromptEvent": {"system_prompt": TEXT, "tools": []},
    "StreamingDeltaEvent": {},
    "TokenEvent": {"source": "agent", "prompt_token_ids": [1], "response_token_ids": [2]},
    "InterruptEvent": {},
    "PauseEvent": {},
    "SecurityAnalysisEvent": {
        "analyzer": "LLMSecurityAnalyzer",
        "policy": "ConfirmRisky",
        "risks": {},
    },
}
REQUIRED = {
    kind: [k for k in fields if k != "source" or kind in SOURCE_REQUIRED]
    for kind, fields in MINIMAL.items()
    for SOURCE_REQUIRED in [
        ("ServerErrorEvent", "ConversationErrorEvent", "MessageEvent", "TokenEvent")
    ]
}
DEFAULT_SOURCE = {
    "ACPToolCallEvent": "agent",
    "Condensation": "environment",
    "CondensationRequest": "environment",
    "CondensationSummaryEvent": "environment",
    "ConversationStateUpdateEvent": "environment",
    "HookExecutionEvent": "hook",
    "LLMCompletionLogEvent": "environment",
    "ActionEvent": "agent",
    "AgentErrorEvent": "agent",
    "ObservationEvent": "environment",
    "UserRejectObservation": "environment",
    "SystemPromptEvent": "agent",
    "StreamingDeltaEvent": "agent",
    "InterruptEvent": "user",
    "PauseEvent": "user",
    "SecurityAnalysisEvent": "environment",
}


def make(kind: str, **extra) -> dict:
    return {
        "id": f"id-{kind}",
        "timestamp": "2026-01-01T00:00:00",
        **MINIMAL[kind],
        **extra,
        "kind": kind,
    }


def test_all_20_kinds_covered():
    # the spec's 19 and SecurityAnalysisEvent (agent server 1.58, facts §10)
    assert set(MINIMAL) == set(EVENT_KINDS) and len(EVENT_KINDS) == 20


@pytest.mark.parametrize("kind", EVENT_KINDS)
def test_minimal_event_parses(kind):
    event = parse_event(make(kind))
    assert type(event).__name__ == kind


@pytest.mark.parametrize("kind", EVENT_KINDS)
def test_each_required_field_missing_gives_raw_with_error(kind):
    for field in REQUIRED[kind]:
        data = make(kind)
        del data[field]
        event = parse_event(data)
        assert isinstance(event, RawEvent), (kind, field)
        assert field in event.error and event.kind == kind and event.id == f"id-{kind}"
        assert event.raw == data


@pytest.mark.parametrize("kind", EVENT_KINDS)
def test_extra_field_rejected(kind):
    event = parse_event(make(kind, surprise=1))
    assert isinstance(event, RawEvent) and "surprise" in event.error


@pytest.mark.parametrize("kind", sorted(DEFAULT_SOURCE))
def test_default_source(kind):
    assert parse_event(make(kind)).source == DEFAULT_SOURCE[kind]


@pytest.mark.parametrize(
    "kind", ["ServerErrorEvent", "ConversationErrorEvent", "MessageEvent", "TokenEvent"]
)
def test_source_required_where_spec_says(kind):
    data = make(kind)
    del data["source"]
    assert isinstance(parse_event(data), RawEvent)


def test_defaults():
    assert parse_event(make("UserRejectObservation")).rejection_source == "user"
    assert parse_event(make("UserRejectObservation")).rejection_reason == DEFAULT_REJECTION_REASON
    hook = parse_event(make("HookExecutionEvent"))
    assert (hook.blocked, hook.stdout, hook.stderr) == (False, "", "")
    log = parse_event(make("LLMCompletionLogEvent"))
    assert (log.model_name, log.usage_id) == ("unknown", "default")
    action = parse_event(make("ActionEvent"))
    assert action.security_risk.value == "UNKNOWN" and action.action is None
    assert parse_event(make("ACPToolCallEvent")).is_error is False
    assert parse_event(make("ActionEvent")).tool_call.origin == "completion"


def test_enums_enforced():
    assert isinstance(parse_event(make("ActionEvent", security_risk="EXTREME")), RawEvent)
    assert isinstance(parse_event(make("PauseEvent", source="robot")), RawEvent)
    assert isinstance(parse_event(make("UserRejectObservation", rejection_source="x")), RawEvent)
    assert isinstance(
        parse_event({**make("HookExecutionEvent"), "hook_event_type": "Nope"}), RawEvent
    )


def test_condensation_constraints():
    assert isinstance(parse_event(make("Condensation", forgotten_event_ids=["a", "a"])), RawEvent)
    assert isinstance(parse_event(make("Condensation", summary_offset=-1)), RawEvent)
    ok = parse_event(make("Condensation", forgotten_event_ids=["a", "b"], summary_offset=0))
    assert ok.forgotten_event_ids == ["a", "b"]


def test_tool_call_origin_required_and_checked():
    bad = make("ActionEvent", tool_call={k: v for k, v in TOOL_CALL.items() if k != "origin"})
    assert isinstance(parse_event(bad), RawEvent)
    assert isinstance(
        parse_event(make("ActionEvent", tool_call={**TOOL_CALL, "origin": "x"})), RawEvent
    )


def test_classification_accepted_and_checked():
    ok = parse_event(
        make(
            "AgentErrorEvent",
            classification={"kind": "transient", "retryable": True, "user_action": "retry"},
        )
    )
    assert ok.classification.kind == "transient"
    assert isinstance(
        parse_event(make("AgentErrorEvent", classification={"kind": "weird", "retryable": True})),
        RawEvent,
    )


def test_legacy_keys_are_stripped_and_nothing_else_tolerated():
    msg = {
        "role": "user",
        "content": [{**TEXT, "enable_truncation": True}],
        "vision_enabled": False,
    }
    event = parse_event(make("MessageEvent", llm_message=msg))
    assert event.llm_message.text == "hi"
    assert "enable_truncation" not in event.model_dump_json()
    assert isinstance(
        parse_event(make("MessageEvent", llm_message={**msg, "not_legacy": 1})), RawEvent
    )
    assert isinstance(
        TextContent.model_validate({"text": "x", "enable_truncation": 1}), TextContent
    )


def test_unknown_kind_and_garbage_never_raise():
    for data in [{"kind": "FutureEvent", "id": "x"}, {}, [], None, 42, "str", {"kind": 5}]:
        event = parse_event(data)
        assert isinstance(event, RawEvent) and event.error
    bad = parse_event_json(b"{not json")
    assert isinstance(bad, RawEvent) and "invalid JSON" in bad.error
    unknown = parse_event({"kind": "FutureEvent", "id": "x", "timestamp": "t", "parent_id": "p"})
    assert (unknown.id, unknown.kind, unknown.timestamp, unknown.parent_id) == (
        "x",
        "FutureEvent",
        "t",
        "p",
    )


def test_unknown_action_kind_is_raw_with_reason():
    data = make("ActionEvent", action={"kind": "ClientAction_deploy", "x": 1})
    event = parse_event(data)
    assert isinstance(event, RawEvent) and "action" in event.error


def test_explicit_null_id_rejected_but_absent_ok():
    assert isinstance(parse_event({**make("PauseEvent"), "id": None}), RawEvent)
    data = make("PauseEvent")
    del data["id"]
    assert parse_event(data).id is None


def test_encrypted_content_never_in_repr_or_str():
    secret = "gAAAA-SECRET-CIPHERTEXT"
    item = ReasoningItemModel(id="r", summary=["s"], encrypted_content=secret)
    event = parse_event(make("ActionEvent", responses_reasoning_item=item.model_dump()))
    for text in (repr(item), str(item), repr(event), str(event)):
        assert secret not in text
    # but it round-trips for re-sending
    assert event.model_dump()["responses_reasoning_item"]["encrypted_content"] == secret
