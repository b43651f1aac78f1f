"""Property: however history pages, gap fills and live frames interleave, the store's rows
equal the log, in log order, nothing lost or doubled (issue 32: findings 2, 10, N2).

No server: the pieces the app chains are driven directly, in random interleavings. A
log of events with random stamps (far future, not dates, out of order) and reused ids; a
stored copy that is a prefix of it (the app server's, lagging); the base window walked from
both ends, a page at a time, as the index is; a stream (``EventDeduper``, ``gap_events``,
``StreamState``) whose connections subscribe somewhere past the stored copy, whose gap
fills read the agent's log (newest page first) as it was at some later moment, whose
sockets drop anywhere and replay earlier events at random; live events held until the
index is complete, then taken in by ``ConversationEvents.add_live``.

What tells two events reusing an id apart is their timestamp and kind
(``EventDeduper``, ``rows.row_identity``); the log is drawn so reused ids differ in stamp.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.duplicate_rows import DuplicateRow
from tui.app.store.rows import row_identity
from tui.client.stream_gap import gap_events
from tui.client.stream_items import EventDeduper
from tui.client.stream_state import StreamState
from tui.models.pages import EventPage
from tui.models.parse import parse_event

SETTINGS = settings(
    max_examples=100, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
STAMPS = st.sampled_from(
    [
        "9999-12-31T23:59:59.999999",
        "not a date",
        "",
        "2026-01-02T00:00:00",
        "2026-01-01T00:00:00.000001",
        "1970-01-01T00:00:00",
    ]
)
KINDS = ("PauseEvent", "InterruptEvent", "MessageEvent")


def _event(event_id: str, stamp: str, kind: str, n: int) -> dict[str, Any]:
    event: dict[str, Any] = {"id": event_id, "timestamp": stamp, "source": "user", "kind": kind}
    if kind == "MessageEvent":
        event["llm_message"] = {"role": "user", "content": [{"type": "text", "text": f"#{n}"}]}
    return event


@st.composite
def logs(draw: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for n in range(draw(st.integers(1, 28))):
        reuse = bool(events) and draw(st.integers(0, 3)) == 0
        event_id = draw(st.sampled_from([e["id"] for e in events])) if reuse else f"e{n}"
        stamp = draw(STAMPS)
        if any(e["id"] == event_id and e["timestamp"] == stamp for e in events):
            stamp = f"{stamp}~{n}"  # another event reusing the id: another stamp
        events.append(_event(event_id, stamp, draw(st.sampled_from(KINDS)), n))
    return events


class Harness:
    """The app's pieces, driven one step at a time (see the module doc)."""

    def __init__(self, log: list[dict[str, Any]], stored: int, page: int) -> None:
        self.log = [parse_event(e) for e in log]
        self.store = ConversationEvents(None, "c")  # type: ignore[arg-type]  # no server
        self.stored = self.log[:stored]  # the app server's copy: a prefix
        self.page = page
        self.head_at = 0  # next history position the head walk reads
        self.dedup = EventDeduper()
        self.state = StreamState()
        self.held: list[Any] = []

    # --- history: the index walks the stored copy from both ends ------------------------

    def history_head(self) -> None:
        base = self.store.base
        if base.complete:
            return
        rows = [self.store._row(e) for e in self.stored[self.head_at : self.head_at + self.page]]
        self.head_at += len(rows)
        base.add_head(rows, str(self.head_at) if self.head_at < len(self.stored) else None)

    def history_tail(self) -> None:
        base = self.store.base
        if base.complete or base.tail_page != "" or not self.stored:
            return
        newest = self.stored[::-1][: self.page]
        more = len(self.stored) > self.page
        base.add_tail([self.store._row(e) for e in newest], "t" if more else None)

    # --- the stream ----------------------------------------------------------------------

    def take(self, items: list[Any]) -> None:
        self.state.extend(items)
        self.held.extend(self.state.take_events())
        self.flush()

    def flush(self) -> None:
        if self.held and self.store.base.complete:
            held, self.held = self.held, []
            self.store.add_live(held)

    def frames(self, events: list[Any]) -> None:
        self.take([i for e in events if (i := self.dedup.accept(e)) is not None])

    def fill(self, upto: int, *, known: bool, limit: int) -> None:
        """A gap fill over the agent's log as it was when ``upto`` events were logged."""
        snapshot = self.log[:upto][::-1]

        async def read(page_id: str | None, size: int) -> EventPage:
            start = int(page_id or 0)
            end = start + size
            return EventPage(
                items=snapshot[start:end], next_page_id=str(end) if end < len(snapshot) else None
            )

        holds = self.store.holds if known else None
        found = asyncio.run(gap_events(read, self.dedup, holds, limit=limit))
        items = []
        for event, shown in found:
            item = self.dedup.accept(event)
            if item is not None and shown:
                items.append(item)
        self.take(items)


@SETTINGS
@given(log=logs(), data=st.data())
def test_rows_equal_the_log_whatever_the_interleaving(log, data) -> None:
    n = len(log)
    stored = data.draw(st.integers(0, n), label="stored")
    h = Harness(log, stored, page=data.draw(st.integers(1, 6), label="page"))
    limit = data.draw(st.integers(1, 5), label="gap page")

    def history(label: str) -> None:  # the index goes on at its own pace
        for _ in range(data.draw(st.integers(0, 2), label=label)):
            h.history_head()

    h.history_head()  # the list's first page, then the newest (before the stream opens)
    h.history_tail()
    position = data.draw(st.integers(stored, n), label="first subscription")
    first = True
    while True:
        logged = data.draw(st.integers(position, n), label="fill snapshot")
        h.fill(logged, known=first, limit=limit)  # known: the consumer passes its store
        first = False
        history("pages after the fill")
        drop = data.draw(st.integers(position, n), label="drop")
        while position < drop:  # the socket's frames, with replays of earlier events
            take = data.draw(st.integers(1, drop - position), label="batch")
            batch = h.log[position : position + take]
            if position and data.draw(st.booleans(), label="replay"):
                batch.insert(0, h.log[data.draw(st.integers(0, position - 1), label="which")])
            h.frames(batch)
            position += take
            history("pages between batches")
        if position >= n:
            break
        position = data.draw(st.integers(position, n), label="resubscription")  # the gap
    while not h.store.base.complete:
        h.history_head()
    h.flush()

    rows = h.store.base.head
    assert [(r.id, r.timestamp, r.kind) for r in rows] == [(e.id, *row_identity(e)) for e in h.log]
    reused = len(h.log) - len({e.id for e in h.log})
    assert sum(isinstance(r, DuplicateRow) for r in rows) == reused
