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
    "ApiValidationError",
    "AuthError",
    "BadRequest",
    "BadResponse",
    "Conflict",
    "ConnectionLost",
    "HTTPStatusError",
    "InvalidParameter",
    "MAX_RETRY_AFTER",
    "NotFound",
    "OpenHandsClient",
    "OpenHandsError",
    "PageLoopError",
    "RETRY_STATUSES",
    "RateLimited",
    "RequestTimeout",
    "ServerError",
    "StartTaskFailed",
    "StartTaskTimeout",
    "segment",
]
