"""Paging and error shapes shared by every search endpoint."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from .jsonscan import BAD_BYTE, NotJSON, TooDeep, decode_utf8, elements, loads, members, value_end
from .parse import AnyEvent, bad_bytes_event, parse_event, parse_event_json, parse_page_json
from .wire import EventSortOrder, HTTPValidationError, ValidationErrorItem  # noqa: F401 - re-exported


class NotAnEventPage(ValueError):
    """The body is JSON, but not an object with an ``items`` list."""


def _page_id(text: str) -> str | None:
    try:
        value, _ = loads(text, 2)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _item(text: str, bad_bytes: bool) -> AnyEvent:
    if bad_bytes and BAD_BYTE.search(text):
        return bad_bytes_event(text)
    return parse_event_json(text)


def split_page(body: str | bytes) -> tuple[list[AnyEvent], str | None]:
    """Every event of a page, each read on its own (so one bad event never costs the page
    the others), and ``next_page_id``. Raises :class:`~tui.models.jsonscan.NotJSON` when
    the body is not JSON and :class:`NotAnEventPage` when it is JSON of another shape."""
    if isinstance(body, str):
        text, bad = body, False
    else:
        text, bad = decode_utf8(body)
    start = len(text) - len(text.lstrip(" \t\n\r"))
    if text[start : start + 1] != "{":
        _not_a_page(text)
    end = value_end(text, start)
    if text[end:].strip(" \t\n\r"):
        raise NotJSON(f"extra data after the page at character {end}")
    items: list[AnyEvent] | None = None
    next_page: str | None = None
    for key, first, last in members(text, start):
        if key == "items":
            if text[first] != "[":
                raise NotAnEventPage("an event page's 'items' must be a list")
            items = [_item(text[a:b], bad) for a, b in elements(text, first)]
        elif key == "next_page_id":
            next_page = _page_id(text[first:last])
    if items is None:
        raise NotAnEventPage("an event page must be an object with an 'items' list")
    return items, next_page


def _not_a_page(text: str) -> None:
    """Raise the right complaint for a body that is not an object."""
    try:
        loads(text, 64)
    except TooDeep:
        value_end(text, len(text) - len(text.lstrip(" \t\n\r")))  # NotJSON if never closed
    raise NotAnEventPage("an event page must be an object with an 'items' list")


class EventPage(BaseModel):
    """A page of events; every item went through :func:`parse_event`, none is dropped."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    items: list[AnyEvent]
    next_page_id: str | None = None

    @classmethod
    def from_bytes(cls, body: bytes | str) -> EventPage:
        """A page from the response body, whatever its events hold.

        Pages of valid events are read by pydantic in one pass; any other page is split
        event by event, each event parsed alone: bytes that are not UTF-8, nesting past the
        limit, ``1e400``/``NaN`` or a schema mismatch make that one event a RawEvent with
        its reason, the rest are typed. Raises ``ValueError`` only for the body as a whole:
        :class:`~tui.models.jsonscan.NotJSON` (not JSON, cut short) or
        :class:`NotAnEventPage` (JSON of another shape)."""
        fast = cls.read_valid(body)
        if fast is not None:
            return fast
        items, next_page = split_page(body)
        return cls.model_construct(items=items, next_page_id=next_page)

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
            raise NotAnEventPage("an event page must be an object with an 'items' list")
        next_page = data.get("next_page_id")
        return cls.model_construct(
            items=[parse_event(item) for item in data["items"]],
            next_page_id=next_page if isinstance(next_page, str) else None,
        )
