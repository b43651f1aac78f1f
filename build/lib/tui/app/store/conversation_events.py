"""The per-conversation event store: row windows, a bounded event cache, pairing, the tree.

No widgets here: the screen runs these coroutines in workers. The base window (no filter,
oldest first) doubles as the index the tree is built from; filtered views get their own
window. Full events are kept only in a cache bounded by bytes (``event_cache.py``; rows are
what stays resident), so memory follows the rows, not the payloads.

Loading outlasts outages here, not in the screen (``load_patience.py``), so a restarting
server or a rate limit still ends with every event, once; what is being waited for is in
:attr:`ConversationEvents.waiting` for the screen to say. Pairing actions with results and
the tree are in ``event_relations.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tui.app.helper.page_pipeline import PagePipeline
from tui.app.helper.page_worker import LazyEvent, PageBody, ParsedPage, shared_sizes
from tui.app.store.action_index import ActionIndex
from tui.app.store.duplicate_rows import row_key
from tui.app.store.event_cache import EventCache, weigh_json
from tui.app.store.event_relations import EventRelations
from tui.app.store.full_events import FullEvents
from tui.app.store.live_placing import history_by_time
from tui.app.store.live_rows import LiveRows
from tui.app.store.load_patience import (
    MAX_RETRY_AFTER,
    OUTAGE_TRIES,
    Backoff,
    JitteredBackoff,
    PatientLoads,
    RetryNotice,
    Waiting,
)
from tui.app.store.row_windows import START, EventQuery, PagedWindow
from tui.app.store.rows import EventRow
from tui.client.paging import PageTrail, event_mark
from tui.models import EventTree

if TYPE_CHECKING:
    from tui.client import OpenHandsClient
    from tui.models import AnyEvent, AppConversation

PAGE = 100
#: What one page's events should weigh at most: after a page of heavy events (outputs of
#: megabytes) the next pages ask for fewer, so a page in flight stays about this size.
PAGE_BYTES = 16 * 1024 * 1024
MIN_PAGE = 10
#: seconds the index's first page waits for the total (long conversations start a helper)
COUNT_WAIT_S = 3.0
#: count queries a window's length waits on at once (a steps view asks for six kinds)
PARALLEL_COUNTS = 4

__all__ = [
    "MAX_RETRY_AFTER",
    "OUTAGE_TRIES",
    "Backoff",
    "ConversationEvents",
    "JitteredBackoff",
    "RetryNotice",
    "Waiting",
]


class ConversationEvents(PatientLoads, EventRelations, FullEvents, LiveRows):
    """One conversation's events as the screen holds them (see the module docstring)."""

    def __init__(
        self,
        client: OpenHandsClient,
        conversation_id: str,
        *,
        shared: bool = False,
        backoff: Backoff | None = None,
        on_retry: RetryNotice | None = None,
        clock: Callable[[], float] = time.monotonic,
        by_time: bool | None = None,
    ) -> None:
        self.client = client
        #: the server sorts its history by timestamp, so live rows go in by theirs
        #: (``live_placing.py``); None: as the client's kind says (:func:`history_by_time`)
        self.by_time = history_by_time(client) if by_time is None else by_time
        self.clock = clock
        self._waits: list[Waiting] = []  # loads on their way, oldest first
        self.conversation_id = conversation_id
        self.shared = shared
        self.backoff = backoff or JitteredBackoff()
        self.on_retry = on_retry
        #: the conversation's record (title, statuses, cost), once loaded; None for shared links
        self.record: AppConversation | None = None
        self.base = self._window(EventQuery())
        self._cache = EventCache()
        #: events asked for per page: fewer after heavy pages (see PAGE_BYTES)
        self.page_size = PAGE
        self._closed = False
        self._by_tool_call: dict[str, EventRow | list[EventRow]] = {}
        #: actions by id and what answers them (confirmation, pairing, security verdicts)
        self.actions = ActionIndex()
        #: (timestamp, cost, tokens) of the newest stats among the loaded events
        self.newest_stats: tuple[str, float, int] | None = None
        self._result_at: dict[str, EventRow] = {}  # action id → its result's row
        self.tree: EventTree | None = None
        self._tree_size = -1
        self._counting: set[asyncio.Future] = set()  # counts still on their way (kept referenced)
        self._count_due = False  # the base window's count starts after its first paint
        #: set when a count starts, lands or ends (what :meth:`count_known` waits on)
        self._count_news = asyncio.Event()
        #: the index's pages, fetched ahead and read in the helper process (page_pipeline.py)
        self.pipeline = PagePipeline(client, conversation_id)

    def _window(self, query: EventQuery) -> PagedWindow:
        return PagedWindow(query, by_time=self.by_time)

    def close(self) -> None:
        """The screen is gone: loads waiting to try again give up instead."""
        self._closed = True
        self.pipeline.cancel()

    # --- fetching --------------------------------------------------------------------------

    async def load_record(self, *, patient: bool = True) -> AppConversation | None:
        """The conversation's record (shared links have none): tried through outages unless
        ``patient`` is False (a refresh that the next one makes up for)."""
        if self.shared:
            return None

        async def load() -> AppConversation | None:
            found = await self.client.get_conversations([self.conversation_id])
            return found[0] if found else None

        what = "the conversation's record"
        self.record = await (
            self._patiently(load, what=what) if patient else self._tracked(what, load)
        )
        return self.record

    async def count(self, query: EventQuery) -> int | None:
        """Total for a query, or None where the endpoint has no count (shared links)."""
        if self.shared:
            return None
        return await self.client.count_events(
            self.conversation_id,
            kind=query.kind,
            timestamp_gte=query.since,
            timestamp_lt=query.until,
        )

    async def _counted_kinds(self, query: EventQuery) -> dict[str, int] | None:
        """The counts of the kinds that decide how many rows the query's window has
        (``EventQuery.counted_kinds``: the streaming deltas it leaves out; the plumbing and
        results a steps view folds; the kinds a kinds filter shows), alongside the query's
        own count, a few at a time.

        A server that cannot count by kind is not a failure of the query: None, and the
        window takes each event not loaded for a row until pages say otherwise."""
        kinds = list(query.counted_kinds())
        if not kinds:
            return {}
        limit = asyncio.Semaphore(PARALLEL_COUNTS)

        async def one(kind: str) -> int | None:
            async with limit:
                return await self.count(EventQuery(kind, query.since, query.until))

        try:
            counts = await asyncio.gather(*(one(kind) for kind in kinds))
        except Exception:  # noqa: BLE001 - see above; the query's own count still decides
            return None
        if any(count is None for count in counts):
            return None
        return dict(zip(kinds, counts, strict=True))

    async def _page(
        self, query: EventQuery, page_id: str | None, descending: bool, limit: int
    ) -> tuple[list[AnyEvent], str | None]:
        search = self.client.search_shared_events if self.shared else self.client.search_events
        page = await search(self.conversation_id, **query.search(page_id, descending, limit))
        return page.items, page.next_page_id

    async def open_window(
        self,
        query: EventQuery,
        on_total: Callable[[PagedWindow], None] | None = None,
        later: Callable[[Callable[[], None]], object] | None = None,
        first_rows: int | None = None,
    ) -> PagedWindow:
        """A window for ``query`` with its total and first page, fetched concurrently
        (through outages).

        With ``on_total`` the first page does not wait for the total: a count walks the whole
        log on the server (~10 ms at 100,000 events, 3 ms for the page), so the rows come
        first (the count is asked once they are in: counted beside the page, the server kept
        the page waiting) and ``on_total(window)`` is called when the total is known. ``later``
        puts the count off (a screen's ``call_after_refresh``: after the rows are painted).
        ``first_rows``: a new view's first page asks only for this many events (what the
        screen shows): reading a page is most of a filter change; the next pages are full."""
        what = "events page 1" if query.is_plain else f"the first events of {query.describe()}"
        return await self._patiently(
            lambda: self._open_window(query, on_total, later, first_rows), what=what
        )

    async def _open_window(
        self,
        query: EventQuery,
        on_total: Callable[[PagedWindow], None] | None,
        later: Callable[[Callable[[], None]], object] | None = None,
        first_rows: int | None = None,
    ) -> PagedWindow:
        window = self.base if query == self.base.query else self._window(query)
        limit = None if window is self.base else first_rows  # the index's pages stay full

        async def count() -> None:
            total, counted = await asyncio.gather(self.count(query), self._counted_kinds(query))
            if total is not None and window.head_page is not None:
                window.set_count(total, counted)

        async def count_first(on_total: Callable[[PagedWindow], None]) -> None:
            """The total as soon as the server has counted the query; the kinds that decide
            its rows after that. Counting one kind makes a folder server read every file (~1 s
            at 50,000): the list's length, and End, do not wait for them (the list then
            shrinks to what they say)."""
            folded = asyncio.ensure_future(self._counted_kinds(query))
            try:
                total = await self.count(query)
            except BaseException:
                folded.cancel()
                raise
            if total is None or window.head_page is None:
                folded.cancel()
                if window.total is not None:  # walked to the end already: the rows are the count
                    on_total(window)
                return
            if query.shaped or query.kinds:
                # a view that folds: its length is the kinds' counts to say (the events'
                # total is several times its rows), so End and the scrollbar wait for them
                counted = await folded
                if window.head_page is not None:
                    window.set_count(total, counted)
                self._count_news.set()
                on_total(window)
                return
            window.set_count(total)
            self._count_news.set()
            on_total(window)
            counted = await folded
            if counted and window.head_page is not None:
                window.set_count(total, counted)
                on_total(window)

        if window.head_page == START:  # nothing fetched yet (or the last try failed)
            if window.total is None and on_total is not None:
                # the page alone first: counts sent beside it (each walks the whole log, ~7 ms
                # at 100,000 events) made the server answer it in 13–18 ms instead of 3–5
                await self.fill(window, "head", limit=limit)

                def start_count() -> None:
                    self._count_due = False
                    self._count_news.set()
                    task = asyncio.ensure_future(count_first(on_total))
                    self._counting.add(task)
                    task.add_done_callback(self._counted)

                if later is None:
                    start_count()
                else:
                    # the index (and a jump typed with the enter) waits for it
                    self._count_due = True
                    later(start_count)
            else:
                await asyncio.gather(
                    *([count()] if window.total is None else []),
                    self.fill(window, "head", limit=limit),
                )
        return window

    def _counted(self, task: asyncio.Future) -> None:
        self._counting.discard(task)
        self._count_news.set()
        # a failed count leaves the total unknown: the window then grows as pages arrive
        if not task.cancelled():
            task.exception()  # retrieved: not logged as never retrieved

    async def fill(
        self, window: PagedWindow, side: str, *, helper: bool = False, limit: int | None = None
    ) -> int:
        """Fetch one page at ``side`` of ``window``; returns rows added. ``helper``: read
        it in the helper process if it is ready (``page_pipeline.py``); ``limit``: at most
        this many events (a first page sized to the screen), else the usual page."""
        lock = window.locks.setdefault(side, asyncio.Lock())
        async with lock:
            page_id = window.head_page if side == "head" else window.tail_page
            if page_id is None or window.complete:
                return 0
            descending = window.query.descending != (side == "tail")
            asked = page_id if page_id != START else None
            sizes: list[int] | None = None
            if helper and not self.shared:
                read = await self.pipeline.read(window.query, asked, descending, self.page_size)
            else:
                size = self.page_size if limit is None else min(limit, self.page_size)
                read = await self._page(window.query, asked, descending, size)
            if isinstance(read, ParsedPage):  # the cache keeps the body, read if asked for
                body = PageBody(read.body)
                events: list[Any] = [LazyEvent(body, i) for i in range(len(read.rows))]
                next_page = read.next_page_id
                sizes = read.sizes or shared_sizes(read.body, len(events))
            else:
                events, next_page = read
            if sizes is None:
                rows = [self._row(e) for e in events]
            else:  # made by the helper: the store reads only the events it needs
                rows = [self._made_row(a, read.needed.get(i)) for i, a in enumerate(read.rows)]
                for stated in read.stats.values():
                    self._newer_stats(stated)
            # a server cursor that leads back: stop here rather than walk in circles
            window.trails.setdefault(side, PageTrail(event_mark)).check(asked, next_page, rows)
            before = len(window.head) + len(window.tail)
            head_before = len(window.head)
            if side == "head":
                taken = window.add_head(rows, next_page)
            else:
                taken = window.add_tail(rows, next_page)
            texts: list[bytes | None] | None = None
            if sizes is None:  # once: the cache keeps the JSON, the next page is sized by it
                weighed = [weigh_json(e) for e in events]
                sizes = [size for size, _ in weighed]
                texts = [text for _, text in weighed]
            for index, row in taken:  # a duplicate's event under its own key
                key = row_key(row)
                if key is not None:
                    text = texts[index] if texts is not None else None
                    self._cache.set(key, events[index], sizes[index], text)
            self._fit_page(sizes)
            if window is self.base:
                self._index_pairs(head_before)
            return len(window.head) + len(window.tail) - before

    async def fill_range(self, window: PagedWindow, start: int, end: int) -> bool:
        """Walk pages (through outages) until rows [start, end) are loaded; True if anything
        was added. Quiet: the list shows its loading rows meanwhile."""

        async def walk() -> bool:
            added = False
            while (side := window.side_for(start, end)) is not None:
                if not await self.fill(window, side):
                    break
                added = True
            return added

        what = f"events {start + 1:,}–{max(start + 1, end):,}"
        with self.pipeline.asked():  # a long conversation's index starts after these
            return await self._patiently(walk, quiet=True, what=what)

    async def index_page(self) -> int:
        """The base window's next page (oldest first, through outages); rows added."""
        start = len(self.base.head)
        what = f"events {start + 1:,}–{start + self.page_size:,} (the index)"
        await self.count_known()  # whether the helper is worth it
        self.pipeline.index_called()  # the list has its length: End can go to the end
        events = self.base.total if self.base.total is not None else start
        await self.pipeline.settle(events)  # the user's first keys (End) go first
        helper = self.pipeline.wanted(events)
        if not helper:
            self.pipeline.cancel()  # the helper died: pages fetched ahead are asked again
        added = await self._patiently(
            lambda: self.fill(self.base, "head", helper=helper), what=what
        )
        if self.tree is not None:  # the pane's tree keeps up a page at a time (O(page)),
            self.build_tree()  # not a second's pages at once, the last after the walk
        if self.base.complete:
            self.pipeline.finished()  # the index is whole: the helper is not needed now
        return added

    async def count_known(self, window: PagedWindow | None = None) -> None:
        """Until ``window``'s (the base window's) total is in, or its count ends without
        one, or :data:`COUNT_WAIT_S`. The count starts after the list's first paint, maybe
        after the index's first call or a jump typed with the enter that opened the
        conversation; its task also counts the folded kind after the total, which a folder
        server takes ~1 s to do, so what is awaited is the news of the count (it starts, its
        total lands, it ends: :attr:`_count_news`), not the task."""
        window = self.base if window is None else window
        loop = asyncio.get_running_loop()
        deadline = loop.time() + COUNT_WAIT_S
        while window.total is None and (self._counting or self._count_due):
            self._count_news.clear()
            try:
                await asyncio.wait_for(self._count_news.wait(), deadline - loop.time())
            except TimeoutError:
                return

    async def load_all(
        self, window: PagedWindow, progress: Callable[[PagedWindow], None] | None = None
    ) -> None:
        """Every page of ``window`` (through outages, quietly: ``progress(window)`` is called
        before each page so the caller can say how far it got)."""
        while not window.complete:
            if progress is not None:
                progress(window)
            start = len(window.head)
            what = f"events {start + 1:,}–{start + self.page_size:,}"
            if not await self._patiently(lambda: self.fill(window, "head"), quiet=True, what=what):
                break

    def _fit_page(self, sizes: list[int]) -> None:
        """Size the next pages to what this one weighed (about PAGE_BYTES a page)."""
        if not sizes:
            return
        each = sum(sizes) / len(sizes)
        self.page_size = max(MIN_PAGE, min(PAGE, int(PAGE_BYTES / max(each, 1.0))))

    # --- folded or raw ---------------------------------------------------------------------

    @property
    def raw(self) -> bool:
        """The stored history is shown raw (every streaming delta and state snapshot)."""
        return self.base.query.raw

    def set_raw(self, raw: bool) -> PagedWindow:
        """Show the history raw or folded: a new base index, walked anew (the rows differ,
        and so do their positions, which the tree and pairing are keyed by)."""
        if raw != self.raw:
            self.base = self._window(EventQuery(raw=raw))
            self._by_tool_call.clear()
            self._result_at.clear()
            self.tree, self._tree_size = None, -1
        return self.base

    # --- tree (event_relations.py) ---------------------------------------------------------

    @property
    def rows(self) -> list[EventRow]:
        """The base window's rows, oldest first: the index the tree is built from."""
        return self.base.head

    @property
    def size(self) -> int | None:
        """How many events the conversation shows, once counted: the base window's length.
        The list's title, its indexing note and the tree pane's footer all read this."""
        return len(self.base) if self.base.total is not None else None
