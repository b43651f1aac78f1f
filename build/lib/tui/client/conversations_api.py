"""Conversation calls: list, count, get and rename, on an app or a bare agent server.

On an agent server the same calls map to ``/api/conversations/…`` and its records become
``AppConversation`` s (``agent_routes.py``); the filters an agent server lacks (title, dates)
are applied here, across as many of its pages as it takes to fill the page asked for.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from tui.models import AppConversation, AppConversationPage

from . import params as P
from .agent_routes import (
    ConversationFilter,
    check_title,
    conversation_record,
    conversations_path,
    is_uuid,
)
from .base import ClientBase, segment
from .errors import InvalidParameter
from .paging import PageTrail, PageWalk

Timestamp = datetime | str | None

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
        trail = PageTrail(method="GET", url=f"{self.base_url}{path}")
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
            asked, page_id = (
                page_id,
                next_page if isinstance(next_page, str) and next_page else None,
            )
            if page_id is None or len(found) >= limit or not wanted.active:
                return AppConversationPage(items=found, next_page_id=page_id)
            trail.leads_on(asked, page_id, data["items"])

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
            search = f"{self.base_url}{conversations_path()}/search"
            walk = PageWalk(trail=PageTrail(method="GET", url=search))
            while not walk.done:  # no server-side filters: count the matches page by page
                ask = {**query, "limit": P.MAX_LIMIT, "page_id": walk.page_id}
                result = await self._agent_search(ask)
                total += len(result.items)
                walk.moved(result.next_page_id, result.items)
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


__all__ = ["ConversationCalls"]
