"""A frame over the live stream's size limit, as a placeholder event read from its ends.

Why: one huge event (a tool output of hundreds of megabytes) must not make the stream
reconnect forever, nor be parsed whole. The next connection reads such frames up to a
larger limit, and each becomes a :class:`~tui.models.parse.RawEvent` whose ``reason`` is
:data:`OVERSIZE`, carrying only its id, kind, time and size (read from the frame's first
and last characters); the app fetches the event by id over REST when it is opened.
"""

from __future__ import annotations

import json
import re

from tui.models.parse import AnyEvent, RawEvent, raw_event

MIB = 1024 * 1024
#: The reason of a placeholder for a frame over the stream's size limit.
OVERSIZE = "too large for the live stream"
#: Characters read at each end of an oversize frame for its id, kind and time.
_ENDS = 65_536
_WANTED = frozenset({"id", "timestamp", "parent_id", "source", "kind"})
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_STRING_VALUE = re.compile(r'\s*:\s*("(?:[^"\\]|\\.){0,400}")')
_PARENT = re.compile(r'"parent_id"\s*:\s*("(?:[^"\\]|\\.){0,400}")')
_LAST_KIND = re.compile(r'"kind"\s*:\s*("(?:[^"\\]|\\.){0,400}")\s*}\s*$')


def _top_level_strings(head: str) -> dict[str, str]:
    """The id, timestamp, parent_id, source and kind members of the outermost object in
    ``head`` (a frame's first characters), where they are strings. Linear in ``head``."""
    found: dict[str, str] = {}
    depth, pos = 0, 0
    while len(found) < len(_WANTED):
        token = _TOKEN.search(head, pos)
        if token is None:
            break
        text, pos = token.group(), token.end()
        if text in ("{", "["):
            depth += 1
            continue
        if text in ("}", "]"):
            depth -= 1
            continue
        if depth != 1:
            continue
        value = _STRING_VALUE.match(head, pos)
        if value is None:
            continue  # a value, or a key whose value is not a string
        key = text[1:-1]
        if key in _WANTED and key not in found:
            try:
                found[key] = json.loads(value.group(1))
            except ValueError:
                pass
        pos = value.end()
    return found


def oversize_event(frame: str | bytes, limit: int) -> RawEvent:
    """A placeholder for a frame over ``limit``: what its ends say of it, never the rest."""
    head = frame[:_ENDS]
    tail = frame[-_ENDS:]
    if isinstance(head, bytes):
        head = head.decode("utf-8", "replace")
        tail = tail.decode("utf-8", "replace")
    fields = _top_level_strings(head)
    if "kind" not in fields:
        last = _LAST_KIND.search(tail)
        if last is not None:
            try:
                fields["kind"] = json.loads(last.group(1))
            except ValueError:
                pass
    if "parent_id" not in fields:
        parents = _PARENT.findall(tail)
        if parents:
            try:
                fields["parent_id"] = json.loads(parents[-1])
            except ValueError:
                pass
    error = (
        f"a frame of {mib(len(frame))} is over the live stream's {mib(limit)} limit: "
        "not read here, fetched by id when opened"
    )
    return raw_event({**fields, "size": len(frame)}, error, OVERSIZE)


def mib(size: int) -> str:
    text = f"{size / MIB:.1f}".removesuffix(".0")
    return f"{text} MiB"


def is_oversize(event: AnyEvent) -> bool:
    """A placeholder for a frame the stream did not read (see :func:`oversize_event`)."""
    return isinstance(event, RawEvent) and event.reason == OVERSIZE
