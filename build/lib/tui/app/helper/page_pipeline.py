"""The index's pages: fetched and read by the helper process, handed over in batches.

Walking a long conversation is a chain: request a page, read it (validate every event,
make its rows), ask for the next. Read on the UI's loop, the reading was most of the walk
and every key waited behind it; fetched on it, httpx's request path cost as much again.
So the helper process (``page_worker.py``) walks the search itself (``page_walker.py``,
with the request the client builds: ``search_events_request``) and this loop only takes
rows in, a few pages at a time.

Where the helper cannot make the requests (a transport of the caller's, a proxy), this
loop fetches the pages, up to :attr:`PagePipeline.depth` ahead, and the helper reads them:
page N+1's id is guessed from page N's tail (``"next_page_id"``, the last key of a page as
servers write it) and checked against the page the index asks for next (a wrong guess
only wastes requests).

Only for long conversations (:data:`HELPER_MIN_EVENTS`): a helper costs an interpreter's
start, which a short log never earns back. Its start and the index's first pages take the
cores and the server that a page the user asks for right after the open (End) needs, so a
long conversation's index waits until the user has left the list alone (:meth:`settle`).
Whenever the helper is not ready, cannot start, fails a page or dies, the page is read
in-line as before: nothing is lost, nothing differs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tui.app.helper.page_worker import MODULE, WALK, ParsedPage
from tui.client.page_fetch import PageRequest, guess_next_page
from tui.client.process_worker import (
    ProcessWorker,
    WorkerGone,
    answer,
    release_worker,
    shared_worker,
)

if TYPE_CHECKING:
    from tui.app.store.row_windows import EventQuery
    from tui.client import OpenHandsClient
    from tui.models import AnyEvent

#: Events a conversation must have (by its count, or pages walked) before its index is
#: read in the helper process.
HELPER_MIN_EVENTS = 3_000


class PagePipeline:
    """The index's next pages for one conversation (``ConversationEvents`` owns one)."""

    min_events = HELPER_MIN_EVENTS
    #: pages on their way at once (fetched, or being read by the helper)
    depth = 4
    #: seconds without a page the user asked for (End, a scroll past the loaded rows)
    #: before a long conversation's index starts: its helper's start and first pages take
    #: the cores and the server that such a page needs right after the open
    quiet = 0.15

    def __init__(self, client: OpenHandsClient, conversation_id: str) -> None:
        self.client = client
        self.conversation_id = conversation_id
        self._ahead: deque[tuple[tuple[Any, ...], asyncio.Future[Any]]] = deque()
        self._newest: tuple[Any, ...] | None = None  # the last page asked for
        self._then: tuple[Any, ...] | None = None  # the page after it, when the queue was full
        #: the helper: the process's one for page_worker (tests give their own)
        self.worker: ProcessWorker | None = None
        self.helped = 0  # pages the helper read (the rest were read in-line)
        self.walked = 0  # of those, pages the helper also fetched (page_walker.py)
        #: pages the helper fetched and read ahead, by key (None: read that one in-line)
        self._walked: dict[tuple[Any, ...], ParsedPage | None] = {}
        self._asked = 0  # loads of rows the user asked for, on their way
        self._quiet_since: float | None = None  # the index's first call, or such a load's end
        self._settled = False

    @property
    def helper(self) -> ProcessWorker:
        if self.worker is None:
            self.worker = shared_worker(MODULE)
        return self.worker

    def wanted(self, events: int | None) -> bool:
        """Read through the helper for a conversation of ``events`` events; starts it (in
        the background) the first time it is wanted. False until it is ready."""
        if events is None or events < self.min_events:
            return False
        self.helper.start()
        return self.helper.usable

    @contextlib.contextmanager
    def asked(self) -> Iterator[None]:
        """Around loading rows the user asked for: the index does not start meanwhile, nor
        until :attr:`quiet` seconds after."""
        self._asked += 1
        try:
            yield
        finally:
            self._asked -= 1
            self._quiet_since = asyncio.get_running_loop().time()

    def index_called(self) -> None:
        """The index asks for a page (the first time: the list's first frame is painted
        and its count is in)."""
        if self._quiet_since is None:
            self._quiet_since = asyncio.get_running_loop().time()

    async def settle(self, events: int | None) -> None:
        """Before a long conversation's index starts (once): wait until the user has left
        the list alone for :attr:`quiet` seconds since it could first go anywhere (its
        first frame and count) or since their last load."""
        if self._settled or events is None or events < self.min_events:
            return
        loop = asyncio.get_running_loop()
        while True:
            since = self._quiet_since if self._quiet_since is not None else loop.time()
            wait = since + self.quiet - loop.time()
            if not self._asked and wait <= 0:
                break
            await asyncio.sleep(self.quiet if self._asked else wait)
        self._settled = True

    async def read(
        self, query: EventQuery, page_id: str | None, descending: bool, limit: int
    ) -> ParsedPage | tuple[list[AnyEvent], str | None]:
        """One page: read by the helper (a ParsedPage), or, if it could not, in-line
        (events and the next page id), from the same body."""
        key = (query, page_id, descending, limit)
        if key in self._walked:  # handed over with an earlier page
            return await self._walked_page(key)
        request = self._request(key)
        if request is not None:
            return await self._walk(key, request)
        if not self._ahead or self._ahead[0][0] != key:
            self.cancel()  # not what was guessed (or nothing was): start again from here
            self._ask(key)
        _, task = self._ahead.popleft()
        if self._then is not None and len(self._ahead) < self.depth:
            then, self._then = self._then, None
            self._ask(then)
        return await task

    def finished(self) -> None:
        """The walk is complete: the shared helper stops (its ~50 MB go back); a later
        walk starts another."""
        self.cancel()
        if self.worker is not None:
            release_worker(MODULE, self.worker)
        self.worker = None

    def cancel(self) -> None:
        """Forget the pages on their way (the screen is closing, or they were not next)."""
        while self._ahead:
            self._ahead.popleft()[1].cancel()
        self._newest = self._then = None
        self._walked.clear()

    # --- walked by the helper (page_walker.py) -------------------------------------------

    def _request(self, key: tuple[Any, ...]) -> PageRequest | None:
        """The search as a request the helper makes itself; None where it cannot (the
        pages are then fetched here and read there, below). Made anew for each batch
        (~45–100 µs): keys changed meanwhile go with the next one."""
        search = self._search(key)
        del search["page_id"]
        return self.client.search_events_request(self.conversation_id, **search)

    async def _walk(self, key: tuple[Any, ...], request: PageRequest) -> Any:
        """The page from the helper's walk, asked for with the pages after it that the
        helper has read meanwhile (kept for the next calls: :meth:`_walked_page`)."""
        self._walked.clear()
        asked = answer(self.helper.submit((WALK, request, key[1])))
        try:
            batch = await asyncio.wait_for(asked, request.deadline)
        except (WorkerGone, TimeoutError):
            return await self._ordinary(key)
        for page_id, page in batch:
            self._walked[(key[0], page_id, key[2], key[3])] = page
        return await self._walked_page(key, turn=False)

    async def _walked_page(self, key: tuple[Any, ...], *, turn: bool = True) -> Any:
        """A page the helper handed over. ``turn``: the loop takes a turn first, so a key
        (End) and the page it asks for go between a batch's pages, not behind them all
        (no request is made for it: the one that asked for the batch stands)."""
        if turn:
            await asyncio.sleep(0)
        page = self._walked.pop(key, None)
        if page is None:  # the helper could not fetch or read it: asked here, as ever
            return await self._ordinary(key)
        self.helped += 1
        self.walked += 1
        return page

    # --- fetching ------------------------------------------------------------------------

    def _ask(self, key: tuple[Any, ...]) -> None:
        task = asyncio.ensure_future(self._page(key))
        task.add_done_callback(_retrieved)
        self._ahead.append((key, task))
        self._newest = key

    def _arrived(self, key: tuple[Any, ...], body: bytes) -> None:
        """A page's body is in: ask for the one its tail names while it is read."""
        guess = guess_next_page(body)
        if guess is None or guess == key[1] or key != self._newest:
            return
        follow = (key[0], guess, key[2], key[3])
        if len(self._ahead) < self.depth:
            self._ask(follow)
        else:
            self._then = follow

    async def _page(self, key: tuple[Any, ...]) -> Any:
        body = await self._fetch(key)
        self._arrived(key, body)
        try:
            parsed = await answer(self.helper.submit(body))
        except WorkerGone:
            return self._in_line(body) or await self._ordinary(key)
        self.helped += 1
        return parsed._replace(body=body)

    @staticmethod
    def _search(key: tuple[Any, ...]) -> dict[str, Any]:
        query, page_id, descending, limit = key
        return query.search(page_id, descending, limit)

    async def _fetch(self, key: tuple[Any, ...]) -> bytes:
        return await self.client.search_events_body(self.conversation_id, **self._search(key))

    async def _ordinary(self, key: tuple[Any, ...]) -> tuple[list[AnyEvent], str | None]:
        """A body that is not a page: asked for again the ordinary way, whose error says
        what is wrong with it (or which reads it, if the server has recovered)."""
        page = await self.client.search_events(self.conversation_id, **self._search(key))
        return page.items, page.next_page_id

    @staticmethod
    def _in_line(body: bytes) -> tuple[list[AnyEvent], str | None] | None:
        from tui.models.pages import EventPage

        try:
            page = EventPage.from_bytes(body)
        except ValueError:
            return None
        return page.items, page.next_page_id


def _retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        with contextlib.suppress(BaseException):
            task.exception()  # a failed fetch ahead is asked again by the next page
