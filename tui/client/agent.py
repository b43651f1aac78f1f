"""The agent server of one conversation: where it is, and the control calls it accepts.

The app server hands out ``AppConversation.conversation_url`` (the agent server's
``…/api/conversations/<id>``, absolute, or relative in Docker proxy mode) and
``session_api_key`` (facts §2). :func:`agent_endpoint` derives from them both the HTTP base
and the websocket URL the web frontend would use:
``ws(s)://<host><path prefix before /api/conversations>/sockets/events/<id>``.

:class:`AgentServerClient` sends the control calls (pause, run, interrupt, message,
confirmation answer) with the key in ``X-Session-API-Key``, through the same request core as
:class:`~tui.client.OpenHandsClient` (error classes, redaction, retry policy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Self
from urllib.parse import urlencode

import httpx

from tui.models.redact import mask_url

from . import params as P
from .base import segment
from .errors import BadResponse, InvalidParameter
from .http import HttpCore, _check_key

if TYPE_CHECKING:
    from .stream import EventStream

API_MARKER = "/api/conversations/"
SOCKET_PATH = "/sockets/events/"
DEFAULT_REJECTION_REASON = "User rejected the action."
ResendMode = Literal["all", "since"]


@dataclass(frozen=True)
class AgentEndpoint:
    """Where one conversation's agent server is and how to authenticate to it.

    ``http_base`` is the agent server root (scheme, host, port and any proxy prefix, no
    trailing slash); ``ws_url`` the event socket without a query string;
    ``conversation_hex`` the id segment exactly as the server's URL spells it. The key is
    left out of ``repr()``.
    """

    http_base: str
    ws_url: str
    conversation_hex: str
    key: str | None = field(default=None, repr=False)

    @property
    def conversation_url(self) -> str:
        return f"{self.http_base}{API_MARKER}{segment(self.conversation_hex)}"


def _url_of(value: Any, what: str) -> httpx.URL:
    try:
        return httpx.URL(value)
    except (TypeError, httpx.InvalidURL) as exc:
        raise InvalidParameter(f"{what} is not a valid URL ({type(exc).__name__})") from None


def endpoint_from_url(
    conversation_url: str, key: str | None = None, *, app_base_url: str | None = None
) -> AgentEndpoint:
    """Derive an :class:`AgentEndpoint` from a ``conversation_url`` (see :func:`agent_endpoint`)."""
    if not isinstance(conversation_url, str) or not conversation_url.strip():
        raise InvalidParameter("the conversation has no conversation_url (is its sandbox running?)")
    key = _check_key(key, "session_api_key")
    text = conversation_url.strip()
    if text.startswith("/") and not text.startswith("//"):
        # Docker proxy mode: the path is served by the app server's own host (facts §2).
        if not app_base_url:
            raise InvalidParameter(
                "conversation_url is relative; the app server base URL is needed to resolve it"
            )
        base = _url_of(app_base_url, "app_base_url")
        if base.scheme not in ("http", "https") or not base.host:
            raise InvalidParameter(
                f"app_base_url must be an http(s) URL, got {mask_url(str(base))!r}"
            )
        url = base.join(text)
    else:
        url = _url_of(text, "conversation_url")
    if url.scheme not in ("http", "https") or not url.host:
        raise InvalidParameter(
            f"conversation_url must be an http(s) URL or an absolute path, "
            f"got {mask_url(str(url.copy_with(query=None)))!r}"
        )
    path = url.path
    at = path.rfind(API_MARKER)
    conversation = path[at + len(API_MARKER) :].strip("/").split("/")[0] if at >= 0 else ""
    if not conversation:
        raise InvalidParameter(
            "conversation_url does not end in /api/conversations/<id>: "
            f"{mask_url(str(url.copy_with(query=None, fragment=None)))!r}"
        )
    prefix = path[:at].rstrip("/")
    root = url.copy_with(
        path=prefix or "/", query=None, fragment=None, username=None, password=None
    )
    http_base = str(root).rstrip("/")
    ws_scheme = "wss" if url.scheme == "https" else "ws"
    ws = root.copy_with(scheme=ws_scheme, path=f"{prefix}{SOCKET_PATH}{conversation}")
    return AgentEndpoint(
        http_base=http_base, ws_url=str(ws), conversation_hex=conversation, key=key
    )


def agent_endpoint(app_base_url: str | None, conversation: Any) -> AgentEndpoint:
    """The agent-server endpoint of an ``AppConversation`` (or anything with
    ``conversation_url`` and ``session_api_key``; a dict works too).

    Absolute URLs are used as they are; a relative one (``/agent/<sandbox>/api/…``) is
    resolved against ``app_base_url``'s scheme and host. ``http`` becomes ``ws`` and
    ``https`` becomes ``wss``. Raises :class:`InvalidParameter` when the conversation has no
    URL or the URL does not name a conversation.
    """
    if isinstance(conversation, dict):
        url = conversation.get("conversation_url")
        key = conversation.get("session_api_key")
    else:
        url = getattr(conversation, "conversation_url", None)
        key = getattr(conversation, "session_api_key", None)
    return endpoint_from_url(url, key, app_base_url=app_base_url)


def websocket_url(
    endpoint: AgentEndpoint,
    *,
    resend_mode: ResendMode | None = "all",
    after_timestamp: datetime | str | None = None,
    include_key: bool = False,
) -> str:
    """The event socket URL with its query. ``include_key`` puts the key in the query (the
    web frontend's way): such a URL is a secret and must not be logged or shown."""
    query: dict[str, str] = {}
    if resend_mode == "since":
        after = P.check_timestamp(after_timestamp, "after_timestamp")
        if after is None:
            raise InvalidParameter("resend_mode='since' needs after_timestamp")
        query["resend_mode"] = "since"
        query["after_timestamp"] = after
    elif resend_mode == "all":
        query["resend_mode"] = "all"
    elif resend_mode is not None:
        raise InvalidParameter(f"resend_mode must be 'all', 'since' or None, got {resend_mode!r}")
    if include_key and endpoint.key:
        query["session_api_key"] = endpoint.key
    return f"{endpoint.ws_url}?{urlencode(query)}" if query else endpoint.ws_url


class AgentServerClient:
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
        self._http = HttpCore(
            endpoint.http_base,
            api_key=None,
            session_api_key=endpoint.key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            transport=transport,
        )
        self._path = f"/api/conversations/{segment(endpoint.conversation_hex)}"

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
