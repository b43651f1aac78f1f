"""``OpenHandsClient``: typed calls for the app server's V1 control plane and event search.

Each method checks its parameters (see :mod:`.params`), sends one request through
:class:`~.http.HttpCore` and turns the JSON into the models of :mod:`tui.models`. Events always
go through ``parse_event`` so nothing is dropped; control records are open models so new
server fields are kept. Ids are untrusted and quoted before they go into a path.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Self, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from tui.models import (
    AppConversation,
    AppConversationPage,
    AppConversationStartTask,
    EventSortOrder,
    SandboxInfo,
    SandboxPage,
    SandboxSpecInfo,
    SandboxSpecPage,
    StartTaskStatus,
)

if TYPE_CHECKING:  # the event models load when events are first fetched, not with the client
    from tui.models.pages import EventPage
    from tui.models.parse import AnyEvent

from . import params as P
from .errors import BadResponse, InvalidParameter, PageLoopError, StartTaskFailed, StartTaskTimeout
from .http import HttpCore

M = TypeVar("M", bound=BaseModel)
Timestamp = datetime | str | None

#: Consecutive empty pages that still point at a next page before paging is declared stuck.
MAX_EMPTY_PAGES = 50


def segment(value: str) -> str:
    """Quote one path segment; ``.``/``..`` are escaped too, or URL normalisation would eat them."""
    quoted = quote(value, safe="")
    if quoted in (".", ".."):
        quoted = quoted.replace(".", "%2E")
    return quoted


def _status_value(status: Any) -> str:
    return getattr(status, "value", status)


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


class OpenHandsClient:
    """Async client of one OpenHands-style server (app server, or agent server routes)."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        session_api_key: str | None = None,
        timeout: float = 15.0,
        max_retries: int = 3,
        transport: httpx.AsyncBaseTransport | None = None,
        backoff: float = 0.25,
    ) -> None:
        self._http = HttpCore(
            base_url,
            api_key=api_key,
            session_api_key=session_api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            transport=transport,
        )

    # --- lifetime ------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The server address (credentials in it, if any, masked)."""
        return self._http.display_url

    def set_credentials(
        self, *, api_key: str | None = None, session_api_key: str | None = None
    ) -> None:
        """Replace both keys (None clears one), e.g. after the user re-enters them."""
        from .http import KeyAuth

        auth = KeyAuth(api_key, session_api_key)
        self._http.auth.api_key = auth.api_key
        self._http.auth.session_api_key = auth.session_api_key

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"OpenHandsClient(base_url={self.base_url!r}, auth={self._http.auth.describe()!r})"

    # --- helpers -------------------------------------------------------------------------------

    async def _get(self, path: str, params: Any = None) -> Any:
        return await self._http.request("GET", path, params=params)

    def _bad(self, method: str, path: str, what: str) -> BadResponse:
        url = f"{self.base_url}{path}"
        return BadResponse(f"{method} {url}: {what}", method=method, url=url)

    def _model(self, cls: type[M], data: Any, method: str, path: str) -> M:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            # Inputs are left out: a record may hold a session key.
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(body)'}: {e['msg']}"
                for e in exc.errors(include_url=False, include_input=False)[:5]
            )
            raise self._bad(method, path, f"unexpected {cls.__name__} shape ({problems})") from None

    def _batch(self, cls: type[M], data: Any, count: int, method: str, path: str) -> list[M | None]:
        if not isinstance(data, list):
            raise self._bad(method, path, f"expected a JSON array, got {type(data).__name__}")
        if len(data) != count:
            raise self._bad(method, path, f"asked for {count} item(s), got {len(data)}")
        return [None if item is None else self._model(cls, item, method, path) for item in data]

    def _count(self, data: Any, method: str, path: str) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            raise self._bad(method, path, f"expected an integer count, got {type(data).__name__}")
        return data

    def _success(self, data: Any, method: str, path: str) -> bool:
        if data is None:
            return True
        if isinstance(data, dict):
            value = data.get("success", True)
            if isinstance(value, bool):
                return value
        raise self._bad(method, path, 'expected {"success": true|false}')

    # --- events --------------------------------------------------------------------------------

    @staticmethod
    def _event_filters(kind: Any, timestamp_gte: Any, timestamp_lt: Any) -> dict[str, Any]:
        return P.drop_none(
            {
                "kind__eq": P.check_kind(kind),
                "timestamp__gte": P.check_timestamp(timestamp_gte, "timestamp_gte"),
                "timestamp__lt": P.check_timestamp(timestamp_lt, "timestamp_lt"),
            }
        )

    def _event_search(
        self,
        conversation_id: Any,
        shared: bool,
        kind: Any,
        timestamp_gte: Any,
        timestamp_lt: Any,
        sort_order: Any,
        page_id: Any,
        limit: Any,
    ) -> tuple[str, dict[str, Any]]:
        """Check everything and return (path, query) for one search page."""
        cid = P.check_id(conversation_id, "conversation_id")
        query = self._event_filters(kind, timestamp_gte, timestamp_lt)
        query["sort_order"] = P.check_sort_order(sort_order)
        query["limit"] = P.check_limit(limit)
        page = P.check_optional_id(page_id, "page_id")
        if page is not None:
            query["page_id"] = page
        if shared:
            return "/api/shared-events/search", {"conversation_id": cid, **query}
        return f"/api/v1/conversation/{segment(cid)}/events/search", query

    async def _event_page(self, path: str, query: dict[str, Any]) -> EventPage:
        from tui.models.pages import EventPage

        data = await self._http.request("GET", path, params=query, parse=_page_or_json)
        if isinstance(data, EventPage):
            return data
        reason = data.reason if isinstance(data, _NotAPage) else "empty body"
        raise self._bad("GET", path, f"malformed event page ({reason})")

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
        path, query = self._event_search(
            conversation_id, True, kind, timestamp_gte, timestamp_lt, sort_order, page_id, limit
        )
        return await self._event_page(path, query)

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
        """One page of a conversation's stored events (``/api/v1/conversation/…``, singular)."""
        path, query = self._event_search(
            conversation_id, False, kind, timestamp_gte, timestamp_lt, sort_order, page_id, limit
        )
        return await self._event_page(path, query)

    async def count_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: Timestamp = None,
        timestamp_lt: Timestamp = None,
    ) -> int:
        cid = P.check_id(conversation_id, "conversation_id")
        path = f"/api/v1/conversation/{segment(cid)}/events/count"
        data = await self._get(path, self._event_filters(kind, timestamp_gte, timestamp_lt))
        return self._count(data, "GET", path)

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
        return self._count(await self._get(path, query), "GET", path)

    async def _events_by_id(
        self, path: str, query: dict[str, Any], count: int
    ) -> list[AnyEvent | None]:
        data = await self._get(path, query)
        if not isinstance(data, list):
            raise self._bad("GET", path, f"expected a JSON array, got {type(data).__name__}")
        if len(data) != count:
            raise self._bad("GET", path, f"asked for {count} event(s), got {len(data)}")
        from tui.models.parse import parse_event

        return [None if item is None else parse_event(item) for item in data]

    async def get_events(self, conversation_id: str, ids: Sequence[str]) -> list[AnyEvent | None]:
        """Events by id, in the order asked; None where the server has no such event."""
        cid = P.check_id(conversation_id, "conversation_id")
        wanted = P.check_ids(ids, "event ids")
        if not wanted:
            return []
        path = f"/api/v1/conversation/{segment(cid)}/events"
        return await self._events_by_id(path, {"id": wanted}, len(wanted))

    async def get_shared_events(
        self, conversation_id: str, ids: Sequence[str]
    ) -> list[AnyEvent | None]:
        """Shared events by id; None for missing or non-viewable ones."""
        cid = P.check_id(conversation_id, "conversation_id")
        wanted = P.check_ids(ids, "event ids")
        if not wanted:
            return []
        return await self._events_by_id(
            "/api/shared-events", {"conversation_id": cid, "id": wanted}, len(wanted)
        )

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

        Parameters are checked now, before iteration starts; a page id seen twice raises
        :class:`PageLoopError` rather than looping forever.
        """
        P.check_bool(shared, "shared")
        path, query = self._event_search(
            conversation_id, shared, kind, timestamp_gte, timestamp_lt, sort_order, page_id, limit
        )

        async def fetch(page: str | None) -> tuple[EventPage, str | None]:
            q = dict(query)
            q.pop("page_id", None)
            if page is not None:
                q["page_id"] = page
            result = await self._event_page(path, q)
            return result, result.next_page_id

        return self._follow(path, query.get("page_id"), fetch)

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

    async def _follow(
        self,
        path: str,
        first: str | None,
        fetch: Callable[[str | None], Awaitable[tuple[Any, str | None]]],
    ) -> AsyncIterator[Any]:
        seen: set[str] = set() if first is None else {first}
        page_id = first
        empty = 0
        while True:
            page, next_page = await fetch(page_id)
            yield page
            if next_page is None:
                return
            if next_page in seen:
                raise PageLoopError(
                    f"GET {self.base_url}{path}: the server returned page id {next_page!r} again; "
                    "stopping instead of looping forever",
                    method="GET",
                    url=f"{self.base_url}{path}",
                    page_id=next_page,
                )
            empty = empty + 1 if not getattr(page, "items", None) else 0
            if empty >= MAX_EMPTY_PAGES:
                raise PageLoopError(
                    f"GET {self.base_url}{path}: {empty} empty pages in a row that each point "
                    "to another page; stopping",
                    method="GET",
                    url=f"{self.base_url}{path}",
                    page_id=next_page,
                )
            seen.add(next_page)
            page_id = next_page

    # --- app conversations ---------------------------------------------------------------------

    @staticmethod
    def _conversation_filters(
        title_contains: Any,
        created_at_gte: Any,
        created_at_lt: Any,
        updated_at_gte: Any,
        updated_at_lt: Any,
        sandbox_id: Any,
    ) -> dict[str, Any]:
        return P.drop_none(
            {
                "title__contains": P.check_text(title_contains, "title_contains"),
                "created_at__gte": P.check_timestamp(created_at_gte, "created_at_gte"),
                "created_at__lt": P.check_timestamp(created_at_lt, "created_at_lt"),
                "updated_at__gte": P.check_timestamp(updated_at_gte, "updated_at_gte"),
                "updated_at__lt": P.check_timestamp(updated_at_lt, "updated_at_lt"),
                "sandbox_id__eq": P.check_optional_id(sandbox_id, "sandbox_id"),
            }
        )

    def _conversation_query(
        self,
        title_contains: Any,
        created_at_gte: Any,
        created_at_lt: Any,
        updated_at_gte: Any,
        updated_at_lt: Any,
        sandbox_id: Any,
        include_sub_conversations: Any,
        page_id: Any,
        limit: Any,
    ) -> dict[str, Any]:
        query = self._conversation_filters(
            title_contains, created_at_gte, created_at_lt, updated_at_gte, updated_at_lt, sandbox_id
        )
        if P.check_bool(include_sub_conversations, "include_sub_conversations"):
            query["include_sub_conversations"] = True
        query["limit"] = P.check_limit(limit)
        page = P.check_optional_id(page_id, "page_id")
        if page is not None:
            query["page_id"] = page
        return query

    async def search_conversations(
        self,
        *,
        title_contains: str | None = None,
        created_at_gte: Timestamp = None,
        created_at_lt: Timestamp = None,
        updated_at_gte: Timestamp = None,
        updated_at_lt: Timestamp = None,
        sandbox_id: str | None = None,
        include_sub_conversations: bool = False,
        page_id: str | None = None,
        limit: int = 100,
    ) -> AppConversationPage:
        """One page of app conversations, newest first (the server's fixed order)."""
        query = self._conversation_query(
            title_contains,
            created_at_gte,
            created_at_lt,
            updated_at_gte,
            updated_at_lt,
            sandbox_id,
            include_sub_conversations,
            page_id,
            limit,
        )
        path = "/api/v1/app-conversations/search"
        return self._model(AppConversationPage, await self._get(path, query), "GET", path)

    async def count_conversations(
        self,
        *,
        title_contains: str | None = None,
        created_at_gte: Timestamp = None,
        created_at_lt: Timestamp = None,
        updated_at_gte: Timestamp = None,
        updated_at_lt: Timestamp = None,
        sandbox_id: str | None = None,
    ) -> int:
        query = self._conversation_filters(
            title_contains, created_at_gte, created_at_lt, updated_at_gte, updated_at_lt, sandbox_id
        )
        path = "/api/v1/app-conversations/count"
        return self._count(await self._get(path, query), "GET", path)

    async def get_conversations(self, ids: Sequence[str]) -> list[AppConversation | None]:
        """Batch get (fewer than 100 ids); None where the id is unknown."""
        wanted = P.check_ids(ids, "conversation ids", P.MAX_CONVERSATION_BATCH)
        if not wanted:
            return []
        path = "/api/v1/app-conversations"
        return self._batch(
            AppConversation, await self._get(path, {"ids": wanted}), len(wanted), "GET", path
        )

    def iter_conversations(
        self,
        *,
        title_contains: str | None = None,
        created_at_gte: Timestamp = None,
        created_at_lt: Timestamp = None,
        updated_at_gte: Timestamp = None,
        updated_at_lt: Timestamp = None,
        sandbox_id: str | None = None,
        include_sub_conversations: bool = False,
        page_id: str | None = None,
        limit: int = 100,
    ) -> AsyncIterator[AppConversation]:
        query = self._conversation_query(
            title_contains,
            created_at_gte,
            created_at_lt,
            updated_at_gte,
            updated_at_lt,
            sandbox_id,
            include_sub_conversations,
            page_id,
            limit,
        )
        return self._iter_items("/api/v1/app-conversations/search", query, AppConversationPage)

    async def start_conversation(
        self, request: dict[str, Any] | None = None, **fields: Any
    ) -> AppConversationStartTask:
        """POST an ``AppConversationStartRequest``; the start goes on in the background.

        Not retried after it may have reached the server: a repeat would start a second one.
        """
        if request is not None and not isinstance(request, dict):
            raise InvalidParameter(f"request must be a dict, got {type(request).__name__}")
        body = {**(request or {}), **fields}
        path = "/api/v1/app-conversations"
        data = await self._http.request("POST", path, json=body, idempotent=False)
        return self._model(AppConversationStartTask, data, "POST", path)

    async def get_start_tasks(self, ids: Sequence[str]) -> list[AppConversationStartTask | None]:
        wanted = P.check_ids(ids, "start task ids")
        if not wanted:
            return []
        path = "/api/v1/app-conversations/start-tasks"
        data = await self._get(path, {"ids": wanted})
        return self._batch(AppConversationStartTask, data, len(wanted), "GET", path)

    async def create_conversation(
        self,
        request: dict[str, Any] | None = None,
        *,
        poll_interval: float = 0.5,
        timeout: float = 120.0,
        on_progress: Callable[[AppConversationStartTask], Any] | None = None,
        **fields: Any,
    ) -> AppConversationStartTask:
        """Start a conversation and wait for its start task to reach READY.

        ``on_progress`` (plain or async) sees the task whenever its status changes. ERROR
        raises :class:`StartTaskFailed`; running out of ``timeout`` raises
        :class:`StartTaskTimeout`. Both carry the last task.
        """
        if not isinstance(poll_interval, (int, float)) or poll_interval < 0:
            raise InvalidParameter("poll_interval must be a non-negative number of seconds")
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise InvalidParameter("timeout must be a positive number of seconds")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        task = await self.start_conversation(request, **fields)
        last_status: Any = object()
        while True:
            status = _status_value(task.status)
            if status != last_status:
                last_status = status
                if on_progress is not None:
                    result = on_progress(task)
                    if inspect.isawaitable(result):
                        await result
            if status == StartTaskStatus.READY.value:
                return task
            if status == StartTaskStatus.ERROR.value:
                shown = self._redacted_task(task)
                detail = f": {shown.detail}" if shown.detail else ""
                raise StartTaskFailed(
                    f"conversation start task {shown.id} failed{detail}",
                    task=shown,
                    detail=shown.detail,
                )
            remaining = deadline - loop.time()
            if remaining <= 0:
                shown = self._redacted_task(task)
                raise StartTaskTimeout(
                    f"conversation start task {shown.id} not READY after {timeout:g}s "
                    f"(last status {status})",
                    task=shown,
                )
            await asyncio.sleep(min(poll_interval, remaining))
            found = (await self.get_start_tasks([task.id]))[0]
            if found is not None:  # a store may not show a brand-new task yet: keep waiting
                task = found

    def _redacted_task(self, task: AppConversationStartTask) -> AppConversationStartTask:
        """The task as an exception may carry it: server text echoing a key is masked."""
        data = self._http.redact_data(task.model_dump(mode="json"))
        try:
            return AppConversationStartTask.model_validate(data)
        except ValidationError:
            return task

    # --- sandboxes -----------------------------------------------------------------------------

    def _page_query(self, page_id: Any, limit: Any) -> dict[str, Any]:
        query: dict[str, Any] = {"limit": P.check_limit(limit)}
        page = P.check_optional_id(page_id, "page_id")
        if page is not None:
            query["page_id"] = page
        return query

    async def search_sandboxes(
        self, *, page_id: str | None = None, limit: int = 100
    ) -> SandboxPage:
        path = "/api/v1/sandboxes/search"
        query = self._page_query(page_id, limit)
        return self._model(SandboxPage, await self._get(path, query), "GET", path)

    def iter_sandboxes(
        self, *, page_id: str | None = None, limit: int = 100
    ) -> AsyncIterator[SandboxInfo]:
        return self._iter_items(
            "/api/v1/sandboxes/search", self._page_query(page_id, limit), SandboxPage
        )

    async def get_sandboxes(self, ids: Sequence[str]) -> list[SandboxInfo | None]:
        wanted = P.check_ids(ids, "sandbox ids")
        if not wanted:
            return []
        path = "/api/v1/sandboxes"
        return self._batch(
            SandboxInfo, await self._get(path, {"id": wanted}), len(wanted), "GET", path
        )

    async def start_sandbox(self, spec_id: str | None = None) -> SandboxInfo:
        """Start a sandbox from a spec (the server's default spec when None)."""
        query = P.drop_none({"sandbox_spec_id": P.check_optional_id(spec_id, "spec_id")})
        path = "/api/v1/sandboxes"
        data = await self._http.request("POST", path, params=query, idempotent=False)
        return self._model(SandboxInfo, data, "POST", path)

    async def pause_sandbox(self, sandbox_id: str) -> bool:
        """Ask for a pause; returns at once, poll the sandbox to see PAUSED. Safe to repeat."""
        sid = P.check_id(sandbox_id, "sandbox_id")
        path = f"/api/v1/sandboxes/{segment(sid)}/pause"
        return self._success(await self._http.request("POST", path, idempotent=True), "POST", path)

    async def resume_sandbox(self, sandbox_id: str) -> bool:
        """Ask for a resume; returns at once, poll the sandbox to see RUNNING. Safe to repeat."""
        sid = P.check_id(sandbox_id, "sandbox_id")
        path = f"/api/v1/sandboxes/{segment(sid)}/resume"
        return self._success(await self._http.request("POST", path, idempotent=True), "POST", path)

    async def delete_sandbox(self, sandbox_id: str) -> bool:
        """DELETE with the id both in the path and as ``?sandbox_id=``: servers read one or the other.

        Not repeated after a timeout: had the first attempt landed, the repeat would answer
        404 and report a failure for a delete that happened.
        """
        sid = P.check_id(sandbox_id, "sandbox_id")
        path = f"/api/v1/sandboxes/{segment(sid)}"
        data = await self._http.request(
            "DELETE", path, params={"sandbox_id": sid}, idempotent=False
        )
        return self._success(data, "DELETE", path)

    # --- sandbox specs -------------------------------------------------------------------------

    async def search_sandbox_specs(
        self, *, page_id: str | None = None, limit: int = 100
    ) -> SandboxSpecPage:
        path = "/api/v1/sandbox-specs/search"
        query = self._page_query(page_id, limit)
        return self._model(SandboxSpecPage, await self._get(path, query), "GET", path)

    def iter_sandbox_specs(
        self, *, page_id: str | None = None, limit: int = 100
    ) -> AsyncIterator[SandboxSpecInfo]:
        return self._iter_items(
            "/api/v1/sandbox-specs/search", self._page_query(page_id, limit), SandboxSpecPage
        )

    async def get_sandbox_specs(self, ids: Sequence[str]) -> list[SandboxSpecInfo | None]:
        wanted = P.check_ids(ids, "sandbox spec ids")
        if not wanted:
            return []
        path = "/api/v1/sandbox-specs"
        return self._batch(
            SandboxSpecInfo, await self._get(path, {"id": wanted}), len(wanted), "GET", path
        )

    # --- agent-server routes -------------------------------------------------------------------

    async def validate_profile(
        self, name: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Pre-flight check of a named LLM profile (``{"llm": {...}}`` body on the real server)."""
        profile = P.check_id(name, "name")
        if body is not None and not isinstance(body, dict):
            raise InvalidParameter(f"body must be a dict, got {type(body).__name__}")
        path = f"/api/profiles/{segment(profile)}/validate"
        data = await self._http.request("POST", path, json=body or {}, idempotent=False)
        if not isinstance(data, dict):
            raise self._bad("POST", path, "expected a JSON object")
        return data

    async def create_directory(self, path: str) -> dict[str, Any]:
        """Create a directory in the agent server's file area.

        The path goes both as ``?path=`` (the real agent server's declared parameter) and as a
        JSON body ``{"path": ...}`` (the documented shape); each server reads its own.
        """
        target = P.check_id(path, "path")
        route = "/api/file/create_directory"
        data = await self._http.request(
            "POST", route, params={"path": target}, json={"path": target}, idempotent=False
        )
        if data is None:
            return {"success": True}
        if not isinstance(data, dict):
            raise self._bad("POST", route, "expected a JSON object")
        return data

    # --- paging of control records -------------------------------------------------------------

    def _iter_items(
        self, path: str, query: dict[str, Any], page_cls: type[Any]
    ) -> AsyncIterator[Any]:
        async def fetch(page: str | None) -> tuple[Any, str | None]:
            q = dict(query)
            q.pop("page_id", None)
            if page is not None:
                q["page_id"] = page
            result = self._model(page_cls, await self._get(path, q), "GET", path)
            return result, result.next_page_id

        async def items() -> AsyncIterator[Any]:
            async for page in self._follow(path, query.get("page_id"), fetch):
                for item in page.items:
                    yield item

        return items()
