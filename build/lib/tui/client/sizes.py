"""How large an answer may be, and sizes in words.

Why a bound at all: httpx reads a whole body into memory and unpacks gzip without limit, so
one page of a megabyte of gzip unpacked to gigabytes, and a body that never ended grew until
the call's deadline. Why this bound: an event page holds up to a hundred events, and one
event (a tool's output, a file it read) may be as large as the live socket's 16 MiB frames;
a few such events on a page stay well under it, while nothing the app keeps needs more.
No httpx here: the index's helper process fetches pages without it (``page_fetch``).
"""

from __future__ import annotations

import zlib
from typing import Any

#: The most bytes one answer may take, sent (compressed) or unpacked, unless the client is
#: told otherwise (``max_body``).
MAX_BODY = 64 * 1024 * 1024


def size_words(count: int) -> str:
    """``2.0 GB``, ``1.5 MB``, ``812 KB``, ``90 bytes``: a size for a sentence."""
    if count >= 1024 * 1024 * 1024:
        return f"{count / (1024 * 1024 * 1024):.1f} GB"
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    if count >= 1024:
        return f"{count / 1024:.0f} KB"
    return f"{count} bytes"


def fewer_events(limit: int, announced: int | None, bound: int) -> int:
    """How many events to ask for after a page of ``limit`` events was too large to read
    (``announced``: the size the server gave, if it did; ``bound``: what the client reads):
    so many that the page is about half the bound at the size announced, else half as many,
    and always fewer than before (at least one)."""
    fit = limit * (bound // 2) // announced if announced else limit // 2
    return max(1, min(limit - 1, fit))


class Unpacker:
    """A body as sent (``Content-Encoding``: none, gzip or deflate) unpacked piece by piece,
    never to more than ``limit`` bytes in all: zlib is told how much it may give back
    (``max_length``), so even one piece of a gzip bomb costs no more than the bound.
    :attr:`over` turns true when there was more; a body that is not what its encoding says
    raises ValueError (as does an encoding not understood)."""

    def __init__(self, encoding: str, limit: int) -> None:
        encoding = encoding.strip().lower()
        self.limit = limit
        self.total = 0  # bytes given back so far
        self.over = False
        self._may_be_raw = encoding == "deflate"  # until its first bytes unpack
        self._zlib: Any = None
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj()
        elif encoding not in ("", "identity"):
            raise ValueError(f"content encoding {encoding!r} not understood")
        self._started = False

    def feed(self, data: bytes) -> bytes:
        """The next unpacked bytes of ``data``, never past the bound (:attr:`over` says
        there was more)."""
        if not data:
            return b""
        room = self.limit - self.total + 1
        if self._zlib is None:
            piece = data[:room]
        else:
            try:
                piece = self._zlib.decompress(data, room)
            except zlib.error as exc:
                if self._started or not self._may_be_raw:
                    raise ValueError(f"not the encoding it claims ({exc})") from None
                # deflate sent without its zlib header (some servers do): raw deflate
                self._may_be_raw = False
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.feed(data)
        self._started = True
        self.total += len(piece)
        if self.total > self.limit:
            self.over = True
            piece = piece[: len(piece) - (self.total - self.limit)]
            self.total = self.limit
        return piece

    def end(self) -> None:
        """Raises ValueError when a compressed body stopped before its end (an empty one,
        a 204's or a HEAD's, has nothing to end)."""
        if self._zlib is not None and self._started and not self.over and not self._zlib.eof:
            raise ValueError("a compressed body cut off before its end")


__all__ = ["MAX_BODY", "Unpacker", "fewer_events", "size_words"]
