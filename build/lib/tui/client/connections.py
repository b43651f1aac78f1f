"""Connection hygiene: a connection that answered a 5xx is never used again.

Why: after an unhandled error uvicorn answers ``500 text/plain`` *without*
``Connection: close`` and then closes the socket (facts §10). httpx returns the connection to
its pool as reusable; when the close arrives after the next request was written on it, that
request fails with "Server disconnected without sending a response" — for a POST the client
cannot tell whether the server acted on it. Closing such a connection ourselves, as soon as
its response has been read, sends the next request (of any kind) on a fresh connection.

The close goes through the ``network_stream`` response extension (httpcore's documented
handle on the socket); a transport without one (a mock in tests) is left as it is.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx

#: Responses at or above this status are read and then their connection is closed.
CLOSE_AFTER_STATUS = 500


class _ClosingStream(httpx.AsyncByteStream):
    """The response body, closing the socket before the connection goes back to the pool."""

    def __init__(self, inner: Any, network_stream: Any) -> None:
        self._inner = inner
        self._network_stream = network_stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            yield chunk

    async def aclose(self) -> None:
        # Closed first: the pool then finds the connection expired (its socket is gone) and
        # opens a new one; a request that raced onto it fails on write, before anything was
        # sent, which the request core repeats on a fresh connection.
        with contextlib.suppress(Exception):
            await self._network_stream.aclose()
        await self._inner.aclose()


class FreshAfterServerError(httpx.AsyncBaseTransport):
    """Wraps a transport; connections that answered 5xx are closed once read."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.closed_after_error = 0  # how many connections were dropped this way

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if response.status_code >= CLOSE_AFTER_STATUS:
            network_stream = response.extensions.get("network_stream")
            if network_stream is not None and hasattr(network_stream, "aclose"):
                self.closed_after_error += 1
                response.stream = _ClosingStream(response.stream, network_stream)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


__all__ = ["CLOSE_AFTER_STATUS", "FreshAfterServerError"]
