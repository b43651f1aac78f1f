"""Pydantic models of the service's data. No I/O lives here."""

from .content import (
    CriticResult,
    ErrorClassification,
    ImageContent,
    Message,
    MessageToolCall,
    ReasoningItemModel,
    RedactedThinkingBlock,
    SecurityRisk,
    TextContent,
    ThinkingBlock,
)
from .control import (
    AppConversation,
    AppConversationPage,
    AppConversationStartTask,
    AppConversationStartTaskPage,
    ExecutionStatus,
    ExposedUrl,
    MetricsSnapshot,
    SandboxInfo,
    SandboxPage,
    SandboxSpecInfo,
    SandboxSpecPage,
    SandboxStatus,
    StartTaskStatus,
)
from .events import (
    EVENT_CLASSES,
    EVENT_KINDS,
    NON_VIEWABLE_KINDS,
    ROOT_PARENT,
    TRANSIENT_KINDS,
    ActionEvent,
    AgentErrorEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    EventBase,
    MessageEvent,
    ObservationEvent,
    StreamingDeltaEvent,
    ToolDefinition,
)
from .pages import EventPage, EventSortOrder, HTTPValidationError, ValidationErrorItem
from .parse import AnyEvent, RawEvent, event_json, parse_event, parse_event_json
from .tree import EventTree

__all__ = [name for name in dir() if not name.startswith("_")]
