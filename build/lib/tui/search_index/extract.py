"""What of an event a person searches for, masked, bounded and cleaned before it is stored.

An event (a dict of its JSON fields, as ``search_events_raw`` reads a page; a typed event
is dumped to one) is first masked whole by the one secrets policy
(:func:`tui.models.redact.redact`, by key names, ``{"key": …, "value": …}`` pairs and free
text alike, long strings cut with the margin that masks a secret the cut runs through), so
nothing the screen would hide reaches the disk. Then its words are gathered from every
string field but those that only identify or plumb (ids, times, the tool call echoing the
action, per-call metadata): messages, thoughts, commands, outputs, file paths, tool names,
errors. Control characters become visible stand-ins (:func:`tui.text.clean`), so the
index's own highlight markers can never occur in stored text.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tui.models.redact import redact
from tui.text import clean

#: Characters kept of one string field (an output's head; the rest is not searched).
FIELD_CHARS = 2_000
#: Characters kept of one event, all its fields together.
EVENT_CHARS = 8_000
#: Fields that identify, link or plumb: never words a person looks for.
SKIPPED = frozenset(
    {
        "id",
        "timestamp",
        "source",
        "kind",
        "parent_id",
        "tool_call_id",
        "tool_call",  # the action's arguments again, as JSON text
        "llm_response_id",
        "response_id",
        "summary",  # "tool: {arguments}" again
        "security_risk",
        "type",
        "role",
        "cache_prompt",
        "image_urls",
        "metadata",
        "full_output_save_dir",
        "signature",
        "action_id",
        "event_id",
        "llm_message_id",
        "usage_to_metrics",
        "model_name",
    }
)
#: Kinds whose fields are not a run's words: the service's bookkeeping (state, counters)
#: and the system prompt, the same long text in every conversation.
QUIET_KINDS = frozenset({"ConversationStateUpdateEvent", "SystemPromptEvent"})


@dataclass(frozen=True, slots=True)
class IndexedEvent:
    """One event as the index holds it."""

    event_id: str
    kind: str
    tool: str
    source: str
    time: float | None  # seconds since the epoch (UTC), None when the event has no time
    stamp: str  # the timestamp as the server sent it (resuming asks from it)
    text: str


def as_fields(event: Any) -> dict[str, Any] | None:
    """An event as a dict of its JSON fields: a raw page's dict as it is, a typed event
    dumped, a ``RawEvent`` its original object (None when that is not an object)."""
    if isinstance(event, dict):
        return event
    raw = getattr(event, "raw", None)
    if isinstance(raw, dict):
        return raw
    dump = getattr(event, "model_dump", None)
    if dump is not None and raw is None:
        try:
            return dump(mode="json")
        except Exception:  # noqa: BLE001 - an event that cannot be dumped has no words
            return None
    return None


def event_time(stamp: Any) -> float | None:
    """The epoch seconds of an ISO timestamp (a naive one is UTC, as the services write it)."""
    if type(stamp) is not str or not stamp:
        return None
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


#: Left out before masking (masking what is never stored is wasted); ``type`` stays: the
#: masking reads it (a redacted thinking block's data is only its size).
PRUNED = SKIPPED - {"type"}


def _pruned(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` without the :data:`PRUNED` keys of its objects at any depth (iterative)."""
    root: dict[str, Any] = {}
    stack: list[tuple[Any, Any]] = [(fields, root)]
    while stack:
        source, target = stack.pop()
        if type(source) is dict:
            for key, value in source.items():
                if key in PRUNED:
                    continue
                kind = type(value)
                if kind is dict or kind is list:
                    copy: Any = {} if kind is dict else []
                    target[key] = copy
                    stack.append((value, copy))
                else:
                    target[key] = value
        else:
            for value in source:
                kind = type(value)
                if kind is dict or kind is list:
                    copy = {} if kind is dict else []
                    target.append(copy)
                    stack.append((value, copy))
                else:
                    target.append(value)
    return root


def _words(masked: Any) -> str:
    """Every searchable string of ``masked``, depth first, up to :data:`EVENT_CHARS`."""
    parts: list[str] = []
    size = 0
    stack: list[Any] = [masked]
    while stack and size < EVENT_CHARS:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            if value:
                parts.append(value)
                size += len(value) + 1
        elif kind is dict:
            stack.extend(v for k, v in reversed(value.items()) if k not in SKIPPED)
        elif kind is list:
            stack.extend(reversed(value))
    return clean("\n".join(parts)[:EVENT_CHARS])


def _short(value: Any, limit: int = 200) -> str:
    return clean(value[:limit]) if type(value) is str else ""


def extract(event: Any) -> IndexedEvent | None:
    """The event as the index holds it, secrets masked; None when it has no id."""
    fields = as_fields(event)
    if fields is None:
        fields = {"id": getattr(event, "id", None), "kind": getattr(event, "kind", None)}
    event_id = fields.get("id")
    if type(event_id) is not str or not event_id:
        return None
    kind = _short(fields.get("kind")) or "RawEvent"
    stamp = fields.get("timestamp")
    if kind in QUIET_KINDS:  # no words: nothing of it is read, nothing masked
        text, tool = "", ""
    else:
        masked = redact(_pruned(fields), cut=(FIELD_CHARS, FIELD_CHARS))
        text, tool = _words(masked), _short(masked.get("tool_name"))
    return IndexedEvent(
        event_id=event_id,
        kind=kind,
        tool=tool,
        source=_short(fields.get("source")),
        time=event_time(stamp),
        stamp=stamp if type(stamp) is str else "",
        text=text,
    )
