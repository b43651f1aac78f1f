"""Where one conversation's agent server is: its HTTP base and its event socket, derived
from what the app server hands out.

The app server hands out ``AppConversation.conversation_url`` (the agent server's
``…/api/conversations/<id>``, absolute, or relative in Docker proxy mode) and
``session_api_key`` (facts §2). :func:`agent_endpoint` derives from them both the HTTP base
and the websocket URL the web frontend would use:
``ws(s)://<host><path prefix before /api/conversations>/sockets/events/<id>``.
Apart from the agent client because the event stream needs the endpoint and not the client.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from urllib.parse import urlencode

import httpx

from tui.models.redact import mask_url

from . import params as P
from .errors import InvalidParameter
from .keys import check_key
from .params import segment

API_MARKER = "/api/conversations/"
SOCKET_PATH = "/sockets/events/"
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
    key = check_key(key, "session_api_key")
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


def endpoint_from_ws_url(ws_url: str, key: str | None = None) -> AgentEndpoint | None:
    """The endpoint of an event socket URL (``ws(s)://<host><prefix>/sockets/events/<id>``,
    no query): where its agent server's HTTP calls go. None for a URL of another shape."""
    try:
        url = httpx.URL(ws_url)
    except (TypeError, httpx.InvalidURL):
        return None
    at = url.path.rfind(SOCKET_PATH)
    conversation = url.path[at + len(SOCKET_PATH) :].strip("/") if at >= 0 else ""
    if url.scheme not in ("ws", "wss") or not url.host or not conversation or "/" in conversation:
        return None
    root = url.copy_with(
        scheme="https" if url.scheme == "wss" else "http",
        path=url.path[:at] or "/",
        query=None,
        fragment=None,
    )
    return AgentEndpoint(
        http_base=str(root).rstrip("/"),
        ws_url=str(url.copy_with(query=None, fragment=None)),
        conversation_hex=conversation,
        key=check_key(key, "session_api_key"),
    )
