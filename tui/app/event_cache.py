"""A cache of full events bounded by bytes, not by count.

The screen keeps compact rows for every event and full events only near where the user
looks. A count bound alone let memory follow the payloads: 1,000 events of a conversation
whose outputs are megabytes each held gigabytes. Here each event is weighed once, when it
is stored (:func:`weigh`: the interpreter's own sizes of its strings and containers, a
walk bounded in steps), and the least recently used ones are dropped while the total is
over :data:`CACHE_BYTES`. An event heavier than the whole bound is not kept at all (its
caller holds it while it is shown).
"""

from __future__ import annotations

import sys
from typing import Any

from tui.lru import LRU

#: What the cache of full events may hold (the README's "Memory" says so too).
CACHE_BYTES = 64 * 1024 * 1024
#: ...and at most this many events, however small.
CACHE_EVENTS = 2_000
#: Objects visited when weighing one event; past it the rest is not counted (a million
#: tiny list items weigh little next to one output string, which costs one step).
WEIGH_STEPS = 20_000

_ATOMS = (int, float, bool, type(None))


def weigh(value: Any, steps: int = WEIGH_STEPS) -> int:
    """About how many bytes ``value`` holds: strings, bytes, containers and pydantic models
    (their fields and extras), each counted once; linear in objects, not characters."""
    total = 0
    stack = [value]
    seen: set[int] = set()
    while stack and steps > 0:
        item = stack.pop()
        steps -= 1
        if isinstance(item, _ATOMS):
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item, 64)
        if isinstance(item, (str, bytes, bytearray)):
            continue
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(k for k in item if not isinstance(k, str) or len(k) > 64)
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        else:
            fields = getattr(item, "__dict__", None)
            if isinstance(fields, dict):
                stack.extend(fields.values())
            extra = getattr(item, "__pydantic_extra__", None)
            if isinstance(extra, dict):
                stack.append(extra)
            raw = getattr(item, "raw", None)  # a RawEvent's JSON is not a field of its own
            if raw is not None and raw is not fields:
                stack.append(raw)
    return total


class EventCache:
    """Least recently used full events by id, at most ``max_bytes`` and ``max_events``: the
    one LRU (``tui.lru``), weighed by :func:`weigh`, and an event heavier than the whole
    bound is not kept at all."""

    def __init__(self, max_bytes: int = CACHE_BYTES, max_events: int = CACHE_EVENTS) -> None:
        self.max_bytes = max_bytes
        self.max_events = max_events
        self._items: LRU[str, Any] = LRU(max_events, max_weight=max_bytes)

    @property
    def bytes(self) -> int:
        """What the events held weigh together."""
        return self._items.weight

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: str) -> bool:
        return key in self._items

    def get(self, key: str) -> Any | None:
        return self._items.get(key)

    def set(self, key: str, value: Any) -> None:
        """Keep ``value`` (replacing an earlier one), then drop the oldest while over."""
        size = weigh(value)
        if size > self.max_bytes:
            self._items.discard(key)
            return  # heavier than the whole cache: its caller holds it while it is shown
        self._items.set(key, value, size)

    def discard(self, key: str) -> None:
        self._items.discard(key)
