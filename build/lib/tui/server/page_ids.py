"""Opaque keyset page ids: what every search hands out as ``next_page_id``.

A page id is urlsafe base64 of ``[kind, *keyset parts]``; a token made for one listing (or
by someone else) is refused as a :class:`BadPageId`, which the routes turn into a 422.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any


class BadPageId(ValueError):
    """A ``page_id`` this server did not issue."""


def encode_page_id(kind: str, *parts: Any) -> str:
    """An opaque keyset token: urlsafe base64 of ``[kind, *parts]``, without padding."""
    raw = json.dumps([kind, *parts], separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_page_id(token: str, kind: str, types: tuple[type, ...]) -> tuple:
    """The keyset parts of a token made by :func:`encode_page_id` for ``kind``."""
    try:
        if len(token) > 2048:
            raise ValueError("too long")
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise BadPageId("not a page id issued by this server") from exc
    if (
        not isinstance(data, list)
        or len(data) != len(types) + 1
        or data[0] != kind
        or not all(
            isinstance(part, typ) and not isinstance(part, bool)
            for part, typ in zip(data[1:], types)
        )
    ):
        raise BadPageId("not a page id issued by this server for this listing")
    return tuple(data[1:])
