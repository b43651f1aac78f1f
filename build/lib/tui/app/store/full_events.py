"""Full events for rows: from the store's cache of full events, else fetched by id; and
how an event is taken in (its row made, its stats and action noted, itself cached).

Part of :class:`~tui.app.store.conversation_events.ConversationEvents` (which provides what is
declared here). The cache holds parsed events, or, for pages the helper process read
(``page_worker.py``), a reference into the page's body that is read when first asked for.
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from tui.app.helper.page_worker import LazyEvent, event_stats, row_from
from tui.app.store.duplicate_rows import row_key
from tui.app.store.event_cache import weigh
from tui.app.store.rows import EventRow, make_row
from tui.client.errors import ResponseTooLarge
from tui.client.stream import is_oversize
from tui.models.events import ConversationStateUpdateEvent

if TYPE_CHECKING:
    from tui.app.store.action_index import ActionIndex
    from tui.app.store.event_cache import EventCache
    from tui.client import OpenHandsClient
    from tui.models import AnyEvent

#: Events asked for by id in one request (at most).
BY_ID = 100
#: What :meth:`FullEvents.events_for` gathers in one call, about (an export's events: a
#: hundred usual ones weigh far less, outputs of megabytes come one or two at a time).
FETCH_BYTES = 16 * 1024 * 1024


class FullEvents:
    """The full events of rows (see the module docstring)."""

    client: OpenHandsClient
    conversation_id: str
    shared: bool
    _cache: EventCache
    #: events asked for by id per request (fewer after heavy ones: :meth:`_fit_by_id`)
    _by_id: int = BY_ID
    actions: ActionIndex
    #: (timestamp, cost, tokens) of the newest stats among the loaded events
    newest_stats: tuple[str, float, int] | None

    if TYPE_CHECKING:  # provided by PatientLoads and ConversationEvents

        async def _tracked(self, what: str, load: Any) -> Any: ...
        async def _patiently(self, load: Any, **options: Any) -> Any: ...

    def cached(self, key: str | None) -> AnyEvent | None:
        """A full event by id (or a duplicate row's key: ``duplicate_rows.row_key``)."""
        if not key:
            return None
        found = self._cache.get(key)
        if isinstance(found, LazyEvent):  # a page the helper read: read here when asked for
            found = found.event()
            self._cache.set(key, found)
        return found

    async def event(self, row: EventRow) -> AnyEvent | None:
        """The full event for a row: from the cache, else fetched by id (a duplicate that
        left the cache comes back as the server's copy for that id)."""
        found = self.cached(row_key(row))
        if found is not None or row.id is None or self.shared:
            return found
        events = await self._tracked(
            "the selected event", lambda: self.client.get_events(self.conversation_id, [row.id])
        )
        event = events[0] if events else None
        if event is not None:
            self._remember(event)
        return event

    async def events_for(
        self, rows: list[EventRow], max_bytes: int = FETCH_BYTES
    ) -> tuple[list[AnyEvent], int]:
        """The full events of the first rows of ``rows``, in order, and how many rows that
        is: about ``max_bytes`` of them (weighed as their JSON; at least one row), so an
        export of outputs of megabytes holds a few at a time. Cached ones as they are; the
        rest fetched by id through outages, up to a hundred a request, fewer where heavy
        events are expected (the cache remembers which were) or came, and halved while an
        answer is too large to read (rows whose event is gone are left out)."""
        fetch = self.client.get_shared_events if self.shared else self.client.get_events
        out: list[AnyEvent] = []
        done = weight = 0
        while done < len(rows) and weight < max_bytes:
            end, missing = self._next_rows(rows, done, max_bytes - weight)
            try:
                batch = (
                    await self._patiently(
                        lambda ids=missing: fetch(self.conversation_id, ids),
                        what=f"events {done + 1:,}–{end:,} of {len(rows):,} by id",
                    )
                    if missing
                    else []
                )
            except ResponseTooLarge:
                if len(missing) <= 1:
                    raise  # one event larger than any answer read: said as it is
                self._by_id = len(missing) // 2
                continue
            found = {e.id: e for e in batch if e is not None and e.id is not None}
            del batch
            fetched = weighed = 0
            for at in range(done, end):
                row = rows[at]
                key = row_key(row)
                event = self.cached(key) if key in self._cache else None
                size = self._cache.weight_of(key) if event is not None and key else None
                if event is None and row.id is not None:
                    event = found.get(row.id)
                if event is None:
                    continue
                out.append(event)
                if size is None:
                    size = weigh(event)
                    fetched, weighed = fetched + size, weighed + 1
                weight += size
                if weight >= max_bytes:  # the rest are fetched again by the next call
                    end = at + 1
                    break
            self._fit_by_id(fetched, weighed)
            done = end
        return out, done

    def _next_rows(self, rows: list[EventRow], start: int, budget: int) -> tuple[int, list[str]]:
        """Where the next rows from ``start`` end, and the ids among them to fetch: at most
        :attr:`_by_id` of those, and rows whose events are expected to weigh ``budget``
        (the cache's weights; at least one row)."""
        end, missing, expected = start, [], 0
        while end < len(rows) and len(missing) < self._by_id:
            row = rows[end]
            key = row_key(row)
            size = (self._cache.weight_of(key) or 0) if key else 0
            if end > start and expected + size > budget:
                break
            if row.id is not None and key not in self._cache:
                missing.append(row.id)
            expected += size
            end += 1
        return end, missing

    def _fit_by_id(self, weight: int, count: int) -> None:
        """Size the next requests by id to what ``count`` events just fetched weighed
        (about half of :data:`FETCH_BYTES` a request)."""
        if count:
            each = max(weight // count, 1)
            self._by_id = max(1, min(BY_ID, FETCH_BYTES // 2 // each))

    # --- taking events in ------------------------------------------------------------------

    def _row(self, event: AnyEvent) -> EventRow:
        row = make_row(event)
        self.actions.remember(event, row)
        if isinstance(event, ConversationStateUpdateEvent):
            self._note_stats(event)
        return row

    def _made_row(self, args: tuple[Any, ...], pickled: bytes | None) -> EventRow:
        """A row the helper made, taken in as :meth:`_row` takes in its own (the event
        comes with it only where the store reads it: ``page_worker.NEEDS_EVENT``)."""
        row = row_from(args)
        self.actions.remember(pickle.loads(pickled) if pickled is not None else None, row)
        return row

    def _note_stats(self, event: ConversationStateUpdateEvent) -> None:
        """Keep the newest cost and tokens the loaded events state: the header's figures
        when the record has none (a paused app-server conversation's record says 0)."""
        stated = event_stats(event)
        if stated is not None:
            self._newer_stats(stated)

    def _newer_stats(self, stated: tuple[str, float, int]) -> None:
        if self.newest_stats is None or stated[0] >= self.newest_stats[0]:
            self.newest_stats = stated

    def _remember(self, event: AnyEvent, frame: str | bytes | None = None) -> EventRow:
        """Cache ``event`` and make its row. ``frame``: the text it was read from, kept
        instead of its objects (read again when asked for, as a page's events are) unless
        UTF-8 cannot hold it."""
        key = event.id
        if key is None or is_oversize(event):  # a placeholder is fetched by id
            return self._row(event)
        if frame is None or not self._cache.keep_text(key, frame):
            self._cache.set(key, event)
        return self._row(event)
