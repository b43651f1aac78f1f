"""Event calls: search, count and get by id, on each kind of server.

| server | search / count | by id |
|---|---|---|
| app | ``/api/v1/conversation/{id}/events/search``, ``kind__eq``, offset page ids | ``?id=`` batch |
| agent | ``/api/conversations/{id}/events/search``, ``kind`` (qualified), event-id page ids | JSON-array batch, else one by one |
| shared | ``/api/shared-events/search?conversation_id=`` | ``?conversation_id=&id=`` |

Page ids are passed through untouched: each server reads its own. Events always go through
``parse_event`` so nothing is dropped, whatever fields a server leaves out.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from httpx import AsyncHTTPTransport

from . import page_fetch
from . import params as P
from .agent_routes import conversations_path, qualified_kind
from .base import ClientBase, segment
from .errors import BadResponse, HTTPStatusError, NotFound, ResponseTooLarge
from .event_walks import EventWalks, Timestamp
from .http import HttpCore
from .kinds import SHARED_EVENTS, ServerKind
from .sizes import fewer_events, size_words

if TYPE_CHECKING:  # the event models load when events are first fetched, not with the client
    from tui.models import EventSortOrder
    from tui.models.pages import EventPage
    from tui.models.parse import AnyEvent

T = TypeVar("T")
log = logging.getLogger("tui.client")

#: What a user reads when a server has no shared conversations, by the kind that answered.
NO_SHARING = {
    ServerKind.APP: "this server does not share conversations (it is a self-hosted app server)",
    ServerKind.AGENT: "this server does not share conversations (it is a bare agent server)",
}


class _NotAPage:
    """What ``_page_or_json`` returns for a JSON body of another shape (the reason kept)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _page_or_json(body: bytes) -> Any:
    """An event page, whatever its events hold (``EventPage.from_bytes``: one bad event is
    a raw row, never the page's loss). A body that is not JSON raises ``ValueError`` (the
    HTTP layer says "response is not JSON"); JSON of another shape comes back as _NotAPage."""
    from tui.models.pages import EventPage, NotAnEventPage

    try:
        return EventPage.from_bytes(body)
    except NotAnEventPage as exc:
        return _NotAPage(str(exc))


async def read_event_page(http: HttpCore, path: str, query: dict[str, Any]) -> EventPage:
    """``GET path?query`` read as an event page (:class:`BadResponse` when it is not one):
    the one reading of a search page, for the app server's client and the agent server's."""
    from tui.models.pages import EventPage

    data = await http.request("GET", path, params=query, parse=_page_or_json)
    if isinstance(data, EventPage):
        return data
    reason = data.reason if isinstance(data, _NotAPage) else "empty body"
    url = f"{http.display_url}{path}"
    raise BadResponse(f"GET {url}: malformed event page ({reason})", method="GET", url=url)


class EventCalls(EventWalks, ClientBase):
    # --- building requests ---------------------------------------------------------------------

    @staticmethod
    def _event_filters(
        kind: Any, timestamp_gte: Any, timestamp_lt: Any, *, agent: bool = False
    ) -> dict[str, Any]:
        name = P.check_kind(kind)
        return P.drop_none(
            {
                "kind" if agent else "kind__eq": qualified_kind(name) if agent else name,
                "timestamp__gte": P.check_timestamp(timestamp_gte, "timestamp_gte"),
                "timestamp__lt": P.check_timestamp(timestamp_lt, "timestamp_lt"),
            }
        )

    def _event_search(
        self,
        route: str,
        conversation_id: Any,
        kind: Any,
        timestamp_gte: Any,
        timestamp_lt: Any,
        sort_order: Any,
        page_id: Any,
        limit: Any,
    ) -> tuple[str, dict[str, Any]]:
        """Check everything and return (path, query) for one search page on ``route``
        ("app", "agent" or "shared")."""
        cid = P.check_id(conversation_id, "conversation_id")
        query = self._event_filters(kind, timestamp_gte, timestamp_lt, agent=route == "agent")
        query["sort_order"] = P.check_sort_order(sort_order)
        query["limit"] = P.check_limit(limit)
        page = P.check_optional_id(page_id, "page_id")
        if page is not None:
            query["page_id"] = page
        if route == "shared":
            return "/api/shared-events/search", {"conversation_id": cid, **query}
        if route == "agent":
            return f"{conversations_path(cid)}/events/search", query
        return f"/api/v1/conversation/{segment(cid)}/events/search", query

    async def _event_page(self, path: str, query: dict[str, Any]) -> EventPage:
        return await read_event_page(self._http, path, query)

    async def _shared(self, call: Any) -> Any:
        """A shared-events call; a 404 means the route is missing: say what the server is."""
        info = self.info
        if info is not None and info.kind is ServerKind.AGENT:
            raise self.unsupported_sharing(info.kind)
        try:
            result = await call()
        except NotFound as exc:
            known = self.info if self._confirmed or self._forced else None
            if known is None:
                known = await self._recheck(exc)
            self._note_capability(SHARED_EVENTS, False)
            if known.kind in NO_SHARING:
                raise self.unsupported_sharing(known.kind) from None
            raise
        self._note_capability(SHARED_EVENTS)
        return result

    def unsupported_sharing(self, kind: ServerKind) -> Any:
        from .errors import Unsupported

        return Unsupported(NO_SHARING[kind], url=self.base_url)

    # --- search --------------------------------------------------------------------------------

    async def search_shared_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        timestamp_lt: Timestamp = None,
        sort_order: EventSortOrder | str = "TIMESTAMP",
        page_id: str | None = None,
        limit: int = 100,
    ) -> EventPage:
        """One page of a shared conversation's events (no credentials needed)."""

        async def ask(size: int) -> EventPage:
            path, query = self._event_search(
                "shared",
                conversation_id,
                kind,
                timestamp_gte,
                timestamp_lt,
                sort_order,
                page_id,
                size,
            )
            return await self._shared(lambda: self._event_page(path, query))

        return await self._in_fewer_events(ask, limit)

    async def search_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        timestamp_lt: Timestamp = None,
        sort_order: EventSortOrder | str = "TIMESTAMP",
        page_id: str | None = None,
        limit: int = 100,
    ) -> EventPage:
        """One page of a conversation's stored events, from whichever kind of server."""
        args = (conversation_id, kind, timestamp_gte, timestamp_lt, sort_order, page_id, limit)
        return await self._searched(self._event_page, args)

    async def search_events_body(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        timestamp_lt: Timestamp = None,
        sort_order: EventSortOrder | str = "TIMESTAMP",
        page_id: str | None = None,
        limit: int = 100,
    ) -> bytes:
        """One page of ``search_events`` as the server sent it, unread: for a reader that
        parses it elsewhere (the index's helper process, ``tui.app.helper.page_worker``). Request
        errors are as ``search_events``'; whether the body is a page is the reader's to find."""
        args = (conversation_id, kind, timestamp_gte, timestamp_lt, sort_order, page_id, limit)
        return await self._searched(self._event_body, args)

    def search_events_request(
        self, conversation_id: str, **search: Any
    ) -> page_fetch.PageRequest | None:
        """``search_events``' pages as a request another process can make (``page_fetch``):
        None until the server's kind is known, for shared links, and where requests go
        through a transport of the caller's (tests' faults, proxies)."""
        info = self.info if self._forced is None else self._info
        core = self._http
        inner = getattr(core.transport, "inner", None)
        if info is None or info.kind is ServerKind.SHARED or type(inner) is not AsyncHTTPTransport:
            return None
        search.setdefault("sort_order", "TIMESTAMP")
        search.setdefault("limit", 100)
        args = [search.get(k) for k in ("kind", "timestamp_gte", "timestamp_lt")]
        args += [search["sort_order"], None, search["limit"]]
        path, query = self._event_search(info.kind.value, conversation_id, *args)
        headers = {"Accept": "application/json", "Accept-Encoding": "gzip, deflate"}
        headers |= core.auth.headers()
        read = core.client.timeout.read or 60.0
        return page_fetch.page_request(
            core.base_url, path, query, headers, read, core.deadline, core.max_body
        )

    async def _searched(self, read: Any, args: tuple[Any, ...]) -> Any:
        """One search page, asked on whichever kind of server this is, read by ``read``
        (typed, or the body as sent); ``args`` end with the page's size."""

        async def ask(size: int) -> Any:
            routes = {
                r: self._event_search(r, *args[:-1], size) for r in ("app", "agent", "shared")
            }
            return await self._dispatch(
                "it has no event search",
                app=lambda: read(*routes["app"]),
                agent=lambda: read(*routes["agent"]),
                shared=lambda: read(*routes["shared"]),
            )

        return await self._in_fewer_events(ask, args[-1])

    async def _in_fewer_events(self, ask: Callable[[int], Awaitable[T]], limit: int) -> T:
        """``ask(limit)``, and while its answer is too large to read, ``ask`` again for
        fewer events (:func:`~.sizes.fewer_events`): a page of a hundred outputs of
        megabytes comes as pages of a few, each page id saying where the next starts. One
        event too large on its own is the error it is."""
        limit = P.check_limit(limit)
        while True:
            try:
                return await ask(limit)
            except ResponseTooLarge as exc:
                if limit <= 1:
                    raise
                fewer = fewer_events(limit, exc.size, exc.limit)
                told = size_words(exc.size) if exc.size else "over " + size_words(exc.limit)
                log.info(
                    "a page of %d events was too large to read (%s): asking for %d",
                    limit,
                    told,
                    fewer,
                )
                limit = fewer

    async def _event_body(self, path: str, query: dict[str, Any]) -> bytes:
        data = await self._http.request("GET", path, params=query, parse=bytes)
        if not isinstance(data, bytes):
            raise self._bad("GET", path, "malformed event page (empty body)")
        return data

    async def search_events_raw(
        self,
        conversation_id: str,
        *,
        shared: bool = False,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        sort_order: EventSortOrder | str = "TIMESTAMP",
        page_id: str | None = None,
        limit: int = 100,
    ) -> tuple[list[Any], str | None]:
        """One page as ``search_events`` (or ``search_shared_events``) reads it, untyped:
        ``(events, next_page_id)``, each event a dict of its JSON fields, anything that is
        not an object a ``RawEvent`` (``raw_pages``). For readers of plain fields."""

        async def ask(size: int) -> Any:
            args = (conversation_id, kind, timestamp_gte, None, sort_order, page_id, size)
            routes = {r: self._event_search(r, *args) for r in ("app", "agent", "shared")}
            if shared:
                return await self._shared(lambda: self._raw_event_page(*routes["shared"]))
            return await self._dispatch(
                "it has no event search",
                app=lambda: self._raw_event_page(*routes["app"]),
                agent=lambda: self._raw_event_page(*routes["agent"]),
                shared=lambda: self._raw_event_page(*routes["shared"]),
            )

        page = await self._in_fewer_events(ask, limit)
        return page.items, page.next_page_id

    async def _raw_event_page(self, path: str, query: dict[str, Any]) -> Any:
        from .raw_pages import RawPage, raw_page

        data = await self._http.request("GET", path, params=query, parse=raw_page)
        if isinstance(data, RawPage):
            return data
        reason = getattr(data, "reason", None) or "empty body"
        raise self._bad("GET", path, f"malformed event page ({reason})")

    # --- count ---------------------------------------------------------------------------------

    async def count_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        timestamp_lt: Timestamp = None,
    ) -> int:
        cid = P.check_id(conversation_id, "conversation_id")
        app_path = f"/api/v1/conversation/{segment(cid)}/events/count"
        agent_path = f"{conversations_path(cid)}/events/count"
        app_query = self._event_filters(kind, timestamp_gte, timestamp_lt)
        agent_query = self._event_filters(kind, timestamp_gte, timestamp_lt, agent=True)

        async def app() -> int:
            return self._count(await self._get(app_path, app_query), "GET", app_path)

        async def agent() -> int:
            return self._count(await self._get(agent_path, agent_query), "GET", agent_path)

        async def shared() -> int:
            return await self.count_shared_events(
                cid, kind=kind, timestamp_gte=timestamp_gte, timestamp_lt=timestamp_lt
            )

        return await self._dispatch("it counts no events", app=app, agent=agent, shared=shared)

    async def count_shared_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        timestamp_lt: Timestamp = None,
    ) -> int:
        """Count of a shared conversation's events; unlike search it includes non-viewable ones."""
        cid = P.check_id(conversation_id, "conversation_id")
        path = "/api/shared-events/count"
        query = {"conversation_id": cid, **self._event_filters(kind, timestamp_gte, timestamp_lt)}

        async def call() -> int:
            return self._count(await self._get(path, query), "GET", path)

        return await self._shared(call)

    # --- by id ---------------------------------------------------------------------------------

    async def _events_by_id(
        self, path: str, query: dict[str, Any], count: int
    ) -> list[AnyEvent | None]:
        data = await self._get(path, query)
        return self._parse_events(data, count, path)

    def _parse_events(self, data: Any, count: int, path: str) -> list[AnyEvent | None]:
        self._check_list(data, count, "GET", path)
        from tui.models.parse import parse_event

        return [None if item is None else parse_event(item) for item in data]

    async def _agent_events_by_id(self, cid: str, wanted: list[str]) -> list[AnyEvent | None]:
        """The agent server's batch is a GET with a JSON array body; a server without it
        is asked one id at a time (404 = no such event)."""
        path = f"{conversations_path(cid)}/events"
        try:
            data = await self._http.request("GET", path, json=wanted)
        except HTTPStatusError as exc:
            if exc.status not in (404, 405, 422):
                raise
        else:
            return self._parse_events(data, len(wanted), path)
        from tui.models.parse import parse_event

        out: list[AnyEvent | None] = []
        for event_id in wanted:
            try:
                item = await self._get(f"{path}/{segment(event_id)}")
            except NotFound:
                item = None
            out.append(None if item is None else parse_event(item))
        return out

    async def get_events(self, conversation_id: str, ids: Sequence[str]) -> list[AnyEvent | None]:
        """Events by id, in the order asked; None where the server has no such event."""
        cid = P.check_id(conversation_id, "conversation_id")
        wanted = P.check_ids(ids, "event ids")
        if not wanted:
            return []
        app_path = f"/api/v1/conversation/{segment(cid)}/events"
        return await self._dispatch(
            "it has no events by id",
            app=lambda: self._events_by_id(app_path, {"id": wanted}, len(wanted)),
            agent=lambda: self._agent_events_by_id(cid, wanted),
            shared=lambda: self.get_shared_events(cid, wanted),
        )

    async def get_shared_events(
        self, conversation_id: str, ids: Sequence[str]
    ) -> list[AnyEvent | None]:
        """Shared events by id; None for missing or non-viewable ones."""
        cid = P.check_id(conversation_id, "conversation_id")
        wanted = P.check_ids(ids, "event ids")
        if not wanted:
            return []
        query = {"conversation_id": cid, "id": wanted}
        return await self._shared(
            lambda: self._events_by_id("/api/shared-events", query, len(wanted))
        )


__all__ = ["NO_SHARING", "EventCalls"]
