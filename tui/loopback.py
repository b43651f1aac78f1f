"""Loopback sockets: bound (and listening) before anything is served on them.

Light on purpose (no server imports): ``ohtui`` reserves the demo server's port with it
first thing, so the app knows its URL and paints its first frame while the server is still
being imported and started in a thread (``DeferredServer``). A request made meanwhile waits
in the socket's backlog instead of failing.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable

LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must be IPPROTO_TCP (not 0): asyncio only sets TCP_NODELAY on accepted sockets
    # whose proto says TCP, and without it small responses wait ~40 ms (Nagle + delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def url_for(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


class DeferredServer:
    """A listening loopback port now; ``start()`` (from any thread) serves on it later.

    ``serve(sock)`` starts the server on the socket and returns its stop function."""

    def __init__(self, serve: Callable[[socket.socket], Callable[[], None]]) -> None:
        self._serve = serve
        self.sock = bind_socket(LOOPBACK, 0)
        self.sock.listen(128)
        self.url = url_for(LOOPBACK, self.sock.getsockname()[1])
        self._stop: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._stopped = False

    def start(self) -> None:
        with self._lock:
            if self._stopped or self._stop is not None:
                return
            try:
                self._stop = self._serve(self.sock)
            except BaseException:
                self.sock.close()  # waiting requests fail at once rather than time out
                raise

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._stop is not None:
                self._stop()
            else:
                self.sock.close()
