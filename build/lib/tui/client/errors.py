"""The client's exception hierarchy.

Every failure the UI can meet is an :class:`OpenHandsError` carrying ``status``, ``method``,
a *redacted* ``url`` and the server's parsed ``detail``, so a screen can show one calm line
and decide what to offer (retry, re-enter a key, go back). Messages are built from redacted
parts only: keys never reach ``str()``, ``repr()``, ``args`` or a log line.
"""

from __future__ import annotations

from typing import Any

from tui.models import AppConversationStartTask, HTTPValidationError


class OpenHandsError(Exception):
    """Base class of everything the client raises on purpose."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        method: str | None = None,
        url: str | None = None,
        detail: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.method = method
        self.url = url
        self.detail = detail

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        parts = [repr(self.message)]
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.method is not None:
            parts.append(f"method={self.method!r}")
        if self.url is not None:
            parts.append(f"url={self.url!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


class InvalidParameter(OpenHandsError, ValueError):
    """A parameter the server would reject (or misread); raised before anything is sent."""


# --- HTTP status errors ------------------------------------------------------------------


class HTTPStatusError(OpenHandsError):
    """The server answered with a status the call does not accept. ``error_id``: the id
    the server gave its own failure (the agent server's 500s), to find it in its log."""

    error_id: str | None = None


class BadRequest(HTTPStatusError):
    """400: e.g. a batch over the server's size limit or an id that is not a UUID."""


class ApiValidationError(HTTPStatusError):
    """422: FastAPI rejected a parameter; ``validation`` holds the parsed body."""

    def __init__(self, message: str, *, validation: HTTPValidationError, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.validation = validation


class AuthError(HTTPStatusError):
    """401/403: missing, wrong or insufficient credentials."""


class NotFound(HTTPStatusError):
    """404: unknown conversation, sandbox, spec or route."""


class Conflict(HTTPStatusError):
    """409: the resource is not in a state that allows the call (e.g. sandbox not running)."""


class RateLimited(HTTPStatusError):
    """429 that persisted through the retry budget; ``retry_after`` is in seconds if given."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(HTTPStatusError):
    """5xx: the server failed (after retries, for idempotent calls)."""


# --- transport errors --------------------------------------------------------------------


class RequestTimeout(OpenHandsError):
    """No answer within the timeout (after retries, for idempotent calls)."""


class ConnectionLost(OpenHandsError):
    """Connection refused, dropped, or broken mid-response (ReadError, RemoteProtocolError)."""


class CutShort(ConnectionLost):
    """A body that stopped after its first bytes arrived: the connection broke, or the file
    changed while the server sent it (a log being written: the length it declared was no
    longer the file's)."""


class BadResponse(OpenHandsError):
    """A 2xx answer whose body is not JSON or not the shape the endpoint promises."""


class NotTheAPI(BadResponse):
    """A web page where the API should answer: a redirect (3xx, never followed: a key must
    not go to another origin) or a 2xx HTML page. A login proxy stands in front of the
    server, or the URL is not the API's; trying again does not help until the user acts.
    ``location``: where a redirect led (redacted), else None."""

    def __init__(self, message: str, *, location: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.location = location


class OutcomeUnknown(ConnectionLost):
    """A call that changes something failed after its request may have reached the server.

    ``str()`` is one sentence saying exactly what is unknown ("The server may have started
    the sandbox: refresh to see."), for the UI to show as it is; ``reason`` keeps the
    technical cause (redacted). The client never repeats such a call by itself."""

    def __init__(self, message: str, *, reason: str = "", **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.reason = reason


class OutcomeUnknownTimeout(OutcomeUnknown, RequestTimeout):
    """:class:`OutcomeUnknown` because no answer came in time (also a :class:`RequestTimeout`)."""


class TooLarge(OpenHandsError):
    """A download over the size the caller allows (``limit`` bytes); nothing more was read."""

    def __init__(self, message: str, *, limit: int, size: int | None = None, **kwargs: Any):
        super().__init__(message, **kwargs)
        self.limit = limit
        self.size = size


class ResponseTooLarge(BadResponse):
    """An answer larger than the client reads (``limit`` bytes, sent or unpacked): reading
    was stopped there, and the call is not repeated (the same answer would come again).
    ``size``: the length the server announced, if it did; ``read``: the bytes received
    before stopping; ``unpacked``: the bytes they unpacked to."""

    def __init__(
        self,
        message: str,
        *,
        limit: int,
        size: int | None = None,
        read: int = 0,
        unpacked: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.limit = limit
        self.size = size
        self.read = read
        self.unpacked = unpacked


class SandboxNotRunning(Conflict):
    """The conversation's sandbox is not running (paused, starting, gone or failed), so its
    workspace cannot be read; ``sandbox_status`` says which. Raised before any request."""

    def __init__(self, message: str, *, sandbox_status: str, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.sandbox_status = sandbox_status


class NotAFile(OpenHandsError):
    """A file was asked for and the path names a folder (the server said so, in its own
    way per route: "Path is not a file", or a folder's ``index.html`` or its absence)."""


class Unsupported(OpenHandsError):
    """The server's kind has no such call (a bare agent server has no sandboxes, a
    self-hosted app server shares nothing). Raised before any request is sent for it."""


# --- higher-level failures ---------------------------------------------------------------


class PageLoopError(OpenHandsError):
    """The server handed back a page id already followed: paging would never end."""

    def __init__(self, message: str, *, page_id: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.page_id = page_id


class StartTaskFailed(OpenHandsError):
    """A conversation start task reached ERROR; ``task`` is its last state."""

    def __init__(self, message: str, *, task: AppConversationStartTask, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.task = task


class StartTaskTimeout(RequestTimeout):
    """A conversation start task did not reach READY in time; ``task`` is its last state."""

    def __init__(self, message: str, *, task: AppConversationStartTask, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.task = task


__all__ = [
    "ApiValidationError",
    "AuthError",
    "BadRequest",
    "BadResponse",
    "Conflict",
    "ConnectionLost",
    "HTTPStatusError",
    "InvalidParameter",
    "NotAFile",
    "NotFound",
    "NotTheAPI",
    "OpenHandsError",
    "OutcomeUnknown",
    "OutcomeUnknownTimeout",
    "PageLoopError",
    "RateLimited",
    "RequestTimeout",
    "ResponseTooLarge",
    "SandboxNotRunning",
    "ServerError",
    "StartTaskFailed",
    "StartTaskTimeout",
    "TooLarge",
    "Unsupported",
]


def is_retryable(exc: BaseException) -> bool:
    """Worth trying again later: the server or the network failed, not the request itself.

    The client has already spent its own bounded retries on these; a caller that keeps a
    long-running walk (a UI indexing a conversation) may wait and try again. A web page
    instead of the API (:class:`NotTheAPI`) is not: it waits for the user, not the server;
    nor is an answer too large to read (:class:`ResponseTooLarge`): it comes again as large."""
    if isinstance(exc, (NotTheAPI, ResponseTooLarge)):
        return False
    return isinstance(exc, (ServerError, RequestTimeout, ConnectionLost, BadResponse, RateLimited))
