"""Full events for rows: from the store's cache of full events, else fetched by id.

Part of :class:`~tui.app.conversation_events.ConversationEvents` (which provides what is
declared here). The cache holds parsed events, or, for pages the helper process read
(``page_worker.py``), a reference into the page's body that is read when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .duplicate_rows import row_key
from .page_worker import LazyEvent

if TYPE_CHECKING:
    from tui.client import OpenHandsClient
    from tui.models import AnyEvent

    from .event_cache import EventCache
    from .rows import EventRow

#: Events asked for by id in one request.
BY_ID = 100


class FullEvents:
    """The full events of rows (see the module docstring)."""

    client: OpenHandsClient
    conversation_id: str
    shared: bool
    _cache: EventCache

    if TYPE_CHECKING:  # provided by PatientLoads and ConversationEvents

        async def _tracked(self, what: str, load: Any) -> Any: ...
        async def _patiently(self, load: Any, **options: Any) -> Any: ...
        def _remember(self, event: AnyEvent, size: int | None = None) -> EventRow: ...

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
