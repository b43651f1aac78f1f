"""The servers ``ohtui``'s palette switches between (:mod:`tui.app.profiles`), made where
the settings and ohtui's own servers are known: the bundled demo, local conversation
folders, the server given at start and each profile of the config file.

The demo and a folder server run in child processes of the app (``server_process.py``):
each is started on first use (the one the app opened on is already running), kept while
the app runs so switching back costs nothing, and started again if it has ended. Nothing
here writes to the terminal: the app's screen is on it (a problem is raised, and the
palette says it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tui.app.profiles import DEMO, LOCAL, Profile, unused_name

from .connect import make_client

if TYPE_CHECKING:
    from tui.server.server_process import ServerProcess


class OwnServer:
    """A server of ohtui's own in a child process: started by ``start`` when first needed
    (or given, already started), started again once it has ended. Its stop goes on
    ``stops`` (the app runs them when it ends)."""

    def __init__(
        self,
        start: Callable[[], ServerProcess | None],
        stops: list[Callable[[], None]],
        running: ServerProcess | None = None,
    ) -> None:
        self._start = start
        self._stops = stops
        self.running = running

    def get(self) -> ServerProcess:
        served = self.running
        if served is None or served.process.poll() is not None:
            served = self._start()
            if served is None:
                raise RuntimeError("it could not be started")
            self.running = served
            self._stops.append(served.stop)
        return served


def demo_server(stops: list[Callable[[], None]], running: Any = None) -> OwnServer:
    from tui.server.demo_process import start_demo_process

    return OwnServer(start_demo_process, stops, running)


def folder_server(path: str, stops: list[Callable[[], None]], running: Any = None) -> OwnServer:
    from tui.server.folder_process import start_folder_process

    def start() -> ServerProcess:
        served = start_folder_process(path)
        if served is None:
            raise RuntimeError(f"no conversation folders in {path}")
        return served

    return OwnServer(start, stops, running)


def demo_profile(server: OwnServer) -> Profile:
    def connect() -> tuple[Any, str, bool]:
        from tui.client import OpenHandsClient

        served = server.get()  # no key of the user's goes to it
        return OpenHandsClient(served.base_url), served.base_url, False

    return Profile(
        connect,
        "The bundled demo server: sample conversations and simulated agents",
        kind="demo",
    )


def folders_profile(server: OwnServer, shown: str, path: str = "") -> Profile:
    """Local conversation folders, read-only (``shown``: where they are, in words; ``path``
    names their search index, as ``ohtui search --local`` does)."""

    def connect() -> tuple[Any, str, bool]:
        from tui.client import OpenHandsClient

        served = server.get()
        client = OpenHandsClient(
            served.base_url, session_api_key=served.session_key, server_kind="app"
        )
        return client, served.base_url, True

    from pathlib import Path

    source = f"folder:{Path(path).expanduser().resolve()}" if path else ""
    return Profile(connect, f"Browse {shown}, read-only", kind="folders", index_source=source)


def config_profile(args: argparse.Namespace, name: str, url: str | None = None) -> Profile:
    """A profile of the config file: its client and URL, read when switched to (flags for
    another server are not carried over; its keys come from its own references)."""

    def connect() -> tuple[Any, str]:
        from tui.config import load

        resolved = load({"profile": name}, config=args.config)
        if resolved.errors:
            raise RuntimeError(resolved.scrub("; ".join(resolved.errors)))
        if not resolved.url:
            raise RuntimeError(f"profile {name!r} has no url")
        return make_client(resolved, resolved.url), resolved.url

    where = f": {_printable(url)}" if url else ""
    return Profile(connect, f"[profiles.{name}] of the config file{where}")


def start_profile(resolved: Any, url: str) -> Profile:
    """The server given at start (``--url``, ``OHTUI_URL``, ``url =``) without a profile
    name: offered too, so a switch to the demo or the folders has a way back."""

    def connect() -> tuple[Any, str]:
        return make_client(resolved, url), url

    origin = resolved.origins.get("url", "")
    said = f" ({origin})" if origin else ""
    return Profile(connect, f"The server given at start{said}: {_printable(url)}", kind="start")


def start_name(url: str, taken: dict[str, Any]) -> str:
    """What the server given at start is called: its host and port (as on the board)."""
    from urllib.parse import urlsplit

    return unused_name(urlsplit(url).netloc or url, taken)


def _printable(url: str) -> str:
    from tui.config.urls import printable_url

    return printable_url(url)


__all__ = [
    "DEMO",
    "LOCAL",
    "OwnServer",
    "config_profile",
    "demo_profile",
    "demo_server",
    "folder_server",
    "folders_profile",
    "start_name",
    "start_profile",
]
