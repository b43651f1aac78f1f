"""Hand-made events for the insights tests: the few shapes they need, valid for the models."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from tui.models import RawEvent, parse_event

T0 = datetime(2026, 11, 21, 10, 0, 0)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def typed(event: dict[str, Any]) -> Any:
    parsed = parse_event(event)
    assert not isinstance(parsed, RawEvent), parsed.error
    return parsed


def action(
    event_id: str,
    t: float,
    command: str = "pytest -q",
    *,
    call: str | None = None,
    tool: str = "terminal",
    response: str | None = None,
    kind: str = "TerminalAction",
    path: str | None = None,
    runnable: bool = True,
) -> Any:
    call = call or f"call-{event_id}"
    body: dict[str, Any] = {"kind": kind, "command": command}
    if path is not None:
        body["path"] = path
    event = {
        "id": event_id,
        "timestamp": at(t),
        "source": "agent",
        "thought": [],
        "tool_name": tool,
        "tool_call_id": call,
        "tool_call": {"id": call, "name": tool, "arguments": "{}", "origin": "completion"},
        "llm_response_id": response or f"resp-{event_id}",
        "kind": "ActionEvent",
    }
    if runnable:
        event["action"] = body
    return typed(event)


def result(
    event_id: str,
    t: float,
    action_id: str,
    *,
    call: str | None = None,
    tool: str = "terminal",
    exit_code: int | None = 0,
    is_error: bool = False,
    timeout: bool = False,
    command: str = "pytest -q",
) -> Any:
    if tool == "terminal":
        observation: dict[str, Any] = {
            "kind": "TerminalObservation",
            "content": [{"type": "text", "text": "output"}],
            "is_error": is_error,
            "command": command,
            "exit_code": exit_code,
            "timeout": timeout,
        }
    else:
        observation = {
            "kind": "FileEditorObservation",
            "content": [{"type": "text", "text": "edited" if not is_error else "no match"}],
            "is_error": is_error,
            "command": command,
        }
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "environment",
            "tool_name": tool,
            "tool_call_id": call or f"call-{action_id}",
            "observation": observation,
            "action_id": action_id,
            "kind": "ObservationEvent",
        }
    )


def agent_error(event_id: str, t: float, call: str, tool: str = "nope") -> Any:
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "agent",
            "tool_name": tool,
            "tool_call_id": call,
            "error": f"Tool '{tool}' not found.",
            "kind": "AgentErrorEvent",
        }
    )


def metrics(cost: float, prompt: int, completion: int, *, model: str = "m", cache: int = 0):
    return {
        "model_name": model,
        "accumulated_cost": cost,
        "max_budget_per_task": None,
        "accumulated_token_usage": {
            "model": model,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cache_read_tokens": cache,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
            "context_window": 0,
            "per_turn_token": 0,
            "response_id": "",
        },
    }


def stats(event_id: str, t: float, **usages: dict[str, Any]) -> Any:
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "environment",
            "key": "stats",
            "value": {"usage_to_metrics": usages},
            "kind": "ConversationStateUpdateEvent",
        }
    )


def full_state(event_id: str, t: float, usages: dict[str, Any]) -> Any:
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "environment",
            "key": "full_state",
            "value": {"execution_status": "finished", "stats": {"usage_to_metrics": usages}},
            "kind": "ConversationStateUpdateEvent",
        }
    )


def user(event_id: str, t: float, words: str = "go on") -> Any:
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": words}]},
            "kind": "MessageEvent",
        }
    )


def reply(event_id: str, t: float, words: str = "done", response: str | None = None) -> Any:
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "agent",
            "llm_message": {"role": "assistant", "content": [{"type": "text", "text": words}]},
            "llm_response_id": response or f"resp-{event_id}",
            "kind": "MessageEvent",
        }
    )


def condensation(event_id: str, t: float, forgotten: int = 3) -> Any:
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "environment",
            "forgotten_event_ids": [f"old-{n}" for n in range(forgotten)],
            "summary": "what happened",
            "llm_response_id": f"resp-{event_id}",
            "kind": "Condensation",
        }
    )


def completion_log(
    event_id: str,
    t: float,
    latency: float,
    *,
    cost: float = 0.0,
    usage: str = "agent",
    prompt: int = 0,
    completion: int = 0,
    error: bool = False,
) -> Any:
    data: dict[str, Any] = {"messages": [{"role": "user", "content": "x"}], "cost": cost}
    data["latency_sec"] = latency
    data["timestamp"] = 1_800_000_000 + t
    if error:
        data["error"] = {"type": "RateLimitError", "message": "slow down"}
    else:
        data["usage_summary"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "reasoning_tokens": 0,
            "cache_read_tokens": 0,
        }
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "environment",
            "filename": f"m-{t:.3f}-abcd{'-error' if error else ''}.json",
            "log_data": json.dumps(data),
            "model_name": "m",
            "usage_id": usage,
            "kind": "LLMCompletionLogEvent",
        }
    )


def status(event_id: str, t: float, value: str) -> Any:
    """The conversation's ``execution_status`` changing (``waiting_for_confirmation``…)."""
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "environment",
            "key": "execution_status",
            "value": value,
            "kind": "ConversationStateUpdateEvent",
        }
    )


def rejection(event_id: str, t: float, action_id: str, source: str = "user") -> Any:
    return typed(
        {
            "id": event_id,
            "timestamp": at(t),
            "source": "environment",
            "tool_name": "terminal",
            "tool_call_id": f"call-{action_id}",
            "rejection_reason": "Too risky",
            "rejection_source": source,
            "action_id": action_id,
            "kind": "UserRejectObservation",
        }
    )
