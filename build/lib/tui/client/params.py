"""Client-side checks of request parameters.

The servers answer a bad parameter inconsistently (422 on the app server, a 500 that drops
the connection for ``limit=101`` on the agent server, a silently empty page for an unknown
kind), so the client refuses them before sending and says why in plain words.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from tui.models.wire import EventSortOrder

from .errors import InvalidParameter

MAX_LIMIT = 100
#: ``GET /api/v1/app-conversations?ids=`` answers 400 "Maximum is 99" at 100 ids (facts §2).
MAX_CONVERSATION_BATCH = 99
MAX_BATCH = 100

_SHORT = 80


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def check_limit(limit: Any, name: str = "limit") -> int:
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InvalidParameter(
            f"{name} must be an integer from 1 to {MAX_LIMIT}, got {_show(limit)}"
        )
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidParameter(f"{name} must be from 1 to {MAX_LIMIT}, got {limit}")
    return limit


def check_sort_order(value: Any) -> str:
    if isinstance(value, EventSortOrder):
        return value.value
    if isinstance(value, str):
        try:
            return EventSortOrder(value).value
        except ValueError:
            pass
    allowed = ", ".join(m.value for m in EventSortOrder)
    raise InvalidParameter(f"sort_order must be one of {allowed}, got {_show(value)}")


def check_kind(kind: Any) -> str | None:
    if kind is None:
        return None
    from tui.models.events import EVENT_KINDS  # the event models load when first needed

    if isinstance(kind, str) and kind in EVENT_KINDS:
        return kind
    raise InvalidParameter(
        f"kind must be one of the {len(EVENT_KINDS)} event kinds (e.g. MessageEvent, ActionEvent), "
        f"got {_show(kind)}"
    )


def check_timestamp(value: Any, name: str) -> str | None:
    """A datetime (sent as ``isoformat()``) or an ISO 8601 string; sent unchanged otherwise.

    Strings are not re-formatted: the service compares timestamps as strings (facts §1a).
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        text = value.strip()
        if text:
            try:
                datetime.fromisoformat(text)
            except ValueError:
                pass
            else:
                return text
    raise InvalidParameter(
        f"{name} must be a datetime or an ISO 8601 date-time string, got {_show(value)}"
    )


def check_id(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidParameter(f"{name} must be a non-empty string, got {_show(value)}")
    return value


def check_optional_id(value: Any, name: str) -> str | None:
    return None if value is None else check_id(value, name)


def check_ids(ids: Any, name: str, maximum: int = MAX_BATCH) -> list[str]:
    """A batch of ids; a bare string is refused (it would be sent one character at a time)."""
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
        raise InvalidParameter(f"{name} must be a sequence of id strings, got {_show(ids)}")
    out = [check_id(item, f"each of {name}") for item in ids]
    if len(out) > maximum:
        raise InvalidParameter(f"at most {maximum} {name} per request, got {len(out)}")
    return out


def check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidParameter(f"{name} must be true or false, got {_show(value)}")
    return value


def check_counts(**values: Any) -> None:
    """Each is None or a positive integer (attempts, thresholds)."""
    for name, value in values.items():
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise InvalidParameter(f"{name} must be a positive integer")


def check_seconds(**values: Any) -> None:
    """Each is a non-negative number of seconds."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise InvalidParameter(f"{name} must be a non-negative number of seconds")


def check_text(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidParameter(f"{name} must be a string, got {_show(value)}")
    return value


def drop_none(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def segment(value: str) -> str:
    """Quote one path segment; ``.``/``..`` are escaped too, or URL normalisation would eat them."""
    quoted = quote(value, safe="")
    if quoted in (".", ".."):
        quoted = quoted.replace(".", "%2E")
    return quoted
