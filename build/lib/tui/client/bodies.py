"""Reading an answer's body within a bound, counted both as sent and as unpacked.

Why: httpx's ordinary ``send`` reads a whole body into memory and unpacks gzip without a
limit (see :mod:`.sizes`). Here the body is streamed: a declared length over the bound is
refused before a byte is read, and reading stops as soon as either the bytes received
(compressed) or the bytes they unpack to pass it, so memory stays near the bound whatever
the server sends (a gzip bomb, a body that never ends). An error answer is read only as far
as its words need (:data:`ERROR_BODY`).
"""

from __future__ import annotations

import httpx

from .errors import BadResponse, ResponseTooLarge
from .sizes import Unpacker, size_words

#: Bytes of an error answer read for its words.
ERROR_BODY = 64 * 1024


def declared_length(response: httpx.Response) -> int | None:
    text = response.headers.get("content-length", "")
    return int(text) if text.isdigit() else None


async def read_bounded(
    response: httpx.Response, limit: int, method: str, url: str
) -> httpx.Response:
    """The answer read in full, as an ordinary (non-streamed) response; raises
    :class:`ResponseTooLarge` past ``limit`` bytes sent or unpacked."""
    declared = declared_length(response)
    if declared is not None and declared > limit:
        raise too_large(method, url, limit, declared=declared)
    held = _held(response)
    if held is not None:
        if len(held) > limit:
            raise too_large(method, url, limit, read=len(held), unpacked=len(held))
        return as_read(response, held)
    unpacker = _unpacker(response, limit, method, url)
    parts: list[bytes] = []
    read = 0
    async for raw in response.aiter_raw():
        read += len(raw)
        if read > limit:
            raise too_large(method, url, limit, read=read, unpacked=unpacker.total)
        parts.append(_feed(unpacker, raw, method, url))
        if unpacker.over:
            raise too_large(method, url, limit, read=read, unpacked=unpacker.total)
    _feed(unpacker, None, method, url)
    return as_read(response, b"".join(parts))


async def read_head(response: httpx.Response, size: int = ERROR_BODY) -> httpx.Response:
    """The answer with only its first ``size`` unpacked bytes: an error's words (a body
    that cannot be unpacked is left out)."""
    held = _held(response)
    if held is not None:
        return as_read(response, held[:size])
    body = bytearray()
    try:
        unpacker = Unpacker(response.headers.get("content-encoding", ""), size)
        async for raw in response.aiter_raw():
            body += unpacker.feed(raw)
            if unpacker.over or len(body) >= size:
                break
    except ValueError:
        body.clear()
    return as_read(response, bytes(body))


def _held(response: httpx.Response) -> bytes | None:
    """The body of an answer read already (a mock transport's, given more than once)."""
    try:
        return response.content
    except httpx.ResponseNotRead:
        return None


def _unpacker(response: httpx.Response, limit: int, method: str, url: str) -> Unpacker:
    try:
        return Unpacker(response.headers.get("content-encoding", ""), limit)
    except ValueError as exc:
        raise _undecodable(exc, method, url) from None


def _feed(unpacker: Unpacker, raw: bytes | None, method: str, url: str) -> bytes:
    """``unpacker.feed(raw)``, or its end when ``raw`` is None; BadResponse if undecodable."""
    try:
        if raw is None:
            unpacker.end()
            return b""
        return unpacker.feed(raw)
    except ValueError as exc:
        raise _undecodable(exc, method, url) from None


def _undecodable(exc: ValueError, method: str, url: str) -> BadResponse:
    return BadResponse(f"{method} {url}: undecodable response body ({exc})", method=method, url=url)


def as_read(response: httpx.Response, body: bytes) -> httpx.Response:
    """A response holding ``body``, already unpacked: the headers that described it as sent
    (its encoding, its length) no longer apply and are left out."""
    headers = [
        (name, value)
        for name, value in response.headers.multi_items()
        if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
    ]
    return httpx.Response(
        response.status_code, headers=headers, content=body, request=response.request
    )


def too_large(
    method: str,
    url: str,
    limit: int,
    *,
    declared: int | None = None,
    read: int = 0,
    unpacked: int = 0,
) -> ResponseTooLarge:
    """The words for an answer over the bound: how large it is, as far as known, and the bound."""
    if declared is not None:
        told = f"the server announced {size_words(declared)}"
    elif read > limit:
        told = f"more than {size_words(limit)} sent"
    else:  # a small body that unpacks to a large one (a gzip bomb)
        told = f"{size_words(read)} sent compressed, unpacking to more than {size_words(limit)}"
    return ResponseTooLarge(
        f"{method} {url}: the answer is too large to read ({told}; "
        f"the client reads at most {size_words(limit)})",
        limit=limit,
        size=declared,
        read=read,
        unpacked=unpacked,
        method=method,
        url=url,
    )


__all__ = ["ERROR_BODY", "as_read", "declared_length", "read_bounded", "read_head", "too_large"]
