"""The servers a board watches: the one the app is connected to, or every profile.

A source connects lazily (a profile's client is built in a thread: it reads the config and
its key files); one that cannot connect or list becomes one row saying why, and the
others go on. Clients the board built are its own to close; the app's is not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tui.app.profiles import watched

if TYPE_CHECKING:
    from tui.client import OpenHandsClient
    from tui.failures import Failure

Connect = Callable[[], Awaitable[tuple["OpenHandsClient", bool]]]


@dataclass(eq=False)
class Source:
    """One server on the board. ``connect`` gives its client and whether it is read-only."""

    name: str
    connect: Connect
    owned: bool = False  # the board built the client: it closes it
    client: OpenHandsClient | None = None
    readonly: bool = False
    failure: Failure | None = None
    scanned: bool = False  # listed at least once (or failed): not loading any more

    async def ready(self) -> OpenHandsClient:
        if self.client is None:
            self.client, self.readonly = await self.connect()
        return self.client

    async def aclose(self) -> None:
        if self.owned and self.client is not None:
            client, self.client = self.client, None
            await client.aclose()


def current_name(app: Any) -> str:
    """How the app's own server is called on the board: its profile, "demo" for the bundled
    demo server (its port is random: no name), else host:port."""
    if app.profile:
        return app.profile
    if getattr(app, "bundled", False):
        return "demo"
    return urlsplit(app.url or "").netloc or "this server"


def board_sources(app: Any, all_profiles: bool) -> list[Source]:
    """The app's server, and with ``all_profiles`` every other profile (not the bundled
    demo: a server of ohtui's own, started only when switched to)."""

    async def current() -> tuple[OpenHandsClient, bool]:
        return await app.client_ready(), bool(app.local)

    sources = [Source(current_name(app), current)]
    if all_profiles:
        for name in watched(app.profiles):
            if name != app.profile:
                sources.append(Source(name, _profile(app.profiles[name]), owned=True))
    return sources


def _profile(factory: Callable[[], tuple[Any, ...]]) -> Connect:
    async def connect() -> tuple[OpenHandsClient, bool]:
        client, _url, *local = await asyncio.to_thread(factory)
        return client, bool(local and local[0])

    return connect
