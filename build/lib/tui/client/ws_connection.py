"""One websocket connection's safety parts: no redirect followed, keys masked in
websockets' own log, a socket closed (or aborted) whatever happens, the URL checked.

Apart from the reconnect loop because each is a small rule about keys or sockets that the
loop must never get wrong, and reads better on its own.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.protocol import State

from tui.models.redact import mask_url

from .errors import InvalidParameter

MASK = "****"


class RedactingLogger(logging.LoggerAdapter):  # type: ignore[type-arg]
    """websockets logs request lines, headers and frame text at DEBUG: mask the key."""

    def __init__(self, logger: logging.Logger, secrets: list[str]) -> None:
        super().__init__(logger, {})
        self.secrets = secrets

    def log(self, level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
        if not self.isEnabledFor(level):
            return
        try:
            text = str(msg) % args if args else str(msg)
        except (TypeError, ValueError):
            text = " ".join([str(msg), *map(str, args)])
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        kwargs.pop("extra", None)
        self.logger.log(level, "%s", mask_url(text), **kwargs)


class NoRedirectConnect(connect):
    """``connect`` that follows no redirect: a key must never travel to another address."""

    def process_redirect(self, exc: Exception) -> Exception | str:
        return exc


async def dispose(ws: ClientConnection) -> None:
    """Close ``ws`` (at once when it is already closed); abort it if closing is cancelled."""
    if ws.state is State.CLOSED:
        return
    try:
        await ws.close()
    except BaseException:
        ws.transport.abort()
        raise


def check_ws_url(url: Any) -> str:
    """``url`` as the ``ws(s)://`` URL of an event socket, or :class:`InvalidParameter`."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidParameter("the event stream needs a ws(s):// URL")
    try:
        parsed = httpx.URL(url.strip())
    except (TypeError, httpx.InvalidURL):
        raise InvalidParameter("the event stream URL is not a valid URL") from None
    scheme = {"http": "ws", "https": "wss"}.get(parsed.scheme, parsed.scheme)
    if scheme not in ("ws", "wss") or not parsed.host:
        raise InvalidParameter(
            f"the event stream URL must be ws(s):// or http(s)://, got {mask_url(url)!r}"
        )
    if parsed.query or parsed.userinfo:
        raise InvalidParameter(
            "pass the event stream URL without a query string or credentials "
            "(the stream adds resend_mode; the key goes in session_api_key)"
        )
    return str(parsed.copy_with(scheme=scheme, fragment=None))
