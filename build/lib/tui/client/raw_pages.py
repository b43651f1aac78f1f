"""Event pages as plain JSON objects, for readers that need fields, not models (insights).

Typing a page (pydantic, ``EventPage.from_bytes``) costs about 60 µs an event; a reader
that folds plain fields (``tui.insights``) needs none of it. ``raw_page`` decodes the body
with ``json.loads`` only: each event that is a JSON object stays a dict; anything else in
``items`` becomes a ``RawEvent`` with its reason, as in a typed page. A body ``json`` will
not take whole (bytes that are not UTF-8, ``NaN``/``Infinity``, nesting past the limit) is
read the typed way instead (event by event: one bad event never hides the others), so the
caller gets a page in every case the typed reader does. Secrets are not touched here:
whatever shows a value masks it (``tui.models.redact``), as for typed events.
"""

from __future__ import annotations

import json
from typing import Any


class NotARawPage:
    """JSON of another shape (the reason kept)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


class RawPage:
    __slots__ = ("items", "next_page_id")

    def __init__(self, items: list[Any], next_page_id: str | None) -> None:
        self.items, self.next_page_id = items, next_page_id


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def raw_page(body: bytes) -> RawPage | NotARawPage:
    """The page's events as dicts (see the module doc). Raises ``ValueError`` for a body
    that is not JSON at all (as the typed reader does)."""
    try:
        data = json.loads(body, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return _typed(body)
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        return NotARawPage("an event page must be an object with an 'items' list")
    items = data["items"]
    if not all(type(item) is dict for item in items):
        from tui.models.parse import parse_event

        items = [item if type(item) is dict else parse_event(item) for item in items]
    next_page = data.get("next_page_id")
    return RawPage(items, next_page if isinstance(next_page, str) else None)


def _typed(body: bytes) -> RawPage | NotARawPage:
    from tui.models.pages import EventPage, NotAnEventPage

    try:
        page = EventPage.from_bytes(body)
    except NotAnEventPage as exc:
        return NotARawPage(str(exc))
    return RawPage(list(page.items), page.next_page_id)
