"""The server ``ohtui PATH`` starts over local conversation folders: loopback, read-only,
locked with a key only the app knows.

Conversation folders are private (prompts, code, command output), and a loopback port is
open to every local process and, through DNS rebinding, to web pages. So the server takes a
random key made for this run (handed to the app's client, never printed or written), and
answers only to loopback names (``loopback_guard.py``).
"""

from __future__ import annotations

import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from .folder_scan import conversation_folders
from .folder_watch import FolderWatcher, start_following
from .folders import FolderStore
from .runner import RunningServer, start_server


@dataclass
class FolderServer:
    """A running folder server: give ``session_key`` to the client that talks to it."""

    base_url: str
    session_key: str
    store: FolderStore
    server: RunningServer
    watcher: FolderWatcher | None

    def __repr__(self) -> str:  # the key never shows in a traceback or a log line
        return f"FolderServer({self.base_url!r}, root={str(self.store.root)!r})"

    def stop(self) -> None:
        self.server.stop()
        self.store.close()


def start_folder_server(
    path: str | Path,
    *,
    watch: bool = True,
    sock: socket.socket | None = None,
    session_key: str | None = None,
) -> FolderServer | None:
    """Serve the conversation folders under ``path`` (or the one folder ``path`` is) on a
    loopback port, following them as they are written; None when there are none.

    ``sock``: a loopback socket bound earlier (``folder_process.py``: the app's, inherited);
    ``session_key``: the key to require (a new random one if None)."""
    root = Path(path).expanduser()
    if not conversation_folders(root):
        return None
    key = session_key or secrets.token_urlsafe(32)
    store = FolderStore(root, session_key=key)
    try:
        server = start_server(store, sock=sock, session_key=key, loopback_only=True)
    except BaseException:
        store.close()
        raise
    watcher = start_following(server, store, watch=watch)
    return FolderServer(server.base_url, key, store, server, watcher)
