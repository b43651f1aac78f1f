"""What kind of OpenHands server a base URL is, found by a cheap probe and remembered.

Three kinds speak the same conversation/event API to ohtui (``CLIENT-CONTRACT.md``): the app
server (``/api/v1/…``: cloud, self-hosted ``openhands-ai``, the reference server), a bare
agent server (``/api/conversations/…``, ``/server_info``; what SDK users run) and a server
that only serves shared conversations (``/api/shared-events/…``). A server that answered is
never reported as unreachable: the probe says which routes answered 404.

Results are cached per base URL for the life of the process (:func:`remember`,
:func:`cached`, :func:`forget`); a client treats a cached kind as a hint that its first
route-level 404 re-checks, so a port reused by another kind of server is not misread.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from tui.models.redact import redact

from .errors import (
    AuthError,
    BadResponse,
    HTTPStatusError,
    InvalidParameter,
    NotFound,
    OpenHandsError,
)

# --- kinds and what they can do --------------------------------------------------------------


class ServerKind(StrEnum):
    APP = "app"
    AGENT = "agent"
    SHARED = "shared"


#: Capability names (``ServerInfo.capabilities``).
SANDBOXES = "sandboxes"
START_TASKS = "start_tasks"
START_CONVERSATION = "start_conversation"
SERVER_INFO = "server_info"
SHARED_EVENTS = "shared_events"
RENAME = "rename"
#: a bare agent server's routes (every agent server OpenAPI in ../shared has them; an app
#: server has neither): issue 30
FORK = "fork"
NAVIGATE = "navigate"
#: the server's own name (``/server_info`` ``capabilities``, 1.58): ``GET …/runtime`` and
#: ``POST …/runtime/reprovision`` (issue 30 item 6)
RUNTIME = "conversation_runtime_routes_v1"

APP_CAPABILITIES = frozenset({SANDBOXES, START_TASKS, START_CONVERSATION, RENAME})
AGENT_CAPABILITIES = frozenset({SERVER_INFO, RENAME, FORK, NAVIGATE})
SHARED_CAPABILITIES = frozenset({SHARED_EVENTS})

#: How each kind is named in a sentence.
KIND_NAMES = {
    ServerKind.APP: "an OpenHands app server",
    ServerKind.AGENT: "a bare agent server",
    ServerKind.SHARED: "a shared-conversations server",
}

#: ``/server_info`` keys shown as details (anything secret-named is masked regardless).
_INFO_FIELDS = ("title", "version")
_SKIP_DETAILS = frozenset({"docs", "redoc"})


@dataclass(frozen=True)
class ServerInfo:
    """What the probe learned; shown in the header and in ``ohtui info``."""

    kind: ServerKind
    version: str | None = None
    title: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    capabilities: frozenset[str] = frozenset()

    def can(self, capability: str) -> bool:
        return capability in self.capabilities

    def with_capability(self, capability: str, present: bool = True) -> ServerInfo:
        caps = self.capabilities | {capability} if present else self.capabilities - {capability}
        return replace(self, capabilities=frozenset(caps))

    def describe(self) -> str:
        """``a bare agent server (OpenHands Agent Server 1.58.2)``: for sentences."""
        name = KIND_NAMES[self.kind]
        label = " ".join(part for part in (self.title, self.version) if part)
        return f"{name} ({label})" if label else name


def parse_kind(value: Any) -> ServerKind | None:
    """``"auto"``/None → None (detect); a kind name (any case) → the kind; else an error."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "auto")):
        return None
    if isinstance(value, ServerKind):
        return value
    if isinstance(value, str):
        try:
            return ServerKind(value.strip().lower())
        except ValueError:
            pass
    raise InvalidParameter(f"server_kind must be auto, app, agent or shared, got {value!r}")


def base_info(kind: ServerKind, *, agent_settings: bool = False) -> ServerInfo:
    """What is known of a kind before (or without) asking the server."""
    if kind is ServerKind.APP:
        return ServerInfo(kind, capabilities=APP_CAPABILITIES)
    if kind is ServerKind.AGENT:
        caps = AGENT_CAPABILITIES | ({START_CONVERSATION} if agent_settings else set())
        return ServerInfo(kind, title="OpenHands Agent Server", capabilities=frozenset(caps))
    return ServerInfo(kind, capabilities=SHARED_CAPABILITIES)


def agent_info(data: Mapping[str, Any], *, agent_settings: bool = False) -> ServerInfo:
    """A ``ServerInfo`` from an agent server's ``/server_info`` body."""
    info = base_info(ServerKind.AGENT, agent_settings=agent_settings)
    details = {
        key: value
        for key, value in redact(dict(data)).items()
        if key not in _INFO_FIELDS and key not in _SKIP_DETAILS
    }
    version = data.get("version")
    title = data.get("title")
    declared = data.get("capabilities")  # what the server says it can do, by its names
    if isinstance(declared, list):
        named = {c for c in declared if isinstance(c, str)}
        info = replace(info, capabilities=info.capabilities | named)
    return replace(
        info,
        version=version if isinstance(version, str) and version else None,
        title=title if isinstance(title, str) and title else info.title,
        details=details,
    )


def looks_like_agent(data: Any) -> bool:
    """An agent server's ``/server_info``: a JSON object with ``uptime`` or ``version``."""
    return isinstance(data, dict) and ("uptime" in data or "version" in data)


# --- the per-process cache -------------------------------------------------------------------

_CACHE: dict[str, ServerInfo] = {}


def cached(base_url: str) -> ServerInfo | None:
    return _CACHE.get(base_url)


def remember(base_url: str, info: ServerInfo) -> None:
    _CACHE[base_url] = info


def forget(base_url: str | None = None) -> None:
    """Drop one URL's entry (or all of them)."""
    if base_url is None:
        _CACHE.clear()
    else:
        _CACHE.pop(base_url, None)


# --- probing ---------------------------------------------------------------------------------

APP_PROBE = "/api/v1/app-conversations/count"
AGENT_PROBE = "/server_info"
SHARED_PROBE = "/api/shared-events/search"
#: A well-formed id no conversation has: the real shared search 500s on a non-UUID.
NO_CONVERSATION = str(uuid.UUID(int=0))


async def _ask(http: Any, path: str, params: Any = None) -> tuple[bool, Any]:
    """``(True, body)`` when ``path`` answered 2xx JSON, ``(False, why)`` when it did not
    exist there (404/405, or a body that is not JSON). Other errors propagate."""
    try:
        return True, await http.request("GET", path, params=params)
    except NotFound:
        return False, f"404 on {path}"
    except BadResponse:
        return False, f"no JSON from {path}"
    except HTTPStatusError as exc:
        if exc.status == 405:
            return False, f"405 on {path}"
        raise


async def probe(http: Any, *, agent_settings: bool = False) -> ServerInfo:
    """Ask the server what it is (see the module doc). ``http`` is an ``HttpCore``.

    One request against an app server, two against an agent server, three for a shared
    one. 401/403 on the app route is an app server that wants a key (:class:`AuthError`
    reaches the caller, as any call's would); connection failures propagate unchanged; an
    app route failing with 5xx is reported as such when nothing else answers either.
    """
    missing: list[str] = []
    app_error: OpenHandsError | None = None
    try:
        found, why = await _ask(http, APP_PROBE)
    except AuthError:
        remember(http.base_url, base_info(ServerKind.APP))
        raise
    except HTTPStatusError as exc:  # 5xx: maybe an app server in trouble; look further
        found, why, app_error = False, f"{exc.status} on {APP_PROBE}", exc
    if found:
        return _found(http, base_info(ServerKind.APP))
    missing.append(why)
    try:
        found, data = await _ask(http, AGENT_PROBE)
    except AuthError:
        # an agent server that keeps /server_info private (older releases): still an agent
        return _found(http, base_info(ServerKind.AGENT, agent_settings=agent_settings))
    if found and looks_like_agent(data):
        return _found(http, agent_info(data, agent_settings=agent_settings))
    missing.append(data if not found else f"no agent server's answer on {AGENT_PROBE}")
    if app_error is not None:
        raise app_error
    params = {"conversation_id": NO_CONVERSATION, "limit": 1}
    found, why = await _ask(http, SHARED_PROBE, params)
    if found:
        return _found(http, base_info(ServerKind.SHARED))
    missing.append(why)
    raise NotFound(
        f"{http.display_url} answered but is not an OpenHands server: {_join(missing)}",
        status=404,
        method="GET",
        url=http.display_url,
    )


def _found(http: Any, info: ServerInfo) -> ServerInfo:
    remember(http.base_url, info)
    return info


def _join(parts: list[str]) -> str:
    """``404 on /a, 404 on /b and 404 on /c`` (repeated "404 on" folded: "404 on /a and /b")."""
    if parts and all(p.startswith("404 on ") for p in parts):
        paths = [p[len("404 on ") :] for p in parts]
        return "404 on " + (
            ", ".join(paths[:-1]) + " and " + paths[-1] if len(paths) > 1 else paths[0]
        )
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


__all__ = [
    "AGENT_CAPABILITIES",
    "APP_CAPABILITIES",
    "FORK",
    "NAVIGATE",
    "RENAME",
    "RUNTIME",
    "SANDBOXES",
    "SERVER_INFO",
    "SHARED_CAPABILITIES",
    "SHARED_EVENTS",
    "START_CONVERSATION",
    "START_TASKS",
    "ServerInfo",
    "ServerKind",
    "agent_info",
    "base_info",
    "cached",
    "forget",
    "parse_kind",
    "probe",
    "remember",
]
