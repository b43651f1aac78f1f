"""Why an event socket ended, and whether to connect again: close codes and handshake
answers in a few words, and the errors that end a stream for good.

Apart from the connection loop because the rules (which code is terminal, what a person
is told) are a table, not a procedure, and they are tested on their own.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Mapping

from websockets.exceptions import ConnectionClosed, InvalidStatus

from .errors import AuthError, ConnectionLost, HTTPStatusError, NotFound, OpenHandsError

#: Close codes that end the stream instead of reconnecting.
TERMINAL_CLOSE_CODES: Mapping[int, type[OpenHandsError]] = {4001: AuthError, 4004: NotFound}
#: Handshake statuses worth another attempt (proxies answer these while a sandbox starts).
RETRY_HANDSHAKE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
#: Close code a client sends when a message is over its limit.
MESSAGE_TOO_BIG = 1009
_CLOSE_WORDS = {
    1000: "closed by the server",
    1001: "the server is going away",
    1006: "the connection dropped",
    1011: "server error",
    1012: "the server is restarting",
    1013: "server busy",
}


def close_words(code: int, reason: str = "") -> str:
    """A close code in a few words (4001 and 4004 as the agent server means them)."""
    if code == 4001:
        return "the server refused the session key (4001)"
    if code == 4004:
        return "the agent server does not have this conversation (4004)"
    if code == MESSAGE_TOO_BIG:
        return "an event too large for the stream (1009)"
    words = _CLOSE_WORDS.get(code, "closed")
    reason = " ".join(reason.split())[:80]
    return f"{words} ({code}: {reason})" if reason and code == 1013 else f"{words} ({code})"


def too_big(exc: BaseException | None) -> bool:
    """This side closed the connection because a message was over its size limit."""
    sent = getattr(exc, "sent", None) if isinstance(exc, ConnectionClosed) else None
    return sent is not None and sent.code == MESSAGE_TOO_BIG


def why_not_live(exc: BaseException | None, code: int | None) -> str:
    """Why the stream is not live, in a few words for a status line."""
    if isinstance(exc, ConnectionClosed):
        if too_big(exc):
            return close_words(MESSAGE_TOO_BIG)
        received = exc.rcvd
        return close_words(received.code, received.reason) if received else close_words(1006)
    if isinstance(exc, InvalidStatus) and code is not None:
        if code in (401, 403):
            return f"the server refused the session key (HTTP {code})"
        if code == 404:
            return "the agent server does not have this conversation (HTTP 404)"
        return f"the server answered HTTP {code}"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return "the server's TLS certificate was rejected"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, OSError):
        return "cannot reach the agent server"
    return "the connection ended"


def close_text(exc: ConnectionClosed) -> str:
    """A close frame as ``code 'reason'`` for a message."""
    if exc.rcvd is None:
        return "1006, no close frame"
    reason = exc.rcvd.reason
    return f"{exc.rcvd.code} {reason!r}" if reason else str(exc.rcvd.code)


def classify(
    exc: BaseException | None, shown: str, redact: Callable[[str], str]
) -> tuple[OpenHandsError | None, str, int | None]:
    """Why a connection ended: (the terminal error, or None to retry; the reason, redacted;
    the close code or HTTP status). ``shown`` is the redacted URL."""
    if isinstance(exc, ConnectionClosed):
        code = exc.rcvd.code if exc.rcvd is not None else 1006
        text = close_text(exc)
        cls = TERMINAL_CLOSE_CODES.get(code)
        if cls is None:
            return None, f"connection closed ({redact(text)})", code
        what = "authentication failed" if cls is AuthError else "conversation not found"
        message = f"event stream {shown}: {what} ({redact(text)})"
        return (
            cls(message, status=code, url=shown, detail=exc.rcvd and exc.rcvd.reason),
            message,
            code,
        )
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        body = redact((exc.response.body or b"")[:200].decode("utf-8", "replace")).strip()
        text = f"handshake rejected: HTTP {status}" + (f" {body}" if body else "")
        if status in RETRY_HANDSHAKE_STATUSES:
            return None, text, status
        if status in (401, 403):
            cls: type[OpenHandsError] = AuthError
        elif status == 404:
            cls = NotFound
        else:
            cls = HTTPStatusError
        if 300 <= status < 400:
            text += " (redirect not followed: keys never go to another address)"
        message = f"event stream {shown}: {text}"
        return cls(message, status=status, url=shown, detail=body or None), message, status
    if isinstance(exc, ssl.SSLCertVerificationError):
        message = f"event stream {shown}: TLS certificate rejected ({exc.reason or exc})"
        return ConnectionLost(redact(message), url=shown), message, None
    if isinstance(exc, TimeoutError):
        return None, "no answer in time", None
    if exc is None:
        return None, "connection ended", None
    detail = redact(str(exc)) or "no detail"
    return None, f"{type(exc).__name__}: {detail}", None
