"""Shapes every endpoint shares that need no event model: the sort order and FastAPI's 422.

Apart from ``pages.py`` so that the client can be imported (and the conversations list
shown) before the ~150 event, action and observation models are built.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class EventSortOrder(StrEnum):
    TIMESTAMP = "TIMESTAMP"
    TIMESTAMP_DESC = "TIMESTAMP_DESC"


class ValidationErrorItem(BaseModel):
    """One entry of FastAPI's 422 ``detail`` list (``ValidationError`` in the spec)."""

    model_config = ConfigDict(extra="allow")

    loc: list[str | int]
    msg: str
    type: str
    input: Any = None
    ctx: dict[str, Any] | None = None


class HTTPValidationError(BaseModel):
    model_config = ConfigDict(extra="allow")

    detail: list[ValidationErrorItem] = Field(default_factory=list)

    def summary(self) -> str:
        parts = []
        for item in self.detail:
            where = ".".join(str(p) for p in item.loc)
            parts.append(f"{where}: {item.msg}")
        return "; ".join(parts) or "validation failed"
