"""Paging and error shapes shared by every search endpoint."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .parse import AnyEvent, parse_event, parse_page_json


class EventSortOrder(str, Enum):
    TIMESTAMP = "TIMESTAMP"
    TIMESTAMP_DESC = "TIMESTAMP_DESC"


class EventPage(BaseModel):
    """A page of events; every item went through :func:`parse_event`, none is dropped."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    items: list[AnyEvent]
    next_page_id: str | None = None

    @classmethod
    def read_valid(cls, body: str | bytes) -> "EventPage | None":
        """The page, read in one pass, when every event in it is valid; else None (the
        caller decodes it and parses event by event, which keeps the invalid ones raw)."""
        fast = parse_page_json(body)
        if fast is None:
            return None
        items, next_page = fast
        # the items are validated events already: no second validation
        return cls.model_construct(items=items, next_page_id=next_page if isinstance(next_page, str) else None)

    @classmethod
    def from_json(cls, data: Any) -> "EventPage":
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            raise ValueError("an event page must be an object with an 'items' list")
        next_page = data.get("next_page_id")
        return cls(
            items=[parse_event(item) for item in data["items"]],
            next_page_id=next_page if isinstance(next_page, str) else None,
        )


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
