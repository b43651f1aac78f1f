"""Event pages read in the helper process: validated and made into rows there.

The index walks every page of a conversation; validating each event through the closed
models and making its row is ~20–30 µs of GIL-holding Python an event, which on the UI's
loop competes with every key and paint. :func:`read_page` does that work in the helper
(``python -m tui.app.helper.page_worker``, run by :class:`tui.client.process_worker.ProcessWorker`)
exactly as the UI does (``EventPage.from_bytes``, ``make_row``) and sends back the rows'
fields, plus, pickled, the few events the store reads as rows arrive (``NEEDS_EVENT``).
Where it can, the helper also fetches the pages itself (``page_walker.py``) and sends
their bodies along. The UI keeps each page's body: an event whose detail is asked for is
read from it again, in-line, the same way (:class:`PageBody`). No Textual is imported here
(a test checks).
"""

from __future__ import annotations

import pickle
import sys
from typing import Any, NamedTuple

from tui.app.store.event_cache import MODEL_OVERHEAD, weigh
from tui.app.store.rows import EventRow, make_row
from tui.client.stream_state import stats_totals
from tui.models.events import ConversationStateUpdateEvent
from tui.models.pages import EventPage

MODULE = "tui.app.helper.page_worker"

#: Kinds whose events the store reads as their rows arrive (security verdicts).
NEEDS_EVENT = frozenset({"SecurityAnalysisEvent"})
#: A page up to this many bytes has its events weighed as equal shares of its body (what
#: they weigh together is the same; weighing each costs ~5 µs); a heavier one, one by one.
SHARED_WEIGHT_BYTES = 1024 * 1024


class ParsedPage(NamedTuple):
    """A page as the helper read it."""

    rows: list[tuple[Any, ...]]  # each row's fields (EventRow.state)
    needed: dict[int, bytes]  # the events the store reads at once (NEEDS_EVENT), pickled
    stats: dict[int, tuple[str, float, int]]  # what state updates say of cost (event_stats)
    sizes: list[int] | None  # each event's weigh(), for a heavy page; None: shares of the body
    next_page_id: str | None
    body: bytes = b""  # set by the UI, which kept it (not sent back)


class PageBody:
    """A page's body as the server sent it, read again (in-line, exactly as the helper
    read it) only when one of its events is asked for: what the cache keeps of the
    helper's pages, shared by the page's events (see :class:`LazyEvent`)."""

    __slots__ = ("body", "items")

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.items: list[Any] | None = None

    def event(self, index: int) -> Any:
        if self.items is None:
            self.items, self.body = EventPage.from_bytes(self.body).items, b""
        return self.items[index]


class LazyEvent:
    """One event of a :class:`PageBody`: the cache's entry until it is asked for."""

    __slots__ = ("index", "page")

    def __init__(self, page: PageBody, index: int) -> None:
        self.page = page
        self.index = index

    def event(self) -> Any:
        return self.page.event(self.index)


def row_from(state: tuple[Any, ...]) -> EventRow:
    """The row again (from :meth:`EventRow.state`), its kind and source the interned
    strings ``make_row`` gives (100,000 rows a walk, on the UI's loop)."""
    row = _from_state(state)
    row.kind = _intern(row.kind)
    row.source = _intern(row.source)
    return row


_from_state = EventRow.from_state
_intern = sys.intern


def event_stats(event: Any) -> tuple[str, float, int] | None:
    """(timestamp, cost, tokens) a state update states (its ``stats``, or those of its
    ``full_state``); None for any other event."""
    if not isinstance(event, ConversationStateUpdateEvent):
        return None
    value = event.value
    if event.key == "full_state" and isinstance(value, dict):
        value = value.get("stats")
    elif event.key != "stats":
        return None
    totals = stats_totals(value)
    if totals is None:
        return None
    cost, prompt, completion = totals
    return (event.timestamp or "", cost, prompt + completion)


def shared_sizes(body: bytes, count: int) -> list[int]:
    """Each of a light page's ``count`` events weighed as an equal share of its body."""
    return [len(body) // max(count, 1) + MODEL_OVERHEAD] * count


def read_page(body: bytes) -> ParsedPage:
    """Everything the UI makes of one page's body. Raises ValueError for a body that is
    not an event page (the caller then asks again the ordinary way, which says why)."""
    page = EventPage.from_bytes(body)
    items = page.items
    rows = []
    needed: dict[int, bytes] = {}
    stats: dict[int, tuple[str, float, int]] = {}
    for index, event in enumerate(items):
        row = make_row(event)
        rows.append(row.state())
        kind = row.kind
        if kind == "ConversationStateUpdateEvent":
            if found := event_stats(event):
                stats[index] = found
        elif kind in NEEDS_EVENT:
            needed[index] = pickle.dumps(event, pickle.HIGHEST_PROTOCOL)
    sizes = [weigh(event) for event in items] if len(body) > SHARED_WEIGHT_BYTES else None
    return ParsedPage(rows, needed, stats, sizes, page.next_page_id)


#: the first item of a request to walk a search (see :func:`handle`)
WALK = "walk"
_walker: Any = None  # the helper's PageWalker, made on the first walk


def read_kept(body: bytes) -> ParsedPage:
    """:func:`read_page` with the body kept (the helper fetched it: the UI has none)."""
    return read_page(body)._replace(body=body)


def handle(payload: Any) -> Any:
    """A request to the helper: a body the UI fetched (read it), or ``(WALK, request,
    page_id)``: that page and the pages after it already read (``page_walker.py``)."""
    if isinstance(payload, bytes):
        return read_page(payload)
    _, request, page_id = payload
    global _walker
    if _walker is None:
        from tui.app.helper.page_walker import (
            PageWalker,  # imported before the first request, in the helper
        )

        _walker = PageWalker(read_kept)
    return _walker.answer(request, page_id)


if __name__ == "__main__":
    import importlib

    from tui.client.process_worker import serve
    from tui.memory import helper_started, map_big_blocks

    # by its name, not as __main__: what it sends must unpickle in the UI
    worker = importlib.import_module(MODULE)
    importlib.import_module("tui.app.helper.page_walker")
    helper_started()
    map_big_blocks()  # a page of megabytes is given back once answered (tui/memory.py)
    serve(worker.handle)
