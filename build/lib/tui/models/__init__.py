"""Pydantic models of the service's data. No I/O lives here."""

# Names load their module on first use (PEP 562): the conversations list (control records)
# is on screen before the ~150 event, action and observation models are built (~0.3 s).
from typing import TYPE_CHECKING

from tui.lazy import lazy_getattr

_LAZY = {
    "ActionEvent": ".events",
    "AgentErrorEvent": ".events",
    "AnyEvent": ".parse",
    "AppConversation": ".control",
    "AppConversationPage": ".control",
    "AppConversationStartTask": ".control",
    "AppConversationStartTaskPage": ".control",
    "ConversationErrorEvent": ".events",
    "ConversationStateUpdateEvent": ".events",
    "CriticResult": ".content",
    "EVENT_CLASSES": ".events",
    "EVENT_KINDS": ".events",
    "ErrorClassification": ".content",
    "Event": ".events",
    "EventBase": ".events",
    "EventPage": ".pages",
    "EventSortOrder": ".wire",
    "EventTree": ".tree",
    "ExecutionStatus": ".control",
    "ExposedUrl": ".control",
    "Failure": ".failure",
    "HTTPValidationError": ".wire",
    "ImageContent": ".content",
    "JsonNumber": ".jsonscan",
    "Message": ".content",
    "MessageEvent": ".events",
    "MessageToolCall": ".content",
    "MetricsSnapshot": ".control",
    "NON_VIEWABLE_KINDS": ".events",
    "NotAnEventPage": ".pages",
    "ObservationEvent": ".events",
    "ROOT_PARENT": ".events",
    "RawEvent": ".parse",
    "ReasoningItemModel": ".content",
    "RedactedThinkingBlock": ".content",
    "SandboxInfo": ".control",
    "SandboxPage": ".control",
    "SandboxSpecInfo": ".control",
    "SandboxSpecPage": ".control",
    "SandboxStatus": ".control",
    "SecurityAnalysisEvent": ".events",
    "SecurityRisk": ".content",
    "StartTaskStatus": ".control",
    "StreamingDeltaEvent": ".events",
    "TRANSIENT_KINDS": ".events",
    "TextContent": ".content",
    "ThinkingBlock": ".content",
    "ToolDefinition": ".events",
    "ValidationErrorItem": ".wire",
    "event_fields": ".fields",
    "event_json": ".parse",
    "event_text": ".fields",
    "failure_of": ".failure",
    "is_secret_key": ".redact",
    "is_transient": ".event_facts",
    "json_text": ".jsontext",
    "parse_event": ".parse",
    "parse_event_json": ".parse",
    "redact_text": ".redact",
    "FileBrowserEntry": ".workspace",
    "FileUploadResult": ".workspace",
    "GitChange": ".workspace",
    "GitChangeStatus": ".workspace",
    "GitCommit": ".workspace",
    "GitCommitsPage": ".workspace",
    "GitDiff": ".workspace",
    "HomeResponse": ".workspace",
    "SubdirectoryEntry": ".workspace",
    "SubdirectoryPage": ".workspace",
    "WorkspacePatch": ".workspace",
}

if TYPE_CHECKING:
    from .content import (  # noqa: F401
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
    from .control import (  # noqa: F401
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
    from .event_facts import (  # noqa: F401
        is_transient,
    )
    from .events import (  # noqa: F401
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
        SecurityAnalysisEvent,
        StreamingDeltaEvent,
        ToolDefinition,
    )
    from .failure import (  # noqa: F401
        Failure,
        failure_of,
    )
    from .fields import (  # noqa: F401
        event_fields,
        event_text,
    )
    from .jsonscan import (  # noqa: F401
        JsonNumber,
    )
    from .jsontext import (  # noqa: F401
        json_text,
    )
    from .pages import (  # noqa: F401
        EventPage,
        NotAnEventPage,
    )
    from .parse import (  # noqa: F401
        AnyEvent,
        RawEvent,
        event_json,
        parse_event,
        parse_event_json,
    )
    from .redact import (  # noqa: F401
        is_secret_key,
        redact_text,
    )
    from .tree import (  # noqa: F401
        EventTree,
    )
    from .wire import (  # noqa: F401
        EventSortOrder,
        HTTPValidationError,
        ValidationErrorItem,
    )
    from .workspace import (  # noqa: F401
        FileBrowserEntry,
        FileUploadResult,
        GitChange,
        GitChangeStatus,
        GitCommit,
        GitCommitsPage,
        GitDiff,
        HomeResponse,
        SubdirectoryEntry,
        SubdirectoryPage,
        WorkspacePatch,
    )


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = sorted(_LAZY)  # noqa: PLE0605 - the lazy names are the public ones
