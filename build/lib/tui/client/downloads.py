"""Bounded, streamed downloads: a file, an archive or a patch from a server, chunk by chunk.

Why apart from :meth:`HttpCore.request`: that one reads a whole JSON body into memory, which
is right for records and wrong for a workspace file of unknown size. Here the body goes to
the caller's ``write`` a chunk at a time and stops past ``max_bytes`` (the declared length
is checked before a byte is read), so memory stays bounded whatever the server sends. Error
answers are read as far as their words need (:func:`~.bodies.read_head`) and turned into
the client's usual exceptions by the same :func:`~.status_errors.status_error`. A failure before the first
byte reached ``write`` (no connection, a 5xx) is repeated like any read; after it, it is
not (the caller's sink already holds part of the body).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from . import http as _http
from .bodies import declared_length, read_head
from .errors import ConnectionLost, CutShort, OpenHandsError, RequestTimeout, TooLarge
from .http import RETRY_STATUSES, HttpCore
from .sizes import size_words
from .status_errors import status_error

#: Seconds a whole download may take unless the caller says otherwise.
DOWNLOAD_DEADLINE = 600.0


@dataclass(frozen=True)
class Downloaded:
    """What arrived: its size in bytes and the answer's headers (lower-case names)."""

    size: int
    headers: Mapping[str, str] = field(default_factory=dict)


async def download(
    http: HttpCore,
    path: str,
    write: Callable[[bytes], Any],
    *,
    params: Any = None,
    max_bytes: int,
    what: str = "the file",
    deadline: float = DOWNLOAD_DEADLINE,
) -> Downloaded:
    """GET ``path`` and hand its body to ``write`` (sync or async) chunk by chunk.

    Raises :class:`TooLarge` before reading when the declared length is over ``max_bytes``
    and as soon as the bytes read pass it; the client's usual errors otherwise."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise ValueError("max_bytes must be a non-negative integer")
    request = http.client.build_request("GET", path, params=params, headers={"Accept": "*/*"})
    url = http.redact_url(request.url)
    ends = time.monotonic() + deadline
    attempt = 0
    while True:
        started = False
        try:
            async with asyncio.timeout(max(0.0, ends - time.monotonic())):
                response = await http.client.send(request, stream=True)
                try:
                    if not response.is_success:
                        raise await _failure(http, response, url)
                    declared = declared_length(response)
                    if declared is not None and declared > max_bytes:
                        raise _too_large(what, max_bytes, declared, url)
                    size = 0
                    async for chunk in response.aiter_bytes():
                        size += len(chunk)
                        if size > max_bytes:
                            raise _too_large(what, max_bytes, None, url)
                        started = True
                        result = write(chunk)
                        if inspect.isawaitable(result):
                            await result
                    return Downloaded(size, dict(response.headers))
                finally:
                    await response.aclose()
        except TimeoutError:
            raise RequestTimeout(
                f"GET {url}: {what} did not arrive within {deadline:g} s", method="GET", url=url
            ) from None
        except httpx.TimeoutException as exc:
            error: OpenHandsError = RequestTimeout(
                f"GET {url}: no answer in time ({type(exc).__name__})", method="GET", url=url
            )
        except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            if started:  # part of it is written: said as what the reader can do about it
                raise CutShort(
                    f"{what} came cut short: it changed while the server sent it (a file "
                    "being written, such as a log) or the connection broke; read it again",
                    method="GET",
                    url=url,
                ) from exc
            error = ConnectionLost(
                f"GET {url}: connection lost ({type(exc).__name__}: "
                f"{http.redact_text(str(exc)) or 'no detail'})",
                method="GET",
                url=url,
            )
        except OpenHandsError as exc:
            if getattr(exc, "status", None) not in RETRY_STATUSES:
                raise
            error = exc
        if started or attempt >= http.max_retries:
            raise error
        attempt += 1
        await _http._sleep(http.policy.delay(attempt))  # the tests' clock replaces it


def _too_large(what: str, limit: int, size: int | None, url: str) -> TooLarge:
    told = f"{size_words(size)}, " if size is not None else ""
    return TooLarge(
        f"{what} is too large to download here ({told}over {size_words(limit)})",
        limit=limit,
        size=size,
        method="GET",
        url=url,
    )


async def _failure(http: HttpCore, response: httpx.Response, url: str) -> OpenHandsError:
    """The client's exception for an error answer, from its first bytes (``read_head``)."""
    read = await read_head(response)
    return status_error(read, "GET", url, http.redact_text, http.redact_data)


__all__ = ["DOWNLOAD_DEADLINE", "Downloaded", "download", "size_words"]
