"""One entry point from JSON to events. Nothing is ever dropped and nothing raises out.

An event that does not validate becomes a :class:`RawEvent` that keeps the original JSON,
whatever identifying fields it had, and the validation error, so the UI can show it.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from .events import Event, EventBase

_EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)

#: Deepest list/dict nesting an event may have and still be typed. pydantic stops serialising
#: at ~255 levels and ``json`` at the recursion limit, so a deeper event (hostile ``value`` or
#: ``raw_input``) could be validated but never dumped or shown: it is kept as a RawEvent.
MAX_DEPTH = 200


class RawEvent(BaseModel):
    """An event the client could not validate, kept whole with the reason."""

    model_config = ConfigDict(frozen=True)

    raw: Any
    error: str
    id: str | None = None
    kind: str | None = None
    timestamp: str | None = None
    parent_id: str | None = None
    source: str | None = None

    def __repr__(self) -> str:
        return f"RawEvent(id={self.id!r}, kind={self.kind!r}, error={self.error.splitlines()[0]!r})"


AnyEvent = EventBase | RawEvent


def _field(data: Any, name: str) -> str | None:
    if isinstance(data, dict):
        value = data.get(name)
        if isinstance(value, str):
            return value
    return None


def _error_text(exc: ValidationError) -> str:
    lines = [f"{exc.error_count()} validation error(s) for {exc.title}"]
    for err in exc.errors(include_url=False, include_input=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(event)"
        lines.append(f"  {loc}: {err['msg']} [{err['type']}]")
    return "\n".join(lines)


def raw_event(data: Any, error: str) -> RawEvent:
    return RawEvent(
        raw=data,
        error=error,
        id=_field(data, "id"),
        kind=_field(data, "kind"),
        timestamp=_field(data, "timestamp"),
        parent_id=_field(data, "parent_id"),
        source=_field(data, "source"),
    )


def _too_deep(data: Any, limit: int = MAX_DEPTH) -> bool:
    """Does ``data`` nest lists/dicts more than ``limit`` levels? Level by level, stopping early;
    exact type checks keep it cheap (it runs for every event: ~3 µs for a typical one)."""
    level, depth = [data], 0
    while level:
        depth += 1
        if depth > limit:
            return True
        deeper = []
        for node in level:
            for value in node.values() if type(node) is dict else node:
                kind = type(value)
                if kind is dict or kind is list:
                    deeper.append(value)
        level = deeper
    return False


def parse_event(data: Any) -> AnyEvent:
    """Validate one event object (already decoded JSON); a failure gives a RawEvent."""
    try:
        if isinstance(data, (dict, list)) and _too_deep(data):
            return raw_event(
                data, f"nested deeper than {MAX_DEPTH} levels: not shown as a typed event"
            )
        return _EVENT_ADAPTER.validate_python(data)
    except ValidationError as exc:
        return raw_event(data, _error_text(exc))
    except Exception as exc:  # noqa: BLE001 - the parser must never raise
        return raw_event(data, f"{type(exc).__name__}: {exc}")


def _shallow(text: str | bytes) -> bool:
    """Can ``text`` nest deeper than MAX_DEPTH? Not with so few brackets (a C-speed count;
    brackets inside strings only make it more careful)."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{") <= MAX_DEPTH
    return text.count("[") + text.count("{") <= MAX_DEPTH


def parse_event_json(text: str | bytes) -> AnyEvent:
    """Decode and validate one event; bad JSON is kept as a RawEvent holding the text.

    Fast path: pydantic decodes and validates in one pass (no Python dicts in between),
    for events that are valid and shallow; anything else takes the careful path below,
    which gives the same result for valid events and the exact reason for the rest."""
    if _shallow(text):
        try:
            return _EVENT_ADAPTER.validate_json(text)
        except ValueError:  # ValidationError included: the careful path says why
            pass
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        # RecursionError: ``json`` gives up on ~1,000 nested brackets; that is bad input too
        raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        return raw_event(raw, f"invalid JSON: {type(exc).__name__}: {exc}")
    return parse_event(data)


class _Page(BaseModel):
    """An event page as the fast path reads it: every item a valid, typed event."""

    items: list[Event]  # type: ignore[valid-type]
    next_page_id: Any = None


_PAGE_ADAPTER: TypeAdapter[_Page] = TypeAdapter(_Page)


def parse_page_json(body: str | bytes) -> tuple[list[AnyEvent], Any] | None:
    """The items and ``next_page_id`` of a page whose every event is valid, decoded and
    validated in one pass by pydantic (about twice as fast as ``json`` + per-event checks);
    None when anything in it is not, and the caller parses it event by event.

    Depth: pydantic's JSON parser refuses nesting past ~200 levels from the page's root,
    so an event here is at most ~198 deep, within MAX_DEPTH; a deeper page fails here
    and its deep events become RawEvents on the careful path (pinned by a test)."""
    try:
        page = _PAGE_ADAPTER.validate_json(body)
    except ValueError:
        return None
    return page.items, page.next_page_id


def event_json(event: AnyEvent) -> Any:
    """The JSON form of an event: the original object for raw events, a null-free dump otherwise."""
    if isinstance(event, RawEvent):
        return event.raw
    try:
        return event.model_dump(mode="json", exclude_none=True)
    except ValueError:
        # JSON mode can't encode a lone surrogate in a dict key (the valid JSON text "\ud800"
        # decodes to one); the python-mode dump holds the same data and json.dumps copes.
        return event.model_dump(mode="python", exclude_none=True)
