"""Filling the index from a server: newest conversations first, resumable, incremental.

The conversations are listed by the client's own walk (``iter_conversations``: the one
``PageWalk``, each page outlasting a failing server through ``patiently``); those already
indexed to their end for the ``updated_at`` the server gives now are left alone, those left
out by the size bound too until they change. A few conversations are read at once
(``concurrency``), each walked oldest event first from where its last walk stopped (the
timestamp of the last event stored: events already held are known by their id), page by
page through the same ``PageWalk`` and ``patiently`` the insights use, so a page that fails
is asked again after the client's pause (``Retry-After`` honoured) without starting over.
Masking and writing a page run in a thread; the event loop only waits. A conversation
that cannot be read (deleted meanwhile, a server that loops) is counted and skipped.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tui.client import NotFound
from tui.client.paging import PageTrail, PageWalk, event_mark
from tui.text import clean

from .extract import event_time, extract
from .store import SearchIndex

PAGE = 100
CONCURRENCY = 2


@dataclass
class FillProgress:
    """Where a fill is: "indexed 312 of 1,040 conversations"."""

    total: int = 0  # conversations the server lists
    current: int = 0  # indexed to their end as they are now
    dropped: int = 0  # left out by the size bound
    events: int = 0  # events added by this fill
    failed: list[str] = field(default_factory=list)  # "id: why", for conversations skipped
    listing: bool = True  # still listing the conversations
    done: bool = False

    def words(self) -> str:
        if self.listing:
            return f"listing conversations ({self.total:,} so far)"
        said = f"indexed {self.current:,} of {self.total:,} conversations"
        if self.dropped:
            said += f" ({self.dropped:,} left out by the size bound)"
        if self.failed:
            said += f"; {len(self.failed):,} could not be read"
        return said


class IndexFiller:
    """One fill of ``index`` from ``client`` (:meth:`run`); ``progress(FillProgress)`` is
    called as it goes. :meth:`pause` and :meth:`resume` hold it between pages (the app
    holds it while the user pages through a conversation)."""

    def __init__(
        self,
        client: Any,
        index: SearchIndex,
        *,
        concurrency: int = CONCURRENCY,
        page: int = PAGE,
        progress: Callable[[FillProgress], Any] | None = None,
    ) -> None:
        self.client = client
        self.index = index
        self.concurrency = max(1, concurrency)
        self.page = page
        self.progress = FillProgress()
        self._report = progress
        self._running = asyncio.Event()
        self._running.set()
        self._filling: set[str] = set()  # never dropped by the size bound meanwhile

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def _said(self) -> None:
        if self._report is not None:
            self._report(self.progress)

    async def run(self) -> FillProgress:
        """List, then bring every conversation up to date (see the module doc)."""
        progress = self.progress
        listed: list[tuple[str, str, str, float]] = []
        async for record in self.client.iter_conversations(include_sub_conversations=True):
            updated = record.updated_at or record.created_at or ""
            listed.append((record.id, clean(record.title or ""), updated, event_time(updated) or 0))
            progress.total = len(listed)
            if len(listed) % 100 == 0:
                self._said()
        await asyncio.to_thread(self.index.note_conversations, listed)
        known = await asyncio.to_thread(self.index.conversations)
        todo: deque[tuple[str, str, str | None]] = deque()
        for cid, _title, updated, _used in listed:
            state = known.get(cid)
            if state is not None and state.current:
                progress.current += 1
            elif state is not None and state.dropped:
                progress.dropped += 1
            else:
                todo.append((cid, updated, state.last_stamp if state else None))
        progress.listing = False
        self._said()
        await asyncio.gather(*(self._worker(todo) for _ in range(self.concurrency)))
        progress.done = True
        self._said()
        return progress

    async def _worker(self, todo: deque[tuple[str, str, str | None]]) -> None:
        while todo:
            cid, updated, since = todo.popleft()
            self._filling.add(cid)
            try:
                await self.conversation(cid, updated, since)
            except NotFound:
                self.progress.total -= 1  # deleted since it was listed
            except (asyncio.CancelledError, KeyboardInterrupt):
                raise
            except Exception as exc:  # noqa: BLE001 - one conversation never ends the fill
                self.progress.failed.append(f"{cid}: {exc}")
            else:
                self.progress.current += 1
            finally:
                self._filling.discard(cid)
            self._said()

    async def conversation(self, cid: str, updated: str, since: str | None = None) -> int:
        """Index one conversation's events from ``since`` (a timestamp; None: all) to its
        end, then mark it current for ``updated``; returns the events added."""
        client, index = self.client, self.index
        walk = PageWalk(trail=PageTrail(event_mark))
        added = 0
        while not walk.done:
            await self._running.wait()
            items, next_page = await client.patiently(
                lambda page_id=walk.page_id: client.search_events_raw(
                    cid,
                    timestamp_gte=since or None,
                    sort_order="TIMESTAMP",
                    page_id=page_id,
                    limit=self.page,
                ),
                f"page {walk.pages + 1} of the events of {cid}",
            )
            walk.arrived(items)
            new = await asyncio.to_thread(self._store, cid, items, since)
            added += new
            self.progress.events += new
            walk.moved(next_page, items)
        await asyncio.to_thread(index.finished, cid, updated)
        dropped = await asyncio.to_thread(index.keep_bound, self._filling - {cid})
        self.progress.dropped += len(dropped)
        self.progress.current -= len(dropped)
        return added

    def _store(self, cid: str, items: list[Any], since: str | None) -> int:
        events = [found for item in items if (found := extract(item)) is not None]
        stamps = [event.stamp for event in events if event.stamp]
        last = max(stamps) if stamps else since
        return self.index.add_events(cid, events, last)


async def fill_index(
    client: Any, index: SearchIndex, progress: Callable[[FillProgress], Any] | None = None
) -> FillProgress:
    """One fill (``ohtui index``, ``ohtui search``, the app's background fill)."""
    return await IndexFiller(client, index, progress=progress).run()
