"""Read-only serving: a server over local conversation folders changes nothing.

Every HTTP request that could change something (anything but GET, HEAD, OPTIONS) is answered
405 with a sentence saying why, before any route sees it, so no mutating route has to know
about folders. Messages sent over the websocket are refused in ``routes_live``.
"""

from __future__ import annotations

import json
from typing import Any

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
REFUSAL = (
    "This server is read-only: it serves local conversation folders, which are never written to."
)


class ReadOnlyMiddleware:
    """Pure ASGI middleware: 405 for every request that is not a read."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method", "GET").upper() in READ_METHODS:
            await self.app(scope, receive, send)
            return
        body = json.dumps({"detail": REFUSAL}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 405,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"allow", b"GET, HEAD, OPTIONS"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
