"""One walk through a server's pages, and one guard against a page cursor that loops.

A walk asks each page by the id the last one gave (``next_page_id``), until there is none.
A hostile or broken server can keep it going for ever in three ways, each stopped here with
:class:`~tui.client.errors.PageLoopError`:

- the next id is one already followed, or the page's own (a cycle of ids);
- the server ignores the id and sends a page it sent before under a new next id. Ids alone
  catch that only when every page has the same size; a first page sized to the screen, or
  pages sized down after heavy events, change the next id with the size. So a page is also
  a repeat when it starts as an earlier page of the same walk started: the same items (id
  and time) in the same order, as far as both go (up to :data:`COMPARED`). Two events may
  carry one id, so one item is not enough: it takes the same run at the start of a page;
- endless empty pages, each naming another (:data:`MAX_EMPTY_PAGES` in a row).

:class:`PageTrail` is the guard; :class:`PageWalk` is a walk's cursor with its guard, taken
one page at a time so that a page that fails can be asked for again (through
``backoff.outlast``) without starting over. Every walk of the client (``base._follow``:
export, conversations, sandboxes; the agent server's filtered search and count; the agent
log's gap fill), the insights, the board's listing, the helper's walk ahead and the event
store's windows (one trail per end) use these. Plain Python, no I/O: the helper process
imports it without httpx.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from .errors import PageLoopError

#: Items at each page's start kept and compared: a run this long repeated exactly at two
#: page starts is a page sent twice, not two events that share an id.
COMPARED = 4
#: Empty pages in a row that each point to another page before the walk gives up.
MAX_EMPTY_PAGES = 50

Mark = Callable[[Any], Hashable]


def event_mark(item: Any) -> Hashable:
    """What tells one event (or row) of a page from another: its id and time, from a
    model's attributes or a raw event's keys (not trusted to be hashable there)."""
    if isinstance(item, dict):
        found = item.get("id"), item.get("timestamp")
    else:
        found = getattr(item, "id", None), getattr(item, "timestamp", None)
    return tuple(v if v is None or isinstance(v, str) else repr(v) for v in found)


class PageTrail:
    """The pages one walk has taken: their ids, how they began (with ``mark``: what tells
    items apart; None compares ids only) and how many empty ones came in a row.

    ``method`` and ``url`` go into the error, for a walk of the client's own."""

    __slots__ = ("_empty", "_ids", "_mark", "_method", "_starts", "_url")

    def __init__(
        self, mark: Mark | None = None, *, method: str | None = None, url: str | None = None
    ) -> None:
        self._mark = mark
        self._method, self._url = method, url
        self._ids: set[str] = set()
        # a page's first item → how that page began (one per first item: a second page
        # starting with it that is not a repeat differs within COMPARED items)
        self._starts: dict[Hashable, tuple[Hashable, ...]] = {}
        self._empty = 0

    def repeated(self, asked: str | None, items: Sequence[Any]) -> None:
        """Raise if the page asked as ``asked`` (None: the first) is one sent before;
        otherwise remember how it began. Before its items are used."""
        start = self._start(items)
        self._check_start(asked, start)
        self._remember_start(start)

    def leads_on(self, asked: str | None, next_page: str | None, items: Sequence[Any]) -> None:
        """Raise if the page asked as ``asked`` names a page already followed (or itself),
        or ends too long a run of empty pages; otherwise remember it. After its items are
        used: what it held is new, only where it leads is not."""
        empty = self._check_next(asked, next_page, items)
        self._remember_page(asked, empty)

    def check(self, asked: str | None, next_page: str | None, items: Sequence[Any]) -> None:
        """Both, before the page is used (a walk that keeps nothing of a page that leads
        back); nothing is remembered of a page that raises."""
        start = self._start(items)
        empty = self._check_next(asked, next_page, items)
        self._check_start(asked, start)
        self._remember_start(start)
        self._remember_page(asked, empty)

    def _start(self, items: Sequence[Any]) -> tuple[Hashable, ...]:
        mark = self._mark
        return () if mark is None else tuple(mark(item) for item in items[:COMPARED])

    def _check_start(self, asked: str | None, start: tuple[Hashable, ...]) -> None:
        earlier = self._starts.get(start[0]) if start else None
        if earlier is not None:
            both = min(len(earlier), len(start))
            if earlier[:both] == start[:both]:
                raise self._error("The server sent a page it had sent before", asked)

    def _remember_start(self, start: tuple[Hashable, ...]) -> None:
        if start:
            self._starts[start[0]] = start

    def _check_next(self, asked: str | None, next_page: str | None, items: Sequence[Any]) -> int:
        """The run of empty pages this page makes (raises where it leads back)."""
        if next_page is None:
            return 0
        if next_page == asked or next_page in self._ids:
            raise self._error(
                f"The server's next page id {next_page!r} repeats an earlier one", next_page
            )
        empty = 0 if items else self._empty + 1
        if empty >= MAX_EMPTY_PAGES:
            raise self._error(f"{empty} empty pages in a row each point to another page", next_page)
        return empty

    def _remember_page(self, asked: str | None, empty: int) -> None:
        self._empty = empty
        if asked is not None:
            self._ids.add(asked)

    def _error(self, what: str, page_id: str | None) -> PageLoopError:
        where = f"{self._method} {self._url}: " if self._url else ""
        return PageLoopError(
            f"{where}{what}; paging stopped.", page_id=page_id, method=self._method, url=self._url
        )


class PageWalk:
    """One walk's cursor: the page it asks for next (:attr:`page_id`, None for the first),
    whether it has ended (:attr:`done`) and its :class:`PageTrail`. A page is taken in two
    steps, :meth:`arrived` before its items are used and :meth:`moved` after, so a page
    that fails to arrive leaves the walk where it was."""

    __slots__ = ("done", "page_id", "pages", "trail")

    def __init__(self, first: str | None = None, trail: PageTrail | None = None) -> None:
        self.page_id = first
        self.done = False
        self.pages = 0  # pages taken
        self.trail = trail if trail is not None else PageTrail()

    def arrived(self, items: Sequence[Any]) -> None:
        """The page asked for came with ``items``: raises if it is one sent before."""
        self.trail.repeated(self.page_id, items)

    def moved(self, next_page: str | None, items: Sequence[Any]) -> None:
        """The page's items were used: on to ``next_page`` (None: the walk is done), or
        :class:`PageLoopError` if it leads back (the walk stays on this page)."""
        self.trail.leads_on(self.page_id, next_page, items)
        self.pages += 1
        if next_page is None:
            self.done = True
        else:
            self.page_id = next_page


__all__ = ["COMPARED", "MAX_EMPTY_PAGES", "PageTrail", "PageWalk", "event_mark"]
