"""Every page or event of a search, walked: part of :class:`~.events_api.EventCalls`.

A server that loops (a cursor leading back, a page sent again under a new id) raises
:class:`~.paging.PageLoopError` rather than being walked forever (``paging.py``); each page
is asked as ``search_events`` asks it, fewer events at a time where a page is too large.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from . import params as P
from .paging import event_mark

if TYPE_CHECKING:
    from tui.models import EventSortOrder
    from tui.models.pages import EventPage
    from tui.models.parse import AnyEvent

Timestamp = datetime | str | None


class EventWalks:
    """``iter_event_pages`` and ``iter_events``, over the searches the client provides."""

    if TYPE_CHECKING:  # provided by EventCalls and ClientBase

        def _event_search(self, route: str, *args: Any) -> tuple[str, dict[str, Any]]: ...
        async def search_events(self, conversation_id: str, **search: Any) -> EventPage: ...
        async def search_shared_events(self, conversation_id: str, **search: Any) -> EventPage: ...
        def _follow(self, path: str, page_id: str | None, fetch: Any, mark: Any) -> Any: ...

    def iter_event_pages(
        self,
        conversation_id: str,
        *,
        shared: bool = False,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        timestamp_lt: Timestamp = None,
        sort_order: EventSortOrder | str = "TIMESTAMP",
        page_id: str | None = None,
        limit: int = 100,
    ) -> AsyncIterator[EventPage]:
        """Every page from ``page_id`` (or the start) until ``next_page_id`` is null.

        Parameters are checked now, before iteration starts; a server that loops raises
        :class:`PageLoopError` (``paging.py``) rather than being walked forever.
        """
        P.check_bool(shared, "shared")
        route = "shared" if shared else "app"
        path, _ = self._event_search(
            route, conversation_id, kind, timestamp_gte, timestamp_lt, sort_order, page_id, limit
        )
        search = self.search_shared_events if shared else self.search_events

        async def fetch(page: str | None) -> tuple[EventPage, str | None]:
            result = await search(
                conversation_id,
                kind=kind,
                timestamp_gte=timestamp_gte,
                timestamp_lt=timestamp_lt,
                sort_order=sort_order,
                page_id=page,
                limit=limit,
            )
            return result, result.next_page_id

        return self._follow(path, page_id, fetch, event_mark)

    def iter_events(
        self,
        conversation_id: str,
        *,
        shared: bool = False,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        timestamp_lt: Timestamp = None,
        sort_order: EventSortOrder | str = "TIMESTAMP",
        page_id: str | None = None,
        limit: int = 100,
    ) -> AsyncIterator[AnyEvent]:
        """Every event, page after page (see :meth:`iter_event_pages`); checked eagerly too."""
        pages = self.iter_event_pages(
            conversation_id,
            shared=shared,
            kind=kind,
            timestamp_gte=timestamp_gte,
            timestamp_lt=timestamp_lt,
            sort_order=sort_order,
            page_id=page_id,
            limit=limit,
        )

        async def events() -> AsyncIterator[AnyEvent]:
            async for page in pages:
                for event in page.items:
                    yield event

        return events()


__all__ = ["EventWalks", "Timestamp"]
