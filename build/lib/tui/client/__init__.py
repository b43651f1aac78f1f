"""Typed async HTTP client of the OpenHands-style service (no Textual imports here).

Every name is imported on first use. The agent-server half (``agent``, ``stream``,
``stream_state``: websockets) is not needed to list conversations, the first thing ``ohtui``
shows. The index's helper process imports submodules that need no httpx
(``process_worker``, ``page_fetch``, ``stream_state``): importing the package for them must
not cost it httpx and the client (~0.2 s of its start, which the walk waits for).
"""

from typing import TYPE_CHECKING

from tui.lazy import lazy_getattr

_LAZY = {
    "OpenHandsClient": ".api",
    "segment": ".api",
    "JitteredBackoff": ".backoff",
    "ApiValidationError": ".errors",
    "AuthError": ".errors",
    "BadRequest": ".errors",
    "BadResponse": ".errors",
    "Conflict": ".errors",
    "ConnectionLost": ".errors",
    "CutShort": ".errors",
    "HTTPStatusError": ".errors",
    "InvalidParameter": ".errors",
    "NotAFile": ".errors",
    "NotFound": ".errors",
    "NotTheAPI": ".errors",
    "OpenHandsError": ".errors",
    "OutcomeUnknown": ".errors",
    "OutcomeUnknownTimeout": ".errors",
    "PageLoopError": ".errors",
    "RateLimited": ".errors",
    "RequestTimeout": ".errors",
    "ResponseTooLarge": ".errors",
    "SandboxNotRunning": ".errors",
    "ServerError": ".errors",
    "StartTaskFailed": ".errors",
    "StartTaskTimeout": ".errors",
    "TooLarge": ".errors",
    "Unsupported": ".errors",
    "is_retryable": ".errors",
    "MAX_RETRY_AFTER": ".backoff",
    "RETRY_STATUSES": ".http",
    "ServerInfo": ".kinds",
    "ServerKind": ".kinds",
    "AgentEndpoint": ".agent",
    "AgentServerClient": ".agent",
    "agent_endpoint": ".agent",
    "endpoint_from_url": ".agent",
    "EventDeduper": ".stream_items",
    "EventStream": ".stream",
    "StreamEvent": ".stream_items",
    "StreamItem": ".stream_items",
    "StreamStatus": ".stream_items",
    "is_transient": ".stream_items",
    "StreamState": ".stream_state",
}

if TYPE_CHECKING:
    from .agent import AgentEndpoint, AgentServerClient, agent_endpoint, endpoint_from_url
    from .api import OpenHandsClient, segment
    from .backoff import MAX_RETRY_AFTER, JitteredBackoff
    from .errors import (
        ApiValidationError,
        AuthError,
        BadRequest,
        BadResponse,
        Conflict,
        ConnectionLost,
        CutShort,
        HTTPStatusError,
        InvalidParameter,
        NotAFile,
        NotFound,
        NotTheAPI,
        OpenHandsError,
        OutcomeUnknown,
        OutcomeUnknownTimeout,
        PageLoopError,
        RateLimited,
        RequestTimeout,
        ResponseTooLarge,
        SandboxNotRunning,
        ServerError,
        StartTaskFailed,
        StartTaskTimeout,
        TooLarge,
        Unsupported,
        is_retryable,
    )
    from .http import RETRY_STATUSES
    from .kinds import ServerInfo, ServerKind
    from .stream import EventStream
    from .stream_items import EventDeduper, StreamEvent, StreamItem, StreamStatus, is_transient
    from .stream_state import StreamState


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


__all__ = [
    "MAX_RETRY_AFTER",
    "RETRY_STATUSES",
    "AgentEndpoint",
    "AgentServerClient",
    "ApiValidationError",
    "AuthError",
    "BadRequest",
    "BadResponse",
    "Conflict",
    "ConnectionLost",
    "CutShort",
    "EventDeduper",
    "EventStream",
    "HTTPStatusError",
    "InvalidParameter",
    "JitteredBackoff",
    "NotAFile",
    "NotFound",
    "NotTheAPI",
    "OpenHandsClient",
    "OpenHandsError",
    "OutcomeUnknown",
    "OutcomeUnknownTimeout",
    "PageLoopError",
    "RateLimited",
    "RequestTimeout",
    "ResponseTooLarge",
    "SandboxNotRunning",
    "ServerError",
    "ServerInfo",
    "ServerKind",
    "StartTaskFailed",
    "StartTaskTimeout",
    "StreamEvent",
    "StreamItem",
    "StreamState",
    "StreamStatus",
    "TooLarge",
    "Unsupported",
    "agent_endpoint",
    "endpoint_from_url",
    "is_retryable",
    "is_transient",
    "segment",
]
