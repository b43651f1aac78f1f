"""A conversation's insights from a client: page by page, with progress, resumable.

:class:`InsightsWalk` holds the builder and the walk through the pages (the client's one
``PageWalk``, with its guard against a cursor that loops), so a page that fails (a server
restarting, a network cut) can be asked for again without starting over: the caller
decides how patient to be (the view waits through ``client.patiently``, the command line
relies on the client's own retries). Pages are fed to the builder as they arrive, so
memory stays bounded whatever the conversation's length.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui.client import NotFound
from tui.client.paging import PageTrail, PageWalk, event_mark

from .builder import InsightsBuilder
from .figures import Insights

PAGE = 100


async def conversation_record(client: Any, conversation_id: str) -> Any | None:
    """The conversation's record (title, metrics), None where the server has no records;
    an unknown id raises :class:`NotFound` with a sentence to show."""
    try:
        found = await client.get_conversations([conversation_id])
    except NotFound:
        return None
    record = found[0] if found else None
    if record is None:
        raise NotFound(f"no conversation {conversation_id!r} on this server")
    return record


def record_cost(record: Any) -> float | None:
    metrics = getattr(record, "metrics", None)
    return metrics.accumulated_cost if metrics is not None else None


class InsightsWalk:
    """One walk over a conversation's events into an :class:`InsightsBuilder`."""

    def __init__(
        self,
        client: Any,
        conversation_id: str,
        *,
        shared: bool = False,
        title: str | None = None,
        record_cost: float | None = None,
        total: int | None = None,
    ) -> None:
        self.client = client
        self.conversation_id = conversation_id
        self.shared = shared
        self.builder = InsightsBuilder(conversation_id, title=title, record_cost=record_cost)
        self.total = total  # events on the server when the walk began, when known
        self.read = 0  # events read so far (duplicates included)
        #: the walk through the pages, with the client's guard against a cursor that loops
        self.walk = PageWalk(trail=PageTrail(event_mark))

    @property
    def page_id(self) -> str | None:
        """The page read next (None: the first)."""
        return self.walk.page_id

    @property
    def done(self) -> bool:
        return self.walk.done

    async def step(self) -> int:
        """Read the next page; returns its events. A failure leaves the walk where it was."""
        if self.done:
            return 0
        items, next_page = await self._page()
        self.walk.arrived(items)
        feed = self.builder.feed
        for event in items:
            feed(event)
        self.read += len(items)
        self.walk.moved(next_page, items)
        return len(items)

    async def _page(self) -> tuple[list[Any], str | None]:
        """The next page's events, untyped where the client can (the builder reads plain
        fields: typing them cost more than the figures, see ``search_events_raw``)."""
        raw = getattr(self.client, "search_events_raw", None)
        if raw is not None:
            return await raw(
                self.conversation_id,
                shared=self.shared,
                sort_order="TIMESTAMP",
                page_id=self.page_id,
                limit=PAGE,
            )
        search = self.client.search_shared_events if self.shared else self.client.search_events
        page = await search(
            self.conversation_id, sort_order="TIMESTAMP", page_id=self.page_id, limit=PAGE
        )
        return page.items, page.next_page_id

    def finish(self) -> Insights:
        return self.builder.finish()


async def start_walk(client: Any, conversation_id: str, *, shared: bool = False) -> InsightsWalk:
    """A walk with the record's title and cost (not for shared links) and the total."""
    title = cost = total = None
    if not shared:
        record = await conversation_record(client, conversation_id)
        if record is not None:
            title, cost = record.title, record_cost(record)
        try:
            total = await client.count_events(conversation_id)
        except Exception:  # noqa: BLE001 - the count only sizes the progress
            total = None
    return InsightsWalk(
        client, conversation_id, shared=shared, title=title, record_cost=cost, total=total
    )


async def collect_insights(
    client: Any,
    conversation_id: str,
    *,
    shared: bool = False,
    progress: Callable[[InsightsWalk], Any] | None = None,
) -> Insights:
    """Every page of the conversation, then its insights (``progress(walk)`` after each)."""
    walk = await start_walk(client, conversation_id, shared=shared)
    while not walk.done:
        await walk.step()
        if progress is not None:
            progress(walk)
    return walk.finish()
