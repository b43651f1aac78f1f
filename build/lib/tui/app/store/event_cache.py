"""A cache of full events bounded by bytes, not by count, kept mostly as JSON text.

The screen keeps compact rows for every event and full events only near where the user
looks. A count bound alone let memory follow the payloads: 1,000 events of a conversation
whose outputs are megabytes each held gigabytes. Here each event is weighed once, when it
is stored, and the least recently used ones are dropped while the total is over
:data:`CACHE_BYTES`. An event heavier than the whole bound is not kept at all (its caller
holds it while it is shown).

A parsed event holds several times its JSON (a 640-byte event is ~3.4 kB of pydantic
objects), so the cache keeps each event as its JSON text (the bytes it weighs, which
pydantic writes in Rust while weighing it anyway) and parses it again on the first
:meth:`EventCache.get` (~20 µs). Only the few used last stay parsed (:data:`HOT_EVENTS`:
the detail, its pair, copies of what is on screen). Events whose JSON would not read back
as the same event (a raw event, kept with the text it came with; a lone surrogate pydantic
cannot write) are kept parsed, weighed by walking their objects. The weights of heavy events
(:data:`HEAVY_EVENT`) are remembered after they are let go, a few ints: fetches by id size
their requests by them (``full_events.py``).
"""

from __future__ import annotations

import sys
from typing import Any

from tui.lru import LRU
from tui.models import RawEvent
from tui.models.parse import parse_event_json

#: What the cache of full events may hold (the README's "Memory" says so too).
CACHE_BYTES = 64 * 1024 * 1024
#: ...and at most this many events, however small.
CACHE_EVENTS = 2_000
#: Events kept parsed besides their text: the ones used last (about a screenful).
HOT_EVENTS = 100
#: ...weighing at most this share of the bound (the rest is for the texts).
HOT_SHARE = 8
#: An event weighing at least this is remembered as heavy (its weight) after it is let go...
HEAVY_EVENT = 1024 * 1024
#: ...for this many such events: what the fetches by id size their requests by.
HEAVY_KEPT = 10_000
#: Objects visited when weighing one event; past it the rest is not counted (a million
#: tiny list items weigh little next to one output string, which costs one step).
WEIGH_STEPS = 20_000

_ATOMS = (int, float, bool, type(None))


#: What a parsed event holds beyond its JSON's bytes (objects, their headers), about.
MODEL_OVERHEAD = 512
#: What one kept text costs beyond its bytes: the bytes object's header, the cache's entry
#: (measured with tracemalloc: ~200 bytes).
TEXT_OVERHEAD = 200
#: What a parsed event holds for each byte of its JSON, about (measured: 3-6× for events of
#: a few hundred bytes, ~1× for one big output): how the few kept parsed are weighed.
PARSED_FACTOR = 4


def weigh(value: Any, steps: int = WEIGH_STEPS) -> int:
    """About how many bytes ``value`` holds: strings, bytes, containers and pydantic models
    (their fields and extras), each counted once; linear in objects, not characters.

    A parsed event is weighed by its JSON, which pydantic writes in Rust (~5 µs; the walk
    below takes ~40 µs an event, and every event of a page and of the live stream is
    weighed); anything else, or an event it cannot write, by the walk."""
    return weigh_json(value, steps)[0]


def weigh_json(value: Any, steps: int = WEIGH_STEPS) -> tuple[int, bytes | None]:
    """:func:`weigh`, and the JSON text it weighed a typed event by (None: not a typed
    event, or one pydantic cannot write): what the cache keeps of it."""
    text = _json_text(value)
    if text is not None:
        return len(text) + MODEL_OVERHEAD, text
    return _walk(value, steps), None


def _typed(value: Any) -> bool:
    """A typed event, whose JSON pydantic can write (a RawEvent's is not among its fields)."""
    return not isinstance(value, RawEvent) and hasattr(type(value), "__pydantic_serializer__")


def _json_text(value: Any) -> bytes | None:
    if not _typed(value):
        return None
    serializer = type(value).__pydantic_serializer__
    try:
        # only what the event was given (``exclude_unset``): what it was read from, so it
        # reads back the same (a null written for an absent timestamp would not validate)
        return serializer.to_json(value, warnings=False, exclude_unset=True)
    except Exception:  # noqa: BLE001 - e.g. a lone surrogate: the walk weighs it
        return None


class _Sent(bytes):
    """A text kept as it came in (:meth:`EventCache.keep_text`): it may well read as a
    raw event, as it did on the page."""

    __slots__ = ()


def _walk(value: Any, steps: int) -> int:
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
    """Least recently used full events by id, at most ``max_bytes`` and ``max_events``:
    each event's JSON text (or, for the few that have none, the event), plus the
    :data:`HOT_EVENTS` used last kept parsed; the two together within ``max_bytes``. An
    event heavier than the whole bound is not kept at all."""

    def __init__(self, max_bytes: int = CACHE_BYTES, max_events: int = CACHE_EVENTS) -> None:
        self.max_bytes = max_bytes
        self.max_events = max_events
        hot_bytes = max_bytes // HOT_SHARE
        #: key → JSON text (bytes) or, for an event without one, the event itself
        self._items: LRU[str, Any] = LRU(max_events, max_weight=max_bytes - hot_bytes)
        #: key → the parsed event, for the few used last
        self._hot: LRU[str, Any] = LRU(min(HOT_EVENTS, max_events), max_weight=hot_bytes)
        #: key → the weight of a heavy event (HEAVY_EVENT), held or not: a few ints
        self._heavy: LRU[str, int] = LRU(HEAVY_KEPT)

    @property
    def bytes(self) -> int:
        """What the events held weigh together (texts, and the ones kept parsed)."""
        return self._items.weight + self._hot.weight

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: str) -> bool:
        return key in self._items

    def weight_of(self, key: str) -> int | None:
        """What ``key``'s event weighs, if it is held or was heavy (:data:`HEAVY_EVENT`);
        None: not known (not held, and light if it was ever seen)."""
        held = self._items.weight_of(key)
        return held if held is not None else self._heavy.get(key)

    def get(self, key: str) -> Any | None:
        found = self._hot.get(key)
        if found is not None:
            if key in self._items:
                self._items.get(key)  # used: its text is the last to go too
                return found
            self._hot.discard(key)  # its text went: so does it
        found = self._items.get(key)
        if isinstance(found, bytes):
            text = found
            found = parse_event_json(text)
            if isinstance(found, RawEvent) and type(text) is bytes:
                # written from a typed event, it must read back as one; should it not, it
                # is not shown as something it was not: the caller fetches it again
                self._items.discard(key)
                return None
            self._keep_parsed(key, found, len(text))
        return found

    def set(self, key: str, value: Any, size: int | None = None, text: bytes | None = None) -> None:
        """Keep ``value`` (replacing an earlier one), then drop the oldest while over.

        ``size`` and ``text``: its :func:`weigh_json`, when the caller has them. With neither,
        a typed event is written as its JSON text here. With a size alone it is kept as it
        is: a reference into a page's body (``page_worker.LazyEvent``, weighed by its share
        of the body), or a typed event (weighed as parsed, :data:`PARSED_FACTOR` times the
        size). A live event's frame is kept with :meth:`keep_text`."""
        self._hot.discard(key)
        if size is None and text is None:
            size, text = weigh_json(value)
        if text is not None:
            self._keep_text(key, text)  # parsed again when asked for (then kept parsed a while)
            return
        if size is None:
            size = _walk(value, WEIGH_STEPS)
        elif _typed(value):
            size *= PARSED_FACTOR  # a typed event weighed by its JSON: several times that
        self._hold(key, value, size)

    def keep_text(self, key: str, text: bytes | str) -> bool:
        """Keep an event as the JSON text it came in (parsed on its first :meth:`get`, as
        a page's events are: ``tui.models.parse.parse_event_json``). False, keeping
        nothing, for a text UTF-8 cannot hold (a lone surrogate): keep the event then."""
        if type(text) is str:
            try:
                text = text.encode()
            except UnicodeEncodeError:
                return False
        self._hot.discard(key)
        self._keep_text(key, _Sent(text))
        return True

    def discard(self, key: str) -> None:
        self._items.discard(key)
        self._hot.discard(key)

    def _keep_text(self, key: str, text: bytes) -> None:
        self._hold(key, text, len(text) + TEXT_OVERHEAD)

    def _hold(self, key: str, value: Any, weight: int) -> None:
        if weight >= HEAVY_EVENT:
            self._heavy.set(key, weight)
        if weight > self._items.max_weight:
            self._items.discard(key)
            return  # heavier than the whole cache: its caller holds it while it is shown
        self._items.set(key, value, weight)

    def _keep_parsed(self, key: str, event: Any, json_size: int) -> None:
        size = PARSED_FACTOR * json_size + MODEL_OVERHEAD
        if size <= self._hot.max_weight:  # a huge event is parsed again when asked for
            self._hot.set(key, event, size)
