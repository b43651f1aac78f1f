"""Request size limits: the reference server refuses bodies it would never need.

The largest legitimate body is a message to the agent or a start request with its initial
message; a few MiB is plenty. Anything bigger is answered 413 before it is read into memory,
whether it announces its size (``content-length``) or streams in chunks.
"""

from __future__ import annotations

import json
from typing import Any

MAX_BODY = 4 * 1024 * 1024


#: how much of a refused body is still read (and dropped) before the 413 is sent
DRAIN_LIMIT = 1024 * 1024


async def _drain(receive: Any, message: dict, budget: int) -> None:
    """Read and drop the rest of a refused body, up to ``budget`` bytes: a client still
    sending then reads the 413, where closing on unread data would reset the connection
    under it (the client sees a read error instead of the answer)."""
    while message.get("more_body") and budget > 0:
        message = await receive()
        if message["type"] != "http.request":
            return
        budget -= len(message.get("body", b""))


class BodyLimitMiddleware:
    """Pure ASGI middleware: 413 for HTTP request bodies over ``limit`` bytes."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await _too_large(send, 400, "Invalid content-length")
                    return
                if declared > self.limit:
                    await _too_large(send, 413, f"Request body over {self.limit} bytes")
                    return
        seen = 0
        started = refused = False

        async def counting_receive() -> dict:
            # Over the limit: answer 413 now and tell the app the client went away, so it
            # stops reading (raising here would be turned into a 400 by the framework).
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    refused = True
                    await _drain(receive, message, DRAIN_LIMIT)
                    if not started:
                        await _too_large(send, 413, f"Request body over {self.limit} bytes")
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: dict) -> None:
            nonlocal started
            if refused:
                return  # the 413 is the answer
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, counting_receive, guarded_send)


async def _too_large(send: Any, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
