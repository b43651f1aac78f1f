"""Full events for rows: from the store's cache of full events, else fetched by id; and
how an event is taken in (its row made, its stats and action noted, itself cached).

Part of :class:`~tui.app.conversation_events.ConversationEvents` (which provides what is
declared here). The cache holds parsed events, or, for pages the helper process read
(``page_worker.py``), a reference into the page's body that is read when first asked for.
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from tui.client.stream import is_oversize
from tui.models.events import ConversationStateUpdateEvent

from .duplicate_rows import row_key
from .page_worker import LazyEvent, event_stats, row_from
from .rows import EventRow, make_row

if TYPE_CHECKING:
    from tui.client import OpenHandsClient
    from tui.models import AnyEvent

    from .action_index import ActionIndex
    from .event_cache import EventCache

#: Events asked for by id in one request.
BY_ID = 100


class FullEvents:
    """The full events of rows (see the module docstring)."""

    client: OpenHandsClient
    conversation_id: str
    shared: bool
    _cache: EventCache
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

    async def events_for(self, rows: list[EventRow]) -> list[AnyEvent]:
        """The full events of ``rows``, in order: cached ones as they are, the rest fetched
        by id a hundred at a time, through outages (rows whose event is gone are left out)."""
        missing = [r.id for r in rows if r.id is not None and self.cached(row_key(r)) is None]
        fetch = self.client.get_shared_events if self.shared else self.client.get_events
        found: dict[str, AnyEvent] = {}
        for start in range(0, len(missing), BY_ID):
            ids = missing[start : start + BY_ID]
            batch = await self._patiently(
                lambda ids=ids: fetch(self.conversation_id, ids),
                what=f"events {start + 1:,}–{start + len(ids):,} of {len(missing):,} by id",
            )
            for event in batch:
                if event is not None and event.id is not None:
                    found[event.id] = event
        out = []
        for row in rows:
            key = row_key(row)
            event = self.cached(key) or found.get(row.id) if row.id is not None else None
            if event is not None:
                out.append(event)
        return out

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
