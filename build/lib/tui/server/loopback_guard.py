"""Answer only to loopback names: the guard on every server ``ohtui`` starts for itself.

A server on 127.0.0.1 is still reachable from a web page: a site whose name the attacker
re-points at 127.0.0.1 (DNS rebinding) sends ``Host: evil.example:PORT``, and any page can
post a form or open a websocket to ``127.0.0.1:PORT`` directly (with its own ``Origin``).
So every HTTP request and websocket handshake must name the server by a loopback name
(``127.0.0.1``, ``localhost``, ``[::1]``; with the server's own port, or none), and an
``Origin``, when a browser sends one, must be the server's own origin: its scheme, a
loopback name and its port (a page on ``localhost:3000`` is another site as far as this
server is concerned, and without a key it could pause agents). Clients that are not
browsers (ohtui, curl) send no ``Origin`` and the right ``Host``, so they never notice.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a Host header value; None when it is malformed."""
    try:
        parts = urlsplit("//" + value)
        return (parts.hostname or "").lower(), parts.port
    except ValueError:
        return None


def host_allowed(value: str | None, port: int | None) -> bool:
    """A Host header naming this server by a loopback name (its port, or no port)."""
    if not value:
        return False
    split = _split_host(value)
    if split is None:
        return False
    name, given = split
    return name in LOOPBACK_NAMES and (given is None or port is None or given == port)


#: The origin scheme a browser sends for each scheme a request arrives by.
_PAGE_SCHEMES = {"http": "http", "ws": "http", "https": "https", "wss": "https"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_allowed(value: str | None, port: int | None, scheme: str = "http") -> bool:
    """No Origin (not a browser), or exactly this server's own origin: its scheme (``http``
    for a websocket on ``ws``), a loopback name and its port. A page on another port of
    the same machine is another origin (``localhost:3000`` is not this server)."""
    if value is None:
        return True
    try:
        parts = urlsplit(value)
        given = parts.port
    except ValueError:
        return False
    own = _PAGE_SCHEMES.get(scheme)
    if own is None or port is None or parts.scheme != own:
        return False
    if parts.username is not None or parts.path or parts.query or parts.fragment:
        return False  # an origin is scheme://host[:port], nothing more
    name = (parts.hostname or "").lower()
    return name in LOOPBACK_NAMES and (given or _DEFAULT_PORTS[own]) == port


def _cross_origin(scheme: str, port: int | None) -> str:
    own = f"{_PAGE_SCHEMES.get(scheme, 'http')}://127.0.0.1:{port}"
    return (
        "Cross-origin request refused: it comes from a web page whose origin is not this "
        f"server's own ({own}, or localhost / [::1] on that port); a page elsewhere, even on "
        "this machine, may not use it"
    )


class LoopbackGuardMiddleware:
    """Pure ASGI middleware: 400 for a foreign Host, 403 for a foreign Origin (HTTP); a
    refused handshake for websockets (the client sees 403)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {}
        for name, value in scope.get("headers", ()):
            if name in (b"host", b"origin"):
                headers[name] = value.decode("latin-1")
        server = scope.get("server") or (None, None)
        scheme = scope.get("scheme", "http")
        problem = None
        if not host_allowed(headers.get(b"host"), server[1]):
            problem = (400, "Invalid host header: this server answers only to loopback names")
        elif not origin_allowed(headers.get(b"origin"), server[1], scheme):
            problem = (403, _cross_origin(scheme, server[1]))
        if problem is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": problem[1]})
        else:
            await _refuse(send, *problem)


async def _refuse(send: Any, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
