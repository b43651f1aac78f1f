"""What the conversations list can be sorted by: cost, tokens and duration (no Textual here).

Every figure comes from what the server says about the conversation: its metrics snapshot
(accumulated cost, accumulated token usage) and its own timestamps (created, last
updated). A figure the server does not give is unknown, never zero: unknown rows sort last
whichever way the list is turned, and the cells say "—".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from tui.app.format import conversation_cost, parse_time

if TYPE_CHECKING:
    from tui.models import AppConversation


class Sort(NamedTuple):
    key: str  # the column's key ("" for the server's order)
    label: str  # how the status line names it


#: The orders ``s`` steps through: the server's own (newest first) and the three figures.
SORTS = (
    Sort("", "newest first"),
    Sort("cost", "cost"),
    Sort("tokens", "tokens"),
    Sort("duration", "duration"),
)
SORT_KEYS = tuple(sort.key for sort in SORTS)


def conversation_duration(conv: AppConversation) -> float | None:
    """Seconds from the conversation's creation to its last update, as the server stamps
    them (None when either is missing or they are the wrong way round)."""
    start, end = parse_time(conv.created_at), parse_time(conv.updated_at)
    if start is None or end is None:
        return None
    seconds = (end - start).total_seconds()
    return seconds if seconds >= 0 else None


def short_duration(seconds: float | None) -> str:
    """``12s``, ``4m12s``, ``1h36m``, ``3d4h``: two units at most, for a narrow column."""
    if seconds is None:
        return "—"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h{minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours}h"


def sort_value(conv: AppConversation, key: str) -> float | None:
    """The figure ``key`` sorts ``conv`` by (None: unknown)."""
    if key == "duration":
        return conversation_duration(conv)
    cost, used = conversation_cost(conv)
    if key == "cost":
        return cost
    if key == "tokens":
        return None if used is None else float(used)
    raise ValueError(f"not a sort key: {key!r}")


def sorter(key: str, reverse: bool) -> Callable[[list[str], dict[str, AppConversation]], None]:
    """Sorts ids in place by ``key``: biggest first (smallest first when ``reverse``),
    unknown figures last either way, ties kept in the server's order."""

    def apply(ids: list[str], rows: dict[str, AppConversation]) -> None:
        values = {cid: sort_value(rows[cid], key) for cid in ids if cid in rows}
        ids.sort(
            key=lambda cid: (
                values.get(cid) is None,
                0.0 if values.get(cid) is None else (1 if reverse else -1) * values[cid],
            )
        )

    return apply


def sort_line(key: str, reverse: bool) -> str:
    """How the status line says the order: ``sorted by cost, biggest first``."""
    if not key:
        return ""
    label = next(sort.label for sort in SORTS if sort.key == key)
    if key == "duration":
        return f"sorted by {label}, {'shortest' if reverse else 'longest'} first"
    return f"sorted by {label}, {'smallest' if reverse else 'biggest'} first"
