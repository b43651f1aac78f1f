"""A bare agent server seen through the app-server API: record mapping and request shapes.

No I/O here: :class:`~tui.client.OpenHandsClient` sends the requests. An agent server's
``ConversationInfo`` holds the whole agent (``agent.llm`` with its key fields, the secret
registry, tool definitions…); only what the app shows is kept, as an ``AppConversation``
(``CLIENT-CONTRACT.md``), so nothing secret-bearing travels further into the app.
"""

from __future__ import annotations

import copy
import math
import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from tui.models import AppConversation, MetricsSnapshot, SandboxStatus
from tui.models.control import TokenUsage
from tui.models.redact import is_secret_key

from .errors import InvalidParameter
from .params import segment

#: Module of each SDK event class: servers before 1.58 match ``kind`` on the qualified name
#: only, 1.58 also on the short one, so the qualified name is sent to all of them.
EVENT_MODULES = {
    "ACPToolCallEvent": "openhands.sdk.event.acp_tool_call",
    "ActionEvent": "openhands.sdk.event.llm_convertible.action",
    "AgentErrorEvent": "openhands.sdk.event.llm_convertible.observation",
    "Condensation": "openhands.sdk.event.condenser",
    "CondensationRequest": "openhands.sdk.event.condenser",
    "CondensationSummaryEvent": "openhands.sdk.event.condenser",
    "ConversationErrorEvent": "openhands.sdk.event.conversation_error",
    "ConversationStateUpdateEvent": "openhands.sdk.event.conversation_state",
    "HookExecutionEvent": "openhands.sdk.event.hook_execution",
    "InterruptEvent": "openhands.sdk.event.user_action",
    "LLMCompletionLogEvent": "openhands.sdk.event.llm_completion_log",
    "MessageEvent": "openhands.sdk.event.llm_convertible.message",
    "ObservationEvent": "openhands.sdk.event.llm_convertible.observation",
    "PauseEvent": "openhands.sdk.event.user_action",
    "SecurityAnalysisEvent": "openhands.sdk.event.security",
    "StreamingDeltaEvent": "openhands.sdk.event.streaming_delta",
    "SystemPromptEvent": "openhands.sdk.event.llm_convertible.system",
    "TokenEvent": "openhands.sdk.event.token",
    "UserRejectObservation": "openhands.sdk.event.llm_convertible.observation",
}

#: Where a conversation works when the agent settings name no workspace (the server's own
#: example; relative to the agent server's working directory).
DEFAULT_WORKSPACE = {"working_dir": "workspace/project"}

#: Keys that make a settings dict a whole ``StartConversationRequest`` template.
_REQUEST_KEYS = frozenset({"agent", "agent_settings", "agent_profile_id", "workspace"})
MAX_TITLE = 200


def qualified_kind(kind: str | None) -> str | None:
    """The SDK's ``module.ClassName`` for a short kind name (unknown names as they are)."""
    if kind is None:
        return None
    module = EVENT_MODULES.get(kind)
    return f"{module}.{kind}" if module else kind


def conversations_path(conversation_id: str | None = None) -> str:
    return (
        "/api/conversations"
        if conversation_id is None
        else f"/api/conversations/{segment(conversation_id)}"
    )


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except (ValueError, AttributeError, TypeError):
        return False
    return True


# --- ConversationInfo → AppConversation ------------------------------------------------------


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value) if math.isfinite(value) else 0.0


_TOKEN_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


def metrics_from(info: Mapping[str, Any]) -> MetricsSnapshot | None:
    """Cost and token usage summed over ``stats.usage_to_metrics`` (agent, condenser, …);
    the record's own ``metrics`` when it has no stats; None when it has neither."""
    stats = info.get("stats")
    per_usage = stats.get("usage_to_metrics") if isinstance(stats, dict) else None
    if not isinstance(per_usage, dict) or not per_usage:
        own = info.get("metrics")
        if isinstance(own, dict):
            try:
                return MetricsSnapshot.model_validate(own)
            except ValueError:
                return None
        return None
    cost = 0.0
    tokens = dict.fromkeys(_TOKEN_FIELDS, 0)
    context_window = 0
    models = []
    for metrics in per_usage.values():
        if not isinstance(metrics, dict):
            continue
        cost += _number(metrics.get("accumulated_cost"))
        if isinstance(metrics.get("model_name"), str):
            models.append(metrics["model_name"])
        usage = metrics.get("accumulated_token_usage")
        if isinstance(usage, dict):
            for name in _TOKEN_FIELDS:
                tokens[name] += int(_number(usage.get(name)))
            context_window = max(context_window, int(_number(usage.get("context_window"))))
    model = models[0] if models else "default"
    return MetricsSnapshot(
        model_name=model,
        accumulated_cost=cost,
        accumulated_token_usage=TokenUsage(model=model, context_window=context_window, **tokens),
    )


def _model_of(info: Mapping[str, Any]) -> str | None:
    agent = info.get("agent")
    llm = agent.get("llm") if isinstance(agent, dict) else None
    model = llm.get("model") if isinstance(llm, dict) else None
    if isinstance(model, str) and model:
        return model
    current = info.get("current_model_id")  # ACP agents name their model here
    return current if isinstance(current, str) and current else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _tags(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, str)}


def runtime_fields(value: Any) -> dict[str, Any]:
    """``runtime_status``, ``can_resume`` and ``runtime_error`` ("code: message") of a
    ``ConversationRuntimeInfo`` (the record's ``runtime_info``, or ``GET …/runtime``)."""
    if not isinstance(value, dict):
        return {}
    error = value.get("runtime_error")
    words = None
    if isinstance(error, dict):
        parts = [error.get(k) for k in ("code", "message")]
        words = ": ".join(p for p in parts if isinstance(p, str) and p) or None
    can = value.get("can_resume")
    return {
        "runtime_status": _text(value.get("runtime_status")),
        "can_resume": can if isinstance(can, bool) else None,
        "runtime_error": words,
    }


def _ids(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def conversation_record(
    info: Mapping[str, Any], base_url: str, session_api_key: str | None
) -> AppConversation:
    """The ``AppConversation`` of an agent server's ``ConversationInfo``.

    The agent server is up, so the "sandbox" is RUNNING; ``conversation_url`` points at the
    conversation on this server and ``session_api_key`` is the client's own key, so the
    app follows it over ``/sockets/events/{id}`` as it does an app server's conversation.
    """
    cid = info.get("id")
    if not isinstance(cid, str) or not cid:
        raise ValueError("a conversation without an id")
    return AppConversation(
        id=cid,
        sandbox_id="",
        title=_text(info.get("title")),
        execution_status=_text(info.get("execution_status")),
        created_at=_text(info.get("created_at")),
        updated_at=_text(info.get("updated_at")),
        llm_model=_model_of(info),
        metrics=metrics_from(info),
        parent_conversation_id=_text(info.get("parent_conversation_id")),
        sub_conversation_ids=_ids(info.get("sub_conversation_ids")),
        tags=_tags(info.get("tags")),
        forked_from_conversation_id=_text(info.get("forked_from_conversation_id")),
        forked_from_event_id=_text(info.get("forked_from_event_id")),
        leaf_event_id=_text(info.get("leaf_event_id")),
        confirmation_policy=info.get("confirmation_policy"),  # kept by its kind (the model)
        security_analyzer=info.get("security_analyzer"),
        **runtime_fields(info.get("runtime_info")),
        sandbox_status=SandboxStatus.RUNNING,
        conversation_url=f"{base_url}{conversations_path(cid)}",
        session_api_key=session_api_key,
    )


# --- client-side conversation filters --------------------------------------------------------


def _utc(value: datetime | str | None) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class ConversationFilter:
    """The app server's search filters, applied by the client (an agent server has none)."""

    def __init__(
        self,
        *,
        title_contains: str | None = None,
        created_at_gte: datetime | str | None = None,
        created_at_lt: datetime | str | None = None,
        updated_at_gte: datetime | str | None = None,
        updated_at_lt: datetime | str | None = None,
        sandbox_id: str | None = None,
    ) -> None:
        self.title = title_contains.casefold() if title_contains else None
        self.bounds = (
            ("created_at", _utc(created_at_gte), _utc(created_at_lt)),
            ("updated_at", _utc(updated_at_gte), _utc(updated_at_lt)),
        )
        self.sandbox_id = sandbox_id

    @property
    def active(self) -> bool:
        return bool(
            self.title
            or self.sandbox_id is not None
            or any(low or high for _, low, high in self.bounds)
        )

    def __call__(self, conversation: AppConversation) -> bool:
        if self.title and self.title not in (conversation.title or "").casefold():
            return False
        if self.sandbox_id is not None and conversation.sandbox_id != self.sandbox_id:
            return False
        for name, low, high in self.bounds:
            if low is None and high is None:
                continue
            moment = _utc(getattr(conversation, name))
            if moment is None or (low and moment < low) or (high and moment >= high):
                return False
        return True


# --- starting a conversation -----------------------------------------------------------------


def secret_values(data: Any, _depth: int = 0) -> Iterable[str]:
    """Every string under a secret-named key (to mask them in error text)."""
    if _depth > 50:
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and is_secret_key(key) and isinstance(value, str):
                if len(value) >= 4:
                    yield value
            else:
                yield from secret_values(value, _depth + 1)
    elif isinstance(data, list):
        for item in data:
            yield from secret_values(item, _depth + 1)


def start_request(
    settings: Any, message: str | None, conversation_id: str | None = None
) -> dict[str, Any]:
    """A ``StartConversationRequest`` from the user's agent settings.

    ``settings`` may be a whole request template (it has ``agent``, ``agent_settings``,
    ``agent_profile_id`` or ``workspace``), an SDK agent (``{"kind": "Agent", "llm": …}``)
    or reference-free agent settings (``{"llm": {"model": …}, …}``). The client picks the
    conversation id, which makes the POST safe to repeat (the server answers 200 with the
    conversation it already made).
    """
    if not isinstance(settings, dict) or not settings:
        raise InvalidParameter("agent settings must be a non-empty JSON object")
    if _REQUEST_KEYS.intersection(settings):
        body = copy.deepcopy(settings)
    elif isinstance(settings.get("kind"), str):
        body = {"agent": copy.deepcopy(settings)}
    else:
        body = {"agent_settings": copy.deepcopy(settings)}
    if not {"agent", "agent_settings", "agent_profile_id"}.intersection(body):
        raise InvalidParameter(
            "the agent settings name no agent (agent, agent_settings or agent_profile_id)"
        )
    body.setdefault("workspace", dict(DEFAULT_WORKSPACE))
    if conversation_id is not None or not body.get("conversation_id"):
        body["conversation_id"] = conversation_id or uuid.uuid4().hex
    if message is not None:
        if not isinstance(message, str) or not message.strip():
            raise InvalidParameter("the first message is empty")
        body["initial_message"] = {
            "role": "user",
            "content": [{"type": "text", "text": message}],
            "run": True,
        }
    return body


def check_title(title: Any) -> str:
    if not isinstance(title, str) or not title.strip():
        raise InvalidParameter("a title must be a non-empty string")
    if len(title) > MAX_TITLE:
        raise InvalidParameter(f"a title must be at most {MAX_TITLE} characters")
    return title


__all__ = [
    "DEFAULT_WORKSPACE",
    "EVENT_MODULES",
    "ConversationFilter",
    "check_title",
    "conversation_record",
    "conversations_path",
    "is_uuid",
    "metrics_from",
    "qualified_kind",
    "secret_values",
    "start_request",
]
