"""The agent server of one conversation: the control calls it accepts, and its log.

Where it is (:class:`AgentEndpoint`, :func:`agent_endpoint`) is ``endpoints.py``, named here
too. :class:`AgentServerClient` sends the control calls (pause, run, interrupt, message,
confirmation answer) and reads the log's pages (a stream's gap fill) with the key in
``X-Session-API-Key``, through the same request core as :class:`~tui.client.OpenHandsClient`
(error classes, redaction, retry policy).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Self

import httpx

from . import params as P
from .agent_acting import AgentActing
from .agent_log import agent_http, conversation_path, log_page
from .endpoints import (
    AgentEndpoint,
    ResendMode,
    agent_endpoint,
    endpoint_from_url,
    websocket_url,
)
from .errors import BadResponse, InvalidParameter

if TYPE_CHECKING:
    from tui.models.pages import EventPage

    from .stream import EventStream

DEFAULT_REJECTION_REASON = "User rejected the action."


class AgentServerClient(AgentActing):
    """Control calls of one conversation on its agent server (``/api/conversations/<id>/…``).

    Every call returns the server's ``success`` flag (``{"success": true}`` on the real
    server) and raises the client's usual errors: 401/403 :class:`AuthError`, 404
    :class:`NotFound`, 409 :class:`Conflict` (``run`` while already running), 5xx
    :class:`ServerError`, transport failures :class:`ConnectionLost`/:class:`RequestTimeout`.
    ``pause`` and ``interrupt`` are repeated after a timeout or dropped connection (doing them
    twice is harmless); ``run``, ``send_message`` and ``respond_to_confirmation`` are not.
    """

    def __init__(
        self,
        endpoint: AgentEndpoint,
        *,
        timeout: float = 15.0,
        max_retries: int = 3,
        backoff: float = 0.25,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not isinstance(endpoint, AgentEndpoint):
            raise InvalidParameter(
                f"endpoint must be an AgentEndpoint, got {type(endpoint).__name__}"
            )
        self.endpoint = endpoint
        self._http = agent_http(
            endpoint, timeout=timeout, max_retries=max_retries, backoff=backoff, transport=transport
        )
        self._path = conversation_path(endpoint)

    @classmethod
    def for_conversation(cls, app_base_url: str | None, conversation: Any, **options: Any) -> Self:
        """Build from an ``AppConversation`` (see :func:`agent_endpoint`)."""
        return cls(agent_endpoint(app_base_url, conversation), **options)

    # --- lifetime ------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return self._http.display_url

    @property
    def conversation_id(self) -> str:
        return self.endpoint.conversation_hex

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return (
            f"AgentServerClient(base_url={self.base_url!r}, "
            f"conversation={self.conversation_id!r}, auth={self._http.auth.describe()!r})"
        )

    # --- calls ---------------------------------------------------------------------------------

    async def _post(
        self, suffix: str, body: Any = None, *, idempotent: bool, unknown: str | None = None
    ) -> bool:
        path = f"{self._path}{suffix}"
        data = await self._http.request(
            "POST", path, json=body, idempotent=idempotent, unknown=unknown
        )
        if data is None:
            return True
        if isinstance(data, dict):
            value = data.get("success", True)
            if isinstance(value, bool):
                return value
        url = f"{self.base_url}{path}"
        raise BadResponse(f'POST {url}: expected {{"success": true|false}}', method="POST", url=url)

    async def pause(self) -> bool:
        """Pause the agent after its current step; watch ``execution_status`` for ``paused``."""
        return await self._post("/pause", idempotent=True)

    async def interrupt(self) -> bool:
        """Cancel the in-flight LLM call; the conversation becomes ``paused``."""
        return await self._post("/interrupt", idempotent=True)

    async def run(self) -> bool:
        """Start (or resume) the agent; :class:`Conflict` (409) when it is already running."""
        return await self._post(
            "/run",
            idempotent=False,
            unknown="The agent may have started running: watch the conversation before "
            "running it again.",
        )

    async def send_message(self, text: str, *, run: bool = True) -> bool:
        """Append a user message; with ``run`` (the default) the agent runs on it."""
        body = {"role": "user", "content": [{"type": "text", "text": _check_text(text)}]}
        body["run"] = P.check_bool(run, "run")
        return await self._post(
            "/events",
            body,
            idempotent=False,
            unknown="The message may have reached the agent: check the conversation before "
            "sending it again.",
        )

    async def respond_to_confirmation(
        self, accept: bool, reason: str = DEFAULT_REJECTION_REASON
    ) -> bool:
        """Answer a ``waiting_for_confirmation`` conversation: run the pending action(s) or
        reject them (the agent receives a ``UserRejectObservation`` carrying ``reason``)."""
        if not isinstance(reason, str):
            raise InvalidParameter(f"reason must be a string, got {type(reason).__name__}")
        body = {"accept": P.check_bool(accept, "accept"), "reason": reason}
        return await self._post(
            "/events/respond_to_confirmation",
            body,
            idempotent=False,
            unknown="The agent may have received your answer: check the conversation before "
            "answering again.",
        )

    async def search_events(
        self, *, page_id: str | None = None, limit: int = 100, newest_first: bool = True
    ) -> EventPage:
        """One page of the conversation's log as its agent server keeps it (``agent_log.py``):
        in log order, newest first unless ``newest_first`` is False; page ids are event ids."""
        return await log_page(
            self._http, self.endpoint, page_id=page_id, limit=limit, newest_first=newest_first
        )

    # --- live stream ---------------------------------------------------------------------------

    def websocket_url(
        self,
        *,
        resend_mode: ResendMode | None = "all",
        after_timestamp: datetime | str | None = None,
        include_key: bool = False,
    ) -> str:
        """The event socket URL (see :func:`websocket_url`); keyless unless ``include_key``."""
        return websocket_url(
            self.endpoint,
            resend_mode=resend_mode,
            after_timestamp=after_timestamp,
            include_key=include_key,
        )

    def event_stream(self, **options: Any) -> EventStream:
        """A reconnecting :class:`~tui.client.stream.EventStream` of this conversation."""
        from .stream import EventStream

        return EventStream(self.endpoint, **options)


def _check_text(text: Any) -> str:
    if not isinstance(text, str):
        raise InvalidParameter(f"message text must be a string, got {type(text).__name__}")
    if not text.strip():
        raise InvalidParameter("message text is empty")
    return text


__all__ = [
    "AgentEndpoint",
    "AgentServerClient",
    "agent_endpoint",
    "endpoint_from_url",
    "websocket_url",
]
