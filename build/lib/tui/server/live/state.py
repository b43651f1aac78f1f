"""The ``full_state`` snapshot a live conversation sends: the whole ConversationState.

Shaped like the captured agent server's (facts §6): nulls left out, the LLM key masked,
stats from the run's accumulated usage.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from tui.models import ROOT_PARENT

from ..demo.events_builder import WORKDIR
from ..demo.live_builder import LiveBuilder
from ..times import event_time_from_clock

MASK = "**********"


def agent_block(model: str) -> dict[str, Any]:
    """The ``agent`` part of ``full_state``, shaped like the captured one, key masked."""
    return {
        "llm": {
            "model": model,
            "api_key": MASK,
            "auth_type": "api_key",
            "openrouter_site_url": "https://docs.all-hands.dev/",
            "openrouter_app_name": "OpenHands",
            "num_retries": 5,
            "retry_multiplier": 8.0,
            "retry_min_wait": 8,
            "retry_max_wait": 64,
            "timeout": 300,
            "max_message_chars": 30000,
            "api_mode": "auto",
            "capability_overrides": {},
            "stream": True,
            "drop_params": True,
            "modify_params": True,
            "disable_stop_word": False,
            "caching_prompt": True,
            "log_completions": False,
            "log_completions_folder": "logs/completions",
            "native_tool_calling": True,
            "reasoning_effort": "high",
            "enable_encrypted_reasoning": True,
            "prompt_cache_retention": "24h",
            "extended_thinking_budget": 200000,
            "usage_id": "agent",
            "litellm_extra_body": {},
            "is_subscription": False,
        },
        "tools": [
            {"name": "terminal", "params": {}},
            {"name": "file_editor", "params": {}},
            {"name": "task_tracker", "params": {}},
        ],
        "mcp_config": {},
        "include_default_tools": ["FinishTool", "ThinkTool"],
        "system_prompt_filename": "system_prompt.j2",
        "security_policy_filename": "security_policy.j2",
        "system_prompt_kwargs": {"llm_security_analyzer": True},
        "tool_concurrency_limit": 1,
        "kind": "Agent",
    }


def dashed(conversation_id: str) -> str:
    """A hex conversation id in the dashed UUID form the agent server writes."""
    try:
        return str(uuid.UUID(conversation_id))
    except ValueError:
        return conversation_id


def full_state_value(
    conversation_id: str,
    b: LiveBuilder,
    *,
    model: str,
    status: str,
    confirmation_policy: dict[str, Any],
    last_user_message_id: str | None,
    empty: bool,
    security_analyzer: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``full_state`` value of a conversation whose run ``b`` builds."""
    value: dict[str, Any] = {
        "id": dashed(conversation_id),
        "agent": agent_block(model),
        "workspace": {"working_dir": WORKDIR, "kind": "LocalWorkspace"},
        "persistence_dir": f"/workspace/conversations/{conversation_id}",
        "max_iterations": 500,
        "stuck_detection": True,
        "execution_status": status,
        "confirmation_policy": confirmation_policy,
        **({"security_analyzer": security_analyzer} if security_analyzer else {}),
        "activated_knowledge_skills": [],
        "activated_path_rules": [],
        "invoked_skills": [],
        "blocked_actions": {},
        "blocked_messages": {},
    }
    if last_user_message_id:
        value["last_user_message_id"] = last_user_message_id
    if b.head != ROOT_PARENT:
        value["leaf_event_id"] = b.head
    value["head_is_empty"] = empty
    has_usage = b.prompt_tokens or b.completion_tokens or b.cost
    value["stats"] = {"usage_to_metrics": {"agent": b.full_metrics()} if has_usage else {}}
    value["secret_registry"] = {"secret_sources": {}}
    value["tags"] = {}
    value["agent_state"] = {}
    return value


def full_state_frame(value: dict[str, Any], now: float) -> str:
    """A ``full_state`` ConversationStateUpdateEvent frame (transient: its id is random)."""
    event = {
        "id": str(uuid.uuid4()),
        "timestamp": event_time_from_clock(now),
        "source": "environment",
        "key": "full_state",
        "value": value,
        "kind": "ConversationStateUpdateEvent",
    }
    text = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a local file: escaped, it can be sent
        text = json.dumps(event, separators=(",", ":"))
    return text
