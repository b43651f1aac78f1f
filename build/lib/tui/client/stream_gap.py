"""Filling a stream's gap by identity: what the agent logged while nobody listened.

A dropped event socket comes back with live events only; what was logged in between is
read from the agent server's own log (``GET …/events/search``, newest first in log order,
facts §1c), page by page, until a page holds an event already known: the stream's (it has
seen every event up to the drop, in log order) or the consumer's (a history it loaded).
Known events are left out by identity (:class:`~.stream_items.EventDeduper`); the rest come
back oldest first, to be yielded before the socket's next frames (which the server queues
meanwhile, so nothing falls between the pages and the socket).

Why not the socket's ``resend_mode=since&after_timestamp=…``: it compares timestamps as
text, so one event stamped in the far future (or a day ahead, after a clock jump) hides
every later gap, a stamp that is not a date makes the server refuse the socket, and a
stats update logged after an event but stamped before it is never sent (facts §1c, §6).
Nothing here reads a timestamp as a time.

:func:`gap_events` is pure but for the page reader it is given; :class:`GapFiller` gives it
:meth:`~.agent_log.AgentLog.page` and is what the stream (``stream.py``) uses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from .agent_log import AgentLog
from .errors import AuthError, HTTPStatusError, NotFound, OpenHandsError, PageLoopError
from .paging import PageTrail
from .stream_items import EventDeduper, StreamEvent, is_transient

if TYPE_CHECKING:
    from tui.models.pages import EventPage
    from tui.models.parse import AnyEvent

    from .endpoints import AgentEndpoint

#: Events a gap fill asks for per page (the agent server's most).
GAP_PAGE = 100

#: ``search(page_id, limit)``: one page of the log, newest first.
PageReader = Callable[[str | None, int], Awaitable["EventPage"]]
#: ``known(event)``: the consumer already holds this event (this copy of its id).
Known = Callable[["AnyEvent"], bool]


class GapFillFailed(OpenHandsError):
    """The agent server's log could not be read to fill a gap. ``lasting``: it will not be
    readable later either (no such route, a refused key): use full replays instead."""

    def __init__(self, message: str, *, lasting: bool) -> None:
        super().__init__(message)
        self.lasting = lasting


async def gap_events(
    search: PageReader,
    seen: EventDeduper,
    known: Known | None = None,
    *,
    limit: int = GAP_PAGE,
) -> list[tuple[AnyEvent, bool]]:
    """The events of the log down to the first page with a known event, oldest first, each
    with whether to yield it (False: the consumer holds it; it is only to be marked seen).

    Copies the stream has seen come back too (with True): de-duplication drops them, or lets
    a persisted copy that gained its ``parent_id`` replace the live one. Raises
    :class:`GapFillFailed`."""
    found: list[tuple[AnyEvent, bool]] = []  # newest first
    trail = PageTrail()
    page_id: str | None = None
    while True:
        try:
            page = await search(page_id, limit)
        except (NotFound, AuthError) as exc:
            raise GapFillFailed(f"cannot read the agent's log: {exc}", lasting=True) from exc
        except HTTPStatusError as exc:
            lasting = exc.status is not None and 400 <= exc.status < 500 and exc.status != 429
            raise GapFillFailed(f"cannot read the agent's log: {exc}", lasting=lasting) from exc
        except OpenHandsError as exc:
            raise GapFillFailed(f"cannot read the agent's log: {exc}", lasting=False) from exc
        met = False
        for event in page.items:
            if is_transient(event):  # never part of an agent's log; the socket has them
                continue
            if seen.knows(event):
                met = True
                found.append((event, True))
            elif known is not None and known(event):
                met = True
                found.append((event, False))
            else:
                found.append((event, True))
        next_page = page.next_page_id
        if met or not next_page:
            break
        try:
            trail.leads_on(page_id, next_page, page.items)
        except PageLoopError as loop:
            raise GapFillFailed(f"cannot read the agent's log: {loop}", lasting=False) from loop
        page_id = next_page
    found.reverse()
    return found


class GapFiller:
    """A stream's gap fills: whether its next connection asks for the whole log instead,
    and the agent's log, read through one client for the stream's lifetime, made into the
    items to yield (``filled``, de-duplicated in order)."""

    def __init__(
        self, endpoint: AgentEndpoint | None, seen: EventDeduper, known: Known | None = None
    ) -> None:
        self.endpoint = endpoint
        self.seen = seen
        self.known = known
        self.limit = GAP_PAGE
        #: gaps are filled from the agent's log (False once it refused: replays then)
        self.usable = endpoint is not None
        self._replay_next = False  # after a fill that failed: the next asks for the log
        self._log: AgentLog | None = None

    def replay(self) -> bool:
        """Whether the next connection asks for the whole log: when nothing is seen or
        known yet, after a fill that failed, or where the agent's log cannot be read."""
        replay = self._replay_next or not self.usable or (self.known is None and not self.seen)
        self._replay_next = False
        return replay

    def failed(self, error: GapFillFailed) -> None:
        """A fill failed: the next connection replays; for good if it will fail again."""
        self.usable = self.usable and not error.lasting
        self._replay_next = True

    async def fill(self, closing: asyncio.Event, *, consumer_reads: bool) -> list[StreamEvent]:
        """The gap's events to yield, oldest first, once the frames handed to a consumer
        that reads them are de-duplicated (none if ``closing`` is set meanwhile). Raises
        :class:`GapFillFailed`."""
        if consumer_reads and not await self.seen.settled(closing):
            return []
        if self._log is None:
            assert self.endpoint is not None
            self._log = AgentLog(self.endpoint, max_retries=2)
        out: list[StreamEvent] = []
        accept = self.seen.accept
        for event, shown in await gap_events(
            self._log.page, self.seen, self.known, limit=self.limit
        ):
            item = accept(event)  # marks it seen, whether it is shown or not
            if item is not None and shown:
                out.append(replace(item, filled=True))
        return out

    async def aclose(self) -> None:
        log, self._log = self._log, None
        if log is not None:
            await log.aclose()


__all__ = ["GAP_PAGE", "GapFillFailed", "GapFiller", "Known", "PageReader", "gap_events"]
