"""Reading what insights need from an event, typed or not.

Every event is read through its fields (:func:`tui.models.event_facts.fields`: a typed
event's ``__dict__``, the JSON object an event the client could not type was kept as, or
a page's plain dict), so an event that failed validation still counts with whatever it
holds, and nothing here raises on odd values: every field is type-checked where it is used.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tui.models import redact_text
from tui.models.event_facts import fields

#: Characters of a command or path kept as a label (a 1 MB heredoc is not a label).
LABEL_CHARS = 240


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def number(value: Any) -> float:
    """A finite number ≥ 0 from a JSON value, else 0 (a server's odd value is not a cost)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    value = float(value)
    return value if 0.0 <= value < float("inf") else 0.0


def count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value) if 0 <= value < 2**63 else 0


#: A stamp outside these years is no time an agent ran at: Go's zero time
#: (``0001-01-01T00:00:00Z``), a ``9999`` "never", the Unix epoch. Read as times, one of them
#: stretched the timeline, the span and every duration over millennia; such events still
#: count, but time nothing (:func:`far_off`).
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC).timestamp()
LATEST = datetime(2100, 1, 1, tzinfo=UTC).timestamp()


def far_off(moment: float) -> bool:
    """``moment`` (from :func:`seconds`) lies outside the years agents run in."""
    return not EARLIEST <= moment < LATEST


_DAYS: dict[str, float] = {}  # a timestamp's date → its midnight in seconds (few dates a log)


def seconds(timestamp: Any) -> float | None:
    """A timestamp as seconds (naive ones, the servers' local time, taken as UTC: only
    differences matter), or None when it is missing or not a timestamp.

    The servers' own form (``YYYY-MM-DDTHH:MM:SS[.ffffff]``, naive) is read by slicing,
    with the date's midnight remembered: three times faster than ``fromisoformat`` over
    100,000 events. Anything else goes through ``fromisoformat``."""
    if not isinstance(timestamp, str):
        return None
    if 19 <= len(timestamp) <= 26 and timestamp[10:11] == "T" and timestamp[13:17:3] == "::":
        day = _DAYS.get(timestamp[:10])
        rest = timestamp[19:]
        if day is not None and (not rest or (rest[0] == "." and rest[1:].isdigit())):
            try:
                return (
                    day
                    + int(timestamp[11:13]) * 3600
                    + int(timestamp[14:16]) * 60
                    + float(timestamp[17:])
                )
            except ValueError:
                pass
    if not timestamp:
        return None
    try:
        moment = datetime.fromisoformat(timestamp)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        found = moment.timestamp()
    except (ValueError, OverflowError, OSError):
        return None
    if moment.utcoffset() == timedelta(0) and len(_DAYS) < 10_000:
        midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        _DAYS.setdefault(timestamp[:10], midnight.timestamp())
    return found


def _cut(value: str) -> str:
    """A label of at most ``LABEL_CHARS``. Masked before it is cut when it is cut: a secret
    cut in two (``sk_live_51H…``) is no longer known by its shape, and its start would show."""
    value = " ".join(value[: 4 * LABEL_CHARS].split())
    if len(value) > LABEL_CHARS:
        value = redact_text(value)
        if len(value) > LABEL_CHARS:
            value = value[: LABEL_CHARS - 1] + "…"
    return value


def action_label(event: dict[str, Any]) -> tuple[str, str]:
    """``(label, failure key)`` of an action event's fields: ``$ command`` for the terminal,
    ``command path`` for file edits, else the tool and its first string argument. The key
    is what makes two failures "the same" (a command, or an edit of one file)."""
    tool = text(event.get("tool_name")) or "?"
    action = fields(event.get("action"))
    if not action:
        return f"{tool} (could not run)", f"{tool}\0unrunnable"
    command = text(action.get("command"))
    kind = text(action.get("kind")) or ""
    if kind == "TerminalAction" and command is not None:
        label = _cut("$ " + command.strip())
        return label, label
    path = text(action.get("path"))
    if command is not None and path is not None:
        label = _cut(f"{command} {path}")
        return label, label
    for name in ("command", "file_path", "path", "url", "pattern", "query", "name", "thought"):
        value = text(action.get(name))
        if value:
            label = _cut(f"{tool}: {value}")
            return label, label
    message = text(action.get("message"))
    label = _cut(f"{tool}: {message}") if message else tool
    return label, label
