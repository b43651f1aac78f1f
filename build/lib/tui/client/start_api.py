"""Starting conversations: the app server's start tasks, a bare agent server's settings.

An app server starts a conversation in the background and reports a start task's status
(WORKING → WAITING_FOR_SANDBOX → … → READY or ERROR); the real one needs up to two minutes
for the sandbox alone, so :meth:`StartCalls.create_conversation` follows the task for up to
ten minutes, and cancelling it stops only the waiting. A bare agent server starts one at
once from the user's agent settings (:meth:`StartCalls.start_agent_conversation`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from tui.models import AppConversation, AppConversationStartTask, StartTaskStatus

from . import kinds
from . import params as P
from .agent_routes import check_title, conversations_path, secret_values, start_request
from .conversations_api import ConversationCalls
from .errors import (
    InvalidParameter,
    OpenHandsError,
    StartTaskFailed,
    StartTaskTimeout,
    is_retryable,
)
from .kinds import ServerInfo, ServerKind

log = logging.getLogger("tui.client")

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


class StartCalls(ConversationCalls):
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
            status = str(task.status)
            if status != last_status:
                last_status = status
                if on_progress is not None:
                    result = on_progress(task)
                    if inspect.isawaitable(result):
                        await result
            if status == StartTaskStatus.READY:
                break
            if status == StartTaskStatus.ERROR:
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


__all__ = ["START_DEADLINE", "StartCalls"]
