"""Typed async HTTP client of the OpenHands-style service (no Textual imports here)."""

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
)
from .http import MAX_RETRY_AFTER, RETRY_STATUSES

__all__ = [
    "MAX_RETRY_AFTER",
    "RETRY_STATUSES",
    "ApiValidationError",
    "AuthError",
    "BadRequest",
    "BadResponse",
    "Conflict",
    "ConnectionLost",
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
    "segment",
]
