"""An event as a list of (field, value text) pairs, secrets masked: how an event of a kind
this client does not know is shown, searched and exported, without parsing JSON again.

The SDK adds event kinds every few releases; such an event arrives as a
:class:`~tui.models.parse.RawEvent` whose ``reason`` is "unknown kind". Its fields are
plain data, so they can be listed as they are: strings as text, other values as compact
JSON, every value cut to a length that says what was cut.
"""

from __future__ import annotations

from typing import Any

from .jsonscan import JsonNumber
from .jsontext import json_text
from .parse import AnyEvent, RawEvent, event_json
from .redact import redact

#: Characters of one field's value kept in a listing.
FIELD_CHARS = 2_000
_HUGE_INT = 10**4000


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def value_text(value: Any, limit: int = FIELD_CHARS) -> str:
    """One already-redacted JSON value as text: strings as they are, the rest as JSON."""
    if type(value) is str:
        return _cut(value, limit)
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, JsonNumber):
        return _cut(value.text, limit)
    if type(value) is int and -_HUGE_INT <= value <= _HUGE_INT:
        return _cut(str(value), limit)
    return _cut(json_text(value), limit)


def event_fields(event: AnyEvent, limit: int = FIELD_CHARS) -> list[tuple[str, str]]:
    """The event's fields in the order sent, ``kind`` left out (it heads any rendering),
    as ``(name, value text)`` with secrets masked. Data that is not an object (a raw
    event can be anything) is one pair named "value"."""
    data = redact(event_json(event))
    if not isinstance(data, dict):
        return [("value", value_text(data, limit))]
    return [(str(key), value_text(value, limit)) for key, value in data.items() if key != "kind"]


def event_text(event: AnyEvent, limit: int = FIELD_CHARS) -> str:
    """Kind, source and time on the first line, then ``name: value`` lines: the words of
    an event shown as its fields, for find and for a plain copy. Secrets masked."""
    head = " · ".join(
        part
        for part in (
            _cut(event.kind or "(no kind)", 200),
            "unknown kind" if isinstance(event, RawEvent) and event.unknown_kind else "",
            _cut(event.source or "", 200),
            _cut(event.timestamp or "", 200),
        )
        if part
    )
    lines = [head]
    lines.extend(f"{name}: {value}" for name, value in event_fields(event, limit))
    return "\n".join(lines)
