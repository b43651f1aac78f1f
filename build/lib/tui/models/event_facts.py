"""An event's fields read one way whether it is typed, kept raw or a plain dict of its JSON,
and whether the list folds it away.

Readers that fold many events (insights reads pages untyped, ``search_events_raw``) and
readers of typed events (the list, the board, exports) must judge an event alike: these
helpers, and :func:`tui.models.failure.failure_of` built on them, take any of the three.
Nothing here raises on odd values: every field is type-checked where it is used.
"""

from __future__ import annotations

from typing import Any

from .parse import RawEvent

#: The key of a state update that carries the whole state (sent live, not persisted).
FULL_STATE = "full_state"


def fields(obj: Any) -> dict[str, Any]:
    """The fields of a typed model (declared and extra), a dict as it is, a raw event's
    JSON object, else nothing."""
    if type(obj) is dict:
        return obj
    if isinstance(obj, dict):
        return obj
    if isinstance(obj, RawEvent):
        return obj.raw if isinstance(obj.raw, dict) else {}
    found = getattr(obj, "__dict__", None)
    if not isinstance(found, dict):
        return {}
    extra = getattr(obj, "__pydantic_extra__", None)
    return {**extra, **found} if extra else found


def is_transient(event: Any) -> bool:
    """A streaming delta or a ``full_state`` snapshot: what a live view never has, so the
    list folds it away from stored history too (an app server keeps both). One that could
    not be parsed is not folded: it is shown, with its error, like any unreadable event (a
    plain dict is judged by its fields)."""
    if isinstance(event, RawEvent):
        return False
    data = fields(event)
    kind = data.get("kind")
    if kind == "StreamingDeltaEvent":
        return True
    return kind == "ConversationStateUpdateEvent" and data.get("key") == FULL_STATE
