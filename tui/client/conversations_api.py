"""Conversation calls: list, count, get, start, rename, on an app or a bare agent server.

On an agent server the same calls map to ``/api/conversations/…`` and its records become
``AppConversation`` s (``agent_routes.py``); the filters an agent server lacks (title, dates)
are applied here, across as many of its pages as it takes to fill the page asked for.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from tui.models import (
    AppConversation,
    AppConversationPage,
    AppConversationStartTask,
    StartTaskStatus,
)

from . import kinds
from . import params as P
from .agent_routes import (
    ConversationFilter,
    check_title,
    conversation_record,
    conversations_path,
    is_uuid,
    secret_values,
    start_request,
)
from .base import ClientBase, segment
from .errors import (
    InvalidParameter,
    OpenHandsError,
    StartTaskFailed,
    StartTaskTimeout,
    is_retryable,
)
from .kinds import ServerInfo, ServerKind

log = logging.getLogger("tui.client")

Timestamp = datetime | str | None

#: How long ``create_conversation`` follows a start task by default: the real app server
#: allows the sandbox alone 120 s, then sets up the repository, scripts and skills.
START_DEADLINE = 600.0
#: After this many seconds of waiting, the start task is asked every ``SLOW_POLL`` seconds.
SLOW_AFTER = 10.0
SLOW_POLL = 2.0

NO_TASKS = (
    "it starts conversations from agent settings, not start tasks "
    "(OpenHandsClient.start_agent_conversation)"
)
NO_LISTING = "it serves shared conversations only; open one by its id"


class ConversationCalls(ClientBase):
    # --- filters -------------------------------------------------------------------------------

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

    @staticmethod
    def _agent_filter(query: dict[str, Any]) -> ConversationFilter:
        return ConversationFilter(
            title_contains=query.get("title__contains"),
            created_at_gte=query.get("created_at__gte"),
            created_at_lt=query.get("created_at__lt"),
            updated_at_gte=query.get("updated_at__gte"),
            updated_at_lt=query.get("updated_at__lt"),
            sandbox_id=query.get("sandbox_id__eq"),
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

    # --- agent-server records ------------------------------------------------------------------

    def _record(self, data: Any, method: str, path: str) -> AppConversation:
        if not isinstance(data, dict):
            raise self._bad(
                method, path, f"expected a conversation object, got {type(data).__name__}"
            )
        try:
            return conversation_record(data, self._http.base_url, self._http.auth.session_api_key)
        except (ValueError, ValidationError) as exc:
            raise self._bad(method, path, f"unexpected conversation shape ({exc})") from None

    async def _agent_search(self, query: dict[str, Any]) -> AppConversationPage:
        """A page of up to ``limit`` matches, walking the server's pages (each asked for no
        more than is still missing, so its ``next_page_id`` is where the next call goes on)."""
        path = f"{conversations_path()}/search"
        wanted = self._agent_filter(query)
        limit = query["limit"]
        page_id = query.get("page_id")
        seen: set[str] = set() if page_id is None else {page_id}
        found: list[AppConversation] = []
        while True:
            ask: dict[str, Any] = {"limit": limit - len(found)}
            if page_id is not None:
                ask["page_id"] = page_id
            data = await self._get(path, ask)
            if not isinstance(data, dict) or not isinstance(data.get("items"), list):
                raise self._bad("GET", path, "expected a conversation page")
            for item in data["items"]:
                record = self._record(item, "GET", path)
                if wanted(record):
                    found.append(record)
            next_page = data.get("next_page_id")
            page_id = next_page if isinstance(next_page, str) and next_page else None
            if page_id is None or len(found) >= limit or not wanted.active:
                return AppConversationPage(items=found, next_page_id=page_id)
            if page_id in seen:
                raise self._loop_error(path, page_id, f"page id {page_id!r} came back; stopping")
            seen.add(page_id)

    # --- list, count, get ----------------------------------------------------------------------

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
        """One page of conversations, newest first (the server's fixed order).

        An agent server lists every conversation it holds (sub-conversations included);
        the filters are applied by the client there."""
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

        async def app() -> AppConversationPage:
            return self._model(AppConversationPage, await self._get(path, query), "GET", path)

        return await self._dispatch(NO_LISTING, app=app, agent=lambda: self._agent_search(query))

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

        async def app() -> int:
            return self._count(await self._get(path, query), "GET", path)

        async def agent() -> int:
            if not self._agent_filter(query).active:
                route = f"{conversations_path()}/count"
                return self._count(await self._get(route), "GET", route)
            total = 0
            page: str | None = None
            while True:  # no server-side filters: count the matches page by page
                result = await self._agent_search({**query, "limit": P.MAX_LIMIT, "page_id": page})
                total += len(result.items)
                page = result.next_page_id
                if page is None:
                    return total

        return await self._dispatch(NO_LISTING, app=app, agent=agent)

    async def get_conversations(self, ids: Sequence[str]) -> list[AppConversation | None]:
        """Batch get (fewer than 100 ids); None where the id is unknown."""
        wanted = P.check_ids(ids, "conversation ids", P.MAX_CONVERSATION_BATCH)
        if not wanted:
            return []
        path = "/api/v1/app-conversations"

        async def app() -> list[AppConversation | None]:
            data = await self._get(path, {"ids": wanted})
            return self._batch(AppConversation, data, len(wanted), "GET", path)

        async def agent() -> list[AppConversation | None]:
            asked = [cid for cid in dict.fromkeys(wanted) if is_uuid(cid)]  # others: unknown
            route = conversations_path()
            data = await self._get(route, {"ids": asked}) if asked else []
            self._check_list(data, len(asked), "GET", route)
            records = {
                cid: None if item is None else self._record(item, "GET", route)
                for cid, item in zip(asked, data)
            }
            return [records.get(cid) for cid in wanted]

        return await self._dispatch(NO_LISTING, app=app, agent=agent)

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
        path = "/api/v1/app-conversations/search"

        async def fetch(page: str | None) -> tuple[AppConversationPage, str | None]:
            result = await self.search_conversations(
                title_contains=title_contains,
                created_at_gte=created_at_gte,
                created_at_lt=created_at_lt,
                updated_at_gte=updated_at_gte,
                updated_at_lt=updated_at_lt,
                sandbox_id=sandbox_id,
                include_sub_conversations=include_sub_conversations,
                page_id=page,
                limit=limit,
            )
            return result, result.next_page_id

        async def items() -> AsyncIterator[AppConversation]:
            async for page in self._follow(path, query.get("page_id"), fetch):
                for item in page.items:
                    yield item

        return items()

    # --- rename --------------------------------------------------------------------------------

    async def rename_conversation(self, conversation_id: str, title: str) -> AppConversation:
        """Set a conversation's title (``PATCH``); returns the conversation as it now is.

        Repeating it is harmless, so it is retried like a read."""
        cid = P.check_id(conversation_id, "conversation_id")
        if not isinstance(title, str) or not title.strip():
            raise InvalidParameter("a title must be a non-empty string")
        app_path = f"/api/v1/app-conversations/{segment(cid)}"
        agent_path = conversations_path(cid)

        async def app() -> AppConversation:
            data = await self._http.request(
                "PATCH", app_path, json={"title": title}, idempotent=True
            )
            return self._model(AppConversation, data, "PATCH", app_path)

        async def agent() -> AppConversation:
            body = {"title": check_title(title)}
            await self._http.request("PATCH", agent_path, json=body, idempotent=True)
            return self._record(await self._get(agent_path), "GET", agent_path)

        return await self._dispatch("it cannot rename conversations", app=app, agent=agent)

    # --- start (app server: start tasks) -------------------------------------------------------

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

        async def app() -> AppConversationStartTask:
            data = await self._http.request(
                "POST",
                path,
                json=body,
                idempotent=False,
                unknown="The server may have started the conversation: refresh the list to see.",
            )
            return self._model(AppConversationStartTask, data, "POST", path)

        return await self._dispatch(NO_TASKS, app=app)

    async def get_start_tasks(self, ids: Sequence[str]) -> list[AppConversationStartTask | None]:
        wanted = P.check_ids(ids, "start task ids")
        if not wanted:
            return []
        path = "/api/v1/app-conversations/start-tasks"

        async def app() -> list[AppConversationStartTask | None]:
            data = await self._get(path, {"ids": wanted})
            return self._batch(AppConversationStartTask, data, len(wanted), "GET", path)

        return await self._dispatch(NO_TASKS, app=app)

    async def create_conversation(
        self,
        request: dict[str, Any] | None = None,
        *,
        poll_interval: float = 0.5,
        timeout: float = START_DEADLINE,
        on_progress: Callable[[AppConversationStartTask], Any] | None = None,
        **fields: Any,
    ) -> AppConversationStartTask:
        """Start a conversation and follow its start task until READY (or ERROR).

        ``on_progress`` (plain or async) sees the task whenever its status changes; polls
        that fail for a passing reason (5xx, dropped connection) are shrugged off while the
        server works. ERROR raises :class:`StartTaskFailed` with the server's ``detail``;
        passing ``timeout`` (10 minutes by default) raises :class:`StartTaskTimeout`; both
        carry the last task. A ``title`` the server ignored is applied once READY (PATCH).
        Cancelling stops the waiting only: the server goes on starting the conversation.
        """
        if not isinstance(poll_interval, (int, float)) or poll_interval < 0:
            raise InvalidParameter("poll_interval must be a non-negative number of seconds")
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise InvalidParameter("timeout must be a positive number of seconds")
        loop = asyncio.get_running_loop()
        started = loop.time()
        task = await self.start_conversation(request, **fields)
        last_status: Any = object()
        while True:
            status = getattr(task.status, "value", task.status)
            if status != last_status:
                last_status = status
                if on_progress is not None:
                    result = on_progress(task)
                    if inspect.isawaitable(result):
                        await result
            if status == StartTaskStatus.READY.value:
                break
            if status == StartTaskStatus.ERROR.value:
                shown = self._redacted_task(task)
                detail = f": {shown.detail}" if shown.detail else ""
                raise StartTaskFailed(
                    f"The server could not start the conversation{detail}",
                    task=shown,
                    detail=shown.detail,
                )
            waited = loop.time() - started
            remaining = timeout - waited
            if remaining <= 0:
                shown = self._redacted_task(task)
                raise StartTaskTimeout(
                    f"The conversation was still starting after {timeout:g} s "
                    f"(last status {status}); the server may finish it: refresh to see.",
                    task=shown,
                )
            interval = poll_interval if waited < SLOW_AFTER else max(poll_interval, SLOW_POLL)
            await asyncio.sleep(min(interval, remaining))
            try:
                found = (await self.get_start_tasks([task.id]))[0]
            except OpenHandsError as exc:
                if not is_retryable(exc):
                    raise
                log.info("start task %s: poll failed, still waiting: %s", task.id, exc)
                continue
            if found is not None:  # a store may not show a brand-new task yet: keep waiting
                task = found
        title = fields.get("title", (request or {}).get("title"))
        if isinstance(title, str) and title.strip() and task.app_conversation_id:
            await self._apply_title(task.app_conversation_id, title)
        return task

    async def _apply_title(self, conversation_id: str, title: str) -> None:
        """The real app server ignores the title sent at creation: set it afterwards."""
        try:
            found = (await self.get_conversations([conversation_id]))[0]
            if found is not None and found.title == title:
                return
            await self.rename_conversation(conversation_id, title)
        except OpenHandsError as exc:  # the conversation exists: a title is not worth failing
            log.warning("conversation %s: the title was not applied: %s", conversation_id, exc)
            self._note_capability(kinds.RENAME, False)

    def _redacted_task(self, task: AppConversationStartTask) -> AppConversationStartTask:
        """The task as an exception may carry it: server text echoing a key is masked."""
        data = self._http.redact_data(task.model_dump(mode="json"))
        try:
            return AppConversationStartTask.model_validate(data)
        except ValidationError:
            return task

    # --- agent server: start, server info ------------------------------------------------------

    async def start_agent_conversation(
        self,
        settings: dict[str, Any] | None = None,
        message: str | None = None,
        title: str | None = None,
    ) -> AppConversation:
        """Start a conversation on a bare agent server (``POST /api/conversations``).

        ``settings``: the user's agent settings (default: the client's ``agent_settings``),
        see :func:`~tui.client.agent_routes.start_request`; ``message`` is sent as the first
        user message and run; ``title`` is set right after (PATCH). The client picks the
        conversation id, so the POST is safely repeated after a dropped connection.
        """
        chosen = settings if settings is not None else self.agent_settings
        if chosen is None:
            info = self.info or kinds.base_info(ServerKind.AGENT)
            raise self.unsupported(info, "it needs agent settings to start a conversation")
        body = start_request(chosen, message)
        if title is not None:
            check_title(title)
        self._http.add_secrets(secret_values(chosen))
        path = conversations_path()

        async def agent() -> AppConversation:
            data = await self._http.request(
                "POST",
                path,
                json=body,
                idempotent=True,  # same conversation_id: the server answers the one it made
                timeout=max(self._http.client.timeout.read or 0, 120.0),
            )
            record = self._record(data, "POST", path)
            if title is None:
                return record
            await self._http.request(
                "PATCH", conversations_path(record.id), json={"title": title}, idempotent=True
            )
            return record.model_copy(update={"title": title})

        return await self._dispatch(
            "it starts conversations through start tasks (create_conversation)", agent=agent
        )

    async def server_info(self) -> ServerInfo:
        """An agent server's ``/server_info`` (version, uptime, tools, workspace…), fresh."""

        async def agent() -> ServerInfo:
            data = await self._get(kinds.AGENT_PROBE)
            if not kinds.looks_like_agent(data):
                raise self._bad("GET", kinds.AGENT_PROBE, "not an agent server's /server_info")
            return self._settle(kinds.agent_info(data, agent_settings=bool(self.agent_settings)))

        return await self._dispatch("it has no /server_info", agent=agent)


__all__ = ["START_DEADLINE", "ConversationCalls"]
