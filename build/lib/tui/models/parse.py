"""One entry point from JSON to events. Nothing is ever dropped and nothing raises out.

An event that does not validate becomes a :class:`RawEvent` that keeps the original JSON,
whatever identifying fields it had, the full error and a short ``reason`` the UI can show
("unknown kind", "invalid UTF-8 bytes", …). A kind this client does not know (the SDK adds
some every few releases) is not an error: ``reason`` says "unknown kind" and the event is
shown as its fields (:func:`tui.models.fields.event_fields`).

Nothing here recurses without bound: JSON text is measured before it is decoded
(:mod:`tui.models.jsonscan`), and decoded data is walked level by level.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from .events import EVENT_KINDS, Event, EventBase
from .finite import any_odd_number, has_odd_number
from .jsonscan import (
    BAD_BYTE,
    JsonNumber,
    NotJSON,
    TooDeep,
    decode_utf8,
    loads,
    shallow_members,
)

_EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)
_KINDS = frozenset(EVENT_KINDS)

#: Deepest list/dict nesting an event may have and still be typed. pydantic stops serialising
#: at ~255 levels and ``json`` at the recursion limit, so a deeper event (hostile ``value`` or
#: ``raw_input``) could be validated but never dumped or shown: it is kept as a RawEvent whose
#: deeper parts are replaced by :data:`CUT_DEEP`.
MAX_DEPTH = 200
CUT_DEEP = f"‹nested deeper than {MAX_DEPTH} levels: not kept›"
#: Integers beyond this cannot be turned into text by Python (4,300 digits by default).
_HUGE_INT = 10**4000

# The short reasons of a RawEvent, for its row and its detail header.
UNKNOWN_KIND = "unknown kind"
INVALID = "does not match the schema"
BAD_JSON = "invalid JSON"
BAD_BYTES = "invalid UTF-8 bytes"
TOO_DEEP = "nested too deep"
BAD_NUMBER = "number out of range"


class RawEvent(BaseModel):
    """An event the client could not type, kept with the reason.

    ``error`` is the full explanation (validation errors one per line); ``reason`` is one of
    the short phrases above. :attr:`unknown_kind` tells a newer server's event (show it as
    its fields, marked "unknown kind") from a broken one (show it with the error)."""

    model_config = ConfigDict(frozen=True)

    raw: Any
    error: str
    reason: str = INVALID
    id: str | None = None
    kind: str | None = None
    timestamp: str | None = None
    parent_id: str | None = None
    source: str | None = None

    @property
    def unknown_kind(self) -> bool:
        return self.reason == UNKNOWN_KIND

    def __repr__(self) -> str:
        first = self.error.splitlines()[0] if self.error else ""
        return (
            f"RawEvent(id={self.id!r}, kind={self.kind!r}, reason={self.reason!r}, error={first!r})"
        )


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


def raw_event(data: Any, error: str, reason: str = INVALID) -> RawEvent:
    return RawEvent(
        raw=data,
        error=error,
        reason=reason,
        id=_field(data, "id"),
        kind=_field(data, "kind"),
        timestamp=_field(data, "timestamp"),
        parent_id=_field(data, "parent_id"),
        source=_field(data, "source"),
    )


def _problem(data: Any, limit: int = MAX_DEPTH) -> str | None:
    """What makes decoded data unfit to be typed: nesting past ``limit``, or a number a
    float cannot hold (``1e400``, ``NaN``: JSON would write them back as ``null``).
    Level by level, stopping early; exact type checks keep it cheap (~3 µs an event)."""
    level, depth = [data], 0
    while level:
        depth += 1
        if depth > limit:
            return TOO_DEEP
        deeper = []
        for node in level:
            for value in node.values() if type(node) is dict else node:
                kind = type(value)
                if kind is dict or kind is list:
                    deeper.append(value)
                elif kind is float:
                    if value - value:  # inf - inf and nan - nan are nan: true
                        return BAD_NUMBER
                elif kind is int:
                    if value > _HUGE_INT or value < -_HUGE_INT:
                        return BAD_NUMBER
                elif kind is JsonNumber:
                    return BAD_NUMBER
        level = deeper
    return None


def cut_deep(data: Any, limit: int = MAX_DEPTH) -> Any:
    """A copy of ``data`` whose lists/dicts below level ``limit`` are :data:`CUT_DEEP`;
    iterative, so it is safe on any depth and costs only what it keeps."""
    if type(data) is not dict and type(data) is not list:
        return data
    root: Any = {} if type(data) is dict else []
    stack = [(data, root, 1)]
    while stack:
        source, target, depth = stack.pop()
        items = source.items() if type(source) is dict else enumerate(source)
        for key, value in items:
            kind = type(value)
            if kind is dict or kind is list:
                if depth >= limit:
                    copy: Any = CUT_DEEP
                else:
                    copy = {} if kind is dict else []
                    stack.append((value, copy, depth + 1))
            else:
                copy = value
            if type(target) is dict:
                target[key] = copy
            else:
                target.append(copy)
    return root


def parse_event(data: Any) -> AnyEvent:
    """Validate one event object (already decoded JSON); a failure gives a RawEvent."""
    try:
        if type(data) is dict or type(data) is list:
            problem = _problem(data)
            if problem == TOO_DEEP:
                return raw_event(
                    cut_deep(data),
                    f"nested deeper than {MAX_DEPTH} levels: deeper parts are not kept",
                    TOO_DEEP,
                )
            if problem == BAD_NUMBER:
                return raw_event(
                    data,
                    "holds a number out of range (1e400, NaN, Infinity or thousands of "
                    "digits): kept as sent, not typed",
                    BAD_NUMBER,
                )
            if type(data) is dict:
                kind = data.get("kind")
                if isinstance(kind, str) and kind and kind not in _KINDS:
                    return raw_event(
                        data,
                        f"unknown event kind {kind[:200]!r} (newer than this ohtui): "
                        "shown as its fields",
                        UNKNOWN_KIND,
                    )
        return _EVENT_ADAPTER.validate_python(data)
    except ValidationError as exc:
        return raw_event(data, _error_text(exc))
    except Exception as exc:  # noqa: BLE001 - the parser must never raise
        return raw_event(data, f"{type(exc).__name__}: {exc}")


def _shallow(text: str | bytes) -> bool:
    """Can ``text`` nest deeper than MAX_DEPTH? Not with so few brackets (a C-speed count;
    brackets inside strings only make it more careful)."""
    if isinstance(text, str):
        return text.count("[") + text.count("{") <= MAX_DEPTH
    return text.count(b"[") + text.count(b"{") <= MAX_DEPTH


def parse_event_json(text: str | bytes) -> AnyEvent:
    """Decode and validate one event; bad JSON is kept as a RawEvent holding the text.

    Fast path: pydantic decodes and validates in one pass (no Python dicts in between),
    for events that are valid and shallow; anything else takes the careful path below,
    which gives the same result for valid events and the exact reason for the rest."""
    try:
        if _shallow(text):
            try:
                event = _EVENT_ADAPTER.validate_json(text)
            except ValueError:  # ValidationError included: the careful path says why
                pass
            else:
                if not has_odd_number(event):  # 1e400 read as inf: the careful path keeps it
                    return event
        return parse_text(text)
    except Exception as exc:  # noqa: BLE001 - the parser must never raise
        raw = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        return raw_event(raw, f"{type(exc).__name__}: {exc}", BAD_JSON)


def parse_text(text: str | bytes, bad_bytes: bool | None = None) -> AnyEvent:
    """The careful path: measure, decode, then :func:`parse_event`.

    ``bad_bytes`` says ``text`` was decoded with ``surrogateescape`` from bytes that were
    not all UTF-8 (None: find out here, for bytes)."""
    if not isinstance(text, str):
        text, bad_bytes = decode_utf8(text)
    if bad_bytes and BAD_BYTE.search(text):
        return bad_bytes_event(text)
    try:
        data, _ = loads(text, MAX_DEPTH)
    except TooDeep:
        members = shallow_members(text, MAX_DEPTH - 1, CUT_DEEP)
        return raw_event(
            members if members is not None else CUT_DEEP,
            f"nested deeper than {MAX_DEPTH} levels: deeper parts are not kept",
            TOO_DEEP,
        )
    except NotJSON as exc:
        return raw_event(text, f"invalid JSON: {exc}", BAD_JSON)
    return parse_event(data)


def bad_bytes_event(text: str) -> RawEvent:
    """An event whose bytes were not all UTF-8 (``text`` decoded with surrogateescape):
    shown with U+FFFD in their place, fields kept when the rest is JSON."""
    count = len(BAD_BYTE.findall(text))
    shown = BAD_BYTE.sub("\ufffd", text)
    error = f"{count:,} byte(s) that are not UTF-8 (shown as \ufffd)"
    try:
        data, _ = loads(shown, MAX_DEPTH)
    except TooDeep:
        data = shallow_members(shown, MAX_DEPTH - 1, CUT_DEEP)
        if data is None:
            data = CUT_DEEP
    except NotJSON as exc:
        data, error = shown, f"{error}; invalid JSON: {exc}"
    return raw_event(data, error, BAD_BYTES)


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
    and its deep events become RawEvents on the careful path (pinned by a test). A number
    read as inf/nan (``1e400``, ``NaN``) sends the page down the careful path too."""
    try:
        page = _PAGE_ADAPTER.validate_json(body)
    except ValueError:
        return None
    if any_odd_number(page.items):
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
