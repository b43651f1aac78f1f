"""Typed async HTTP client of the OpenHands-style service (no Textual imports here)."""

from .agent import AgentEndpoint, AgentServerClient, agent_endpoint, endpoint_from_url
from .api import OpenHandsClient, segment
from .errors import (
    ApiValidationError,
    AuthError,
    BadRequest,
    BadResponse,
    Conflict,
    ConnectionLost,
    HTTPStatusError,
    InvalidParameter,
    NotFound,
    OpenHandsError,
    PageLoopError,
    RateLimited,
    RequestTimeout,
    ServerError,
    StartTaskFailed,
    StartTaskTimeout,
    is_retryable,
)
from .http import MAX_RETRY_AFTER, RETRY_STATUSES
from .stream import EventDeduper, EventStream, StreamEvent, StreamItem, StreamStatus, is_transient
from .stream_state import StreamState

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
    "EventDeduper",
    "EventStream",
    "HTTPStatusError",
    "InvalidParameter",
    "NotFound",
    "OpenHandsClient",
    "OpenHandsError",
    "PageLoopError",
    "RateLimited",
    "RequestTimeout",
    "ServerError",
    "StartTaskFailed",
    "StartTaskTimeout",
    "StreamEvent",
    "StreamItem",
    "StreamState",
    "StreamStatus",
    "agent_endpoint",
    "endpoint_from_url",
    "is_retryable",
    "is_transient",
    "segment",
]
