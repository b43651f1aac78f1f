"""The index walked ahead inside the helper process: fetch, read, and hand pages over in batches.

Why: with the UI fetching each page and the helper reading it, every page crossed the
UI's loop twice (httpx's request path, then the body handed over) and the helper waited
between pages. Here a thread of the helper walks the search itself: another thread
(``PagesAhead``, one kept-alive connection) fetches pages ahead of it, each one's next
guessed from its tail, so the server and the reading overlap, and it keeps up to
:attr:`PageWalker.ahead` read pages. The UI asks for a page; the answer is that page and
the pages after it, once :attr:`PageWalker.batch` are read (or the walk has ended), so the
UI's loop only takes rows in, a batch at a time.

A page the walk could not fetch or read is answered ``None`` and the walk stops there:
the UI reads that page the ordinary way (its errors, retries and waits are the client's),
then asks again from the next page. The walk also stops where the client's guard
(``client/paging.py``) sees a server that loops: the UI, reading on in-line, says so. No
Textual here.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from tui.client.errors import PageLoopError
from tui.client.page_fetch import PageRequest, PagesAhead
from tui.client.paging import PageWalk

#: What a page read ahead is handed over as: (its page id, the page or None if it failed).
Walked = tuple[str | None, Any]


class PageWalker:
    """One search walked ahead (the helper's one): :meth:`answer` is called per request."""

    #: pages read and not yet handed over, at most (~2 MB of this process's): the walk goes
    #: on while the UI is busy (a tree rebuild, a paint). 100,000 events from the first
    #: rows: 3.9–4.0 s with 8, 3.6–3.7 s with 32, 64 no better (from the open, as
    #: ``bench.load`` times it: 3.8–4.0 vs 3.9 s, within its noise)
    ahead = 32
    #: pages an answer waits for (unless the walk ends first): each answer is a round trip
    #: through both processes' pipe threads (~0.3 ms of handing over the GIL), so fewer
    #: and fuller ones cost the UI less; the walk goes on meanwhile
    batch = 4

    def __init__(self, read: Callable[[bytes], Any]) -> None:
        self.read = read  # the body → the page the UI wants (page_worker.read_page)
        self._lock = threading.Condition()
        self._request: PageRequest | None = None
        self._walk = 0  # the current walk's number: an older thread stops at its next step
        self._ready: deque[Walked] = deque()
        self._next: str | None = None  # the page the walk reads next (when not _ended)
        self._ended = True

    def answer(self, request: PageRequest, page_id: str | None) -> list[Walked]:
        """``page_id``'s page and the pages after it already read (in order); the walk is
        (re)started from ``page_id`` unless it is already on its way there."""
        with self._lock:
            if not self._on_the_way(request, page_id):
                self._restart(request, page_id)
            self._lock.wait_for(
                lambda: len(self._ready) >= self.batch or (self._ready and self._ended)
            )
            batch = list(self._ready)
            self._ready.clear()
            self._lock.notify_all()
        return batch

    def _on_the_way(self, request: PageRequest, page_id: str | None) -> bool:
        if request != self._request:
            return False
        if self._ready:
            return self._ready[0][0] == page_id
        return not self._ended and self._next == page_id

    def _restart(self, request: PageRequest, page_id: str | None) -> None:
        self._walk += 1
        self._request, self._next, self._ended = request, page_id, False
        self._ready.clear()
        walk = self._walk
        threading.Thread(
            target=self._run, args=(walk, request, page_id), name="ohtui-walk", daemon=True
        ).start()

    # --- the walking thread ----------------------------------------------------------------

    def _run(self, walk: int, request: PageRequest, page_id: str | None) -> None:
        pages = PagesAhead(request)
        try:
            self._walk_from(walk, pages, page_id)
        except Exception:  # noqa: BLE001 - never leave an answer waiting: read in-line
            with self._lock:
                page_id = self._next
            self._hand(walk, page_id, None, end=True)
        finally:
            pages.stop()

    def _walk_from(self, walk: int, pages: PagesAhead, page_id: str | None) -> None:
        cursor = PageWalk(page_id)  # ids only: the store's own trail tells a page sent twice
        while True:
            page_id = cursor.page_id
            try:
                body = pages.get(page_id)  # fetched ahead (its id guessed), or now
            except Exception:  # noqa: BLE001 - the UI asks again the ordinary way
                self._hand(walk, page_id, None, end=True)
                return
            if not self._room(walk):
                return
            try:
                page = self.read(body)
            except Exception:  # noqa: BLE001 - not a page: read in-line
                self._hand(walk, page_id, None, end=True)
                return
            following = page.next_page_id
            try:
                cursor.moved(following, page.rows)
                end = cursor.done
            except PageLoopError:  # read no further: the UI reads on in-line, and says so
                end = True
            if not self._hand(walk, page_id, page, end=end, following=following) or end:
                return

    def _room(self, walk: int) -> bool:
        """Wait until fewer than ``ahead`` pages wait; False if this walk was replaced."""
        with self._lock:
            self._lock.wait_for(lambda: self._walk != walk or len(self._ready) < self.ahead)
            return self._walk == walk

    def _hand(
        self,
        walk: int,
        page_id: str | None,
        page: Any,
        *,
        end: bool,
        following: str | None = None,
    ) -> bool:
        with self._lock:
            if self._walk != walk:
                return False
            self._ready.append((page_id, page))
            self._next, self._ended = following, end
            self._lock.notify_all()
            return True
