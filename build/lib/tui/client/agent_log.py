"""The agent server's own log of one conversation, page by page (facts §1c).

Apart from the agent client because the event stream reads it to fill its gaps
(``stream_gap.py``) and the agent client makes streams: each imports this, neither the
other. The sandbox's log is complete where the app server's stored copy may lag by a
webhook batch (facts §1b). Its ``TIMESTAMP`` orders are log order, forward and backward,
whatever the timestamps say; page ids are event ids; null fields are left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from . import params as P
from .endpoints import AgentEndpoint
from .events_api import read_event_page
from .http import HttpCore
from .params import segment

if TYPE_CHECKING:
    from tui.models.pages import EventPage


def agent_http(
    endpoint: AgentEndpoint,
    *,
    timeout: float = 15.0,
    max_retries: int = 3,
    backoff: float = 0.25,
    transport: httpx.AsyncBaseTransport | None = None,
) -> HttpCore:
    """The request core of an agent server: its key in ``X-Session-API-Key``."""
    return HttpCore(
        endpoint.http_base,
        api_key=None,
        session_api_key=endpoint.key,
        timeout=timeout,
        max_retries=max_retries,
        backoff=backoff,
        transport=transport,
    )


def conversation_path(endpoint: AgentEndpoint) -> str:
    return f"/api/conversations/{segment(endpoint.conversation_hex)}"


async def log_page(
    http: HttpCore,
    endpoint: AgentEndpoint,
    *,
    page_id: str | None = None,
    limit: int = 100,
    newest_first: bool = True,
) -> EventPage:
    """One page of the log (newest first unless ``newest_first`` is False)."""
    order = "TIMESTAMP_DESC" if P.check_bool(newest_first, "newest_first") else "TIMESTAMP"
    query: dict[str, Any] = {"sort_order": order, "limit": P.check_limit(limit)}
    page = P.check_optional_id(page_id, "page_id")
    if page is not None:
        query["page_id"] = page
    return await read_event_page(http, f"{conversation_path(endpoint)}/events/search", query)


class AgentLog:
    """A reader of one conversation's log on its agent server (a stream's gap fills)."""

    def __init__(self, endpoint: AgentEndpoint, **options: Any) -> None:
        self.endpoint = endpoint
        self._http = agent_http(endpoint, **options)

    async def page(self, page_id: str | None = None, limit: int = 100) -> EventPage:
        """One page, newest first."""
        return await log_page(self._http, self.endpoint, page_id=page_id, limit=limit)

    async def aclose(self) -> None:
        await self._http.aclose()


__all__ = ["AgentLog", "agent_http", "conversation_path", "log_page"]
