"""``OpenHandsClient``: one typed client for an app server, a bare agent server or a server
that only shares conversations (``kinds.py`` finds out which; ``server_kind=`` forces it).

Each method checks its parameters (see :mod:`.params`) before anything is sent, sends its
request the way the server's kind speaks (``base.py`` dispatch) and turns the JSON into the
models of :mod:`tui.models`. Events always go through ``parse_event`` so nothing is dropped;
control records are open models so new server fields are kept. Ids are untrusted and quoted
before they go into a path. The calls live in mixins, by subject:
``events_api.py``, ``conversations_api.py`` (+ ``start_api.py``), ``sandboxes_api.py``,
``profiles_api.py`` (LLM profiles), ``workspace_api.py`` (a conversation's git changes, diffs, patch and files).
"""

from __future__ import annotations

from .base import segment
from .events_api import EventCalls
from .paging import MAX_EMPTY_PAGES
from .profiles_api import ProfileCalls
from .sandboxes_api import SANDBOX_START_TIMEOUT, SandboxCalls
from .start_api import START_DEADLINE, StartCalls
from .workspace_api import WorkspaceCalls


class OpenHandsClient(EventCalls, StartCalls, SandboxCalls, ProfileCalls, WorkspaceCalls):
    """Async client of one OpenHands server.

    ``OpenHandsClient(url, api_key=…, session_api_key=…, server_kind="auto"|"app"|"agent"|
    "shared", agent_settings=None)``; ``await client.detect()`` → :class:`ServerInfo`
    (``client.kind``, ``client.info``). Every conversation/event call detects lazily, at no
    cost against an app server. ``agent_settings`` (a JSON object) lets
    :meth:`start_agent_conversation` start conversations on a bare agent server.
    """


__all__ = [
    "MAX_EMPTY_PAGES",
    "SANDBOX_START_TIMEOUT",
    "START_DEADLINE",
    "OpenHandsClient",
    "segment",
]
