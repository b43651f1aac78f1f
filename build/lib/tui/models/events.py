"""The 20 event kinds of the service, closed exactly as the spec declares them.

The spec lists 19; ``SecurityAnalysisEvent`` came with agent server 1.58 (facts §10).

Field order follows the SDK (`id, timestamp, source, parent_id, <own fields>, kind`) so a
dump of a parsed event reads like the original. Timestamps stay strings: the real service
sends naive local times and compares them as strings (facts §1a, §7).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, field_validator

from .base import ClosedModel
from .content import (
    AnyThinkingBlock,
    CriticResult,
    ErrorClassification,
    Message,
    MessageToolCall,
    ReasoningItemModel,
    SecurityRisk,
    TextContent,
)
from .tools import Action, Observation

Source = Literal["agent", "user", "environment", "hook"]
ROOT_PARENT = "__root__"
DEFAULT_REJECTION_REASON = "User rejected the action"


class ToolAnnotations(ClosedModel):
    title: str | None = None
    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None


class ToolDefinition(ClosedModel):
    """A tool offered to the model. Kinds are open-ended (``DelegateTool``, client tools)."""

    description: str
    action_type: str
    observation_type: str | None = None
    annotations: ToolAnnotations | None = None
    meta: dict[str, Any] | None = None
    mcp_tool: dict[str, Any] | None = None
    client_tool_name: str | None = None
    input_schema: dict[str, Any] | None = None
    kind: str
    title: str


class EventBase(ClosedModel):
    # ``id``/``timestamp`` are optional strings: absent is fine, an explicit null is not.
    id: str | None = None
    timestamp: str | None = None
    source: Source
    parent_id: str | None = None

    @field_validator("id", "timestamp", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("must be a string when present")
        return value


class ServerErrorEvent(EventBase):
    code: str
    detail: str
    kind: Literal["ServerErrorEvent"] = "ServerErrorEvent"


class ACPToolCallEvent(EventBase):
    source: Source = "agent"
    tool_call_id: str
    title: str
    status: str | None = None
    tool_kind: str | None = None
    raw_input: Any | None = None
    raw_output: Any | None = None
    content: list[Any] | None = None
    is_error: bool = False
    kind: Literal["ACPToolCallEvent"] = "ACPToolCallEvent"


class Condensation(EventBase):
    source: Source = "environment"
    forgotten_event_ids: list[str] = Field(default_factory=list)
    summary: str | None = None
    summary_offset: int | None = Field(default=None, ge=0)
    llm_response_id: str
    kind: Literal["Condensation"] = "Condensation"

    @field_validator("forgotten_event_ids")
    @classmethod
    def _unique(cls, ids: list[str]) -> list[str]:
        if len(set(ids)) != len(ids):
            raise ValueError("forgotten_event_ids must be unique")
        return ids


class CondensationRequest(EventBase):
    source: Source = "environment"
    kind: Literal["CondensationRequest"] = "CondensationRequest"


class CondensationSummaryEvent(EventBase):
    source: Source = "environment"
    summary: str
    kind: Literal["CondensationSummaryEvent"] = "CondensationSummaryEvent"


class ConversationErrorEvent(EventBase):
    code: str
    detail: str
    classification: ErrorClassification | None = None
    kind: Literal["ConversationErrorEvent"] = "ConversationErrorEvent"


class ConversationStateUpdateEvent(EventBase):
    source: Source = "environment"
    key: str | None = None
    value: Any = None
    kind: Literal["ConversationStateUpdateEvent"] = "ConversationStateUpdateEvent"


class HookExecutionEvent(EventBase):
    source: Source = "hook"
    hook_event_type: Literal[
        "PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop"
    ]
    hook_command: str
    tool_name: str | None = None
    success: bool
    blocked: bool = False
    exit_code: int
    stdout: str = ""
    stderr: str = ""
    reason: str | None = None
    additional_context: str | None = None
    error: str | None = None
    action_id: str | None = None
    message_id: str | None = None
    hook_input: dict[str, Any] | None = None
    kind: Literal["HookExecutionEvent"] = "HookExecutionEvent"


class LLMCompletionLogEvent(EventBase):
    source: Source = "environment"
    filename: str
    log_data: str
    model_name: str = "unknown"
    usage_id: str = "default"
    kind: Literal["LLMCompletionLogEvent"] = "LLMCompletionLogEvent"


class ActionEvent(EventBase):
    source: Source = "agent"
    thought: list[TextContent]
    reasoning_content: str | None = None
    thinking_blocks: list[AnyThinkingBlock] = Field(default_factory=list)
    responses_reasoning_item: ReasoningItemModel | None = None
    action: Action | None = None
    tool_name: str
    tool_call_id: str
    tool_call: MessageToolCall
    llm_response_id: str
    security_risk: SecurityRisk = SecurityRisk.UNKNOWN
    critic_result: CriticResult | None = None
    summary: str | None = None
    kind: Literal["ActionEvent"] = "ActionEvent"


class MessageEvent(EventBase):
    llm_message: Message
    llm_response_id: str | None = None
    activated_skills: list[str] = Field(default_factory=list)
    extended_content: list[TextContent] = Field(default_factory=list)
    sender: str | None = None
    critic_result: CriticResult | None = None
    kind: Literal["MessageEvent"] = "MessageEvent"


class AgentErrorEvent(EventBase):
    source: Source = "agent"
    tool_name: str
    tool_call_id: str
    error: str
    classification: ErrorClassification | None = None
    kind: Literal["AgentErrorEvent"] = "AgentErrorEvent"


class ObservationEvent(EventBase):
    source: Source = "environment"
    tool_name: str
    tool_call_id: str
    observation: Observation
    action_id: str
    extended_content: list[TextContent] = Field(default_factory=list)
    kind: Literal["ObservationEvent"] = "ObservationEvent"


class UserRejectObservation(EventBase):
    source: Source = "environment"
    tool_name: str
    tool_call_id: str
    rejection_reason: str = DEFAULT_REJECTION_REASON
    rejection_source: Literal["user", "hook"] = "user"
    action_id: str
    kind: Literal["UserRejectObservation"] = "UserRejectObservation"


class SystemPromptEvent(EventBase):
    source: Source = "agent"
    system_prompt: TextContent
    tools: list[ToolDefinition]
    dynamic_context: TextContent | None = None
    kind: Literal["SystemPromptEvent"] = "SystemPromptEvent"


class StreamingDeltaEvent(EventBase):
    source: Source = "agent"
    content: str | None = None
    reasoning_content: str | None = None
    kind: Literal["StreamingDeltaEvent"] = "StreamingDeltaEvent"


class SecurityAnalysisEvent(EventBase):
    """The security analyzer's verdict on a batch of actions about to run (SDK 1.58).

    Logged whenever an analyzer is configured, whatever the confirmation policy does with
    it; ``risks`` and ``details`` are keyed by the ActionEvent ids (facts §10)."""

    source: Source = "environment"
    analyzer: str
    policy: str
    risks: dict[str, SecurityRisk]
    details: dict[str, dict[str, Any]] = Field(default_factory=dict)
    kind: Literal["SecurityAnalysisEvent"] = "SecurityAnalysisEvent"


class TokenEvent(EventBase):
    prompt_token_ids: list[int]
    response_token_ids: list[int]
    kind: Literal["TokenEvent"] = "TokenEvent"


class InterruptEvent(EventBase):
    source: Source = "user"
    kind: Literal["InterruptEvent"] = "InterruptEvent"


class PauseEvent(EventBase):
    source: Source = "user"
    kind: Literal["PauseEvent"] = "PauseEvent"


EVENT_CLASSES: tuple[type[EventBase], ...] = (
    ServerErrorEvent,
    ACPToolCallEvent,
    Condensation,
    CondensationRequest,
    CondensationSummaryEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    HookExecutionEvent,
    LLMCompletionLogEvent,
    ActionEvent,
    MessageEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
    SystemPromptEvent,
    StreamingDeltaEvent,
    TokenEvent,
    InterruptEvent,
    PauseEvent,
    SecurityAnalysisEvent,
)

#: The ``kind__eq`` filter values, in the spec's order.
EVENT_KINDS: tuple[str, ...] = tuple(c.__name__ for c in EVENT_CLASSES)

#: Kinds the shared search removes from results (facts §1a: only this one).
NON_VIEWABLE_KINDS = frozenset({"ConversationStateUpdateEvent"})

#: Kinds that are never persisted in the searchable log.
TRANSIENT_KINDS = frozenset({"StreamingDeltaEvent"})

# Union over a tuple built at runtime: the `X | Y` spelling cannot take one.
Event = Annotated[Union[EVENT_CLASSES], Field(discriminator="kind")]  # type: ignore[valid-type]  # noqa: UP007
