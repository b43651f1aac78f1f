"""Query parameter types and id spellings the routes accept, as the real service does."""

from __future__ import annotations

import uuid
from enum import Enum
from typing import Annotated

from fastapi import HTTPException, Query

from tui.models import EVENT_KINDS

#: The ``kind__eq`` enum: exactly the event kind names, so anything else is FastAPI's 422.
EventKind = Enum("EventKind", {name: name for name in EVENT_KINDS}, type=str)  # type: ignore[misc]

#: ``limit``: greater than 0, at most 100, default 100 (422 outside).
Limit = Annotated[int, Query(gt=0, le=100)]


def normalize_hex_id(value: str) -> str:
    """A UUID in any accepted spelling as 32 hex digits; anything else unchanged."""
    try:
        return uuid.UUID(value).hex
    except (ValueError, AttributeError, TypeError):
        return value


def strict_hex_id(value: str) -> str:
    """Like :func:`normalize_hex_id`, but a non-UUID is a 400 (app-conversation batch get)."""
    try:
        return uuid.UUID(value).hex
    except (ValueError, AttributeError, TypeError):
        raise HTTPException(status_code=400, detail=f"Invalid UUID: {value[:80]!r}") from None
