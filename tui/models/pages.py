"""Paging and error shapes shared by every search endpoint."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from .parse import AnyEvent, parse_event, parse_page_json
from .wire import EventSortOrder, HTTPValidationError, ValidationErrorItem  # noqa: F401 - re-exported


class EventPage(BaseModel):
    """A page of events; every item went through :func:`parse_event`, none is dropped."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    items: list[AnyEvent]
    next_page_id: str | None = None

    @classmethod
    def read_valid(cls, body: str | bytes) -> EventPage | None:
        """The page, read in one pass, when every event in it is valid; else None (the
        caller decodes it and parses event by event, which keeps the invalid ones raw)."""
        fast = parse_page_json(body)
        if fast is None:
            return None
        items, next_page = fast
        # the items are validated events already: no second validation
        return cls.model_construct(
            items=items, next_page_id=next_page if isinstance(next_page, str) else None
        )

    @classmethod
    def from_json(cls, data: Any) -> EventPage:
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            raise ValueError("an event page must be an object with an 'items' list")  # noqa: TRY004
        next_page = data.get("next_page_id")
        return cls(
            items=[parse_event(item) for item in data["items"]],
            next_page_id=next_page if isinstance(next_page, str) else None,
        )
