"""Running the app under real uvicorn in a background thread, on a loopback port.

Why a thread and a pre-bound socket: tests and the embedded demo need a real HTTP server
(real sockets, real keep-alive, real status codes) whose port is known before the first
request, with no fixed port to collide on. The socket is bound here (port 0 = ephemeral)
and handed to uvicorn. Access logs are off (query strings can carry keys) and uvicorn's
loggers are left unconfigured (``log_config=None``) so nothing prints over a TUI.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import uvicorn
from fastapi import FastAPI

from ..loopback import LOOPBACK, bind_socket, is_loopback, url_for
from .faults import with_connection_faults
from .store import Store

__all__ = [
    "LOOPBACK",
    "RunningServer",
    "ServerThread",
    "bind_socket",
    "is_loopback",
    "start_server",
    "url_for",
]

if TYPE_CHECKING:
    from .lifecycle import Lifecycle
    from .live import LiveHub


class PromptServer(uvicorn.Server):
    """uvicorn's server, stopping at once when asked. uvicorn looks at ``should_exit`` every
    0.1 s and pauses 0.1 s before waiting for connections: 0.2 s per stop, which every test
    server and every quit would pay. Here the loop wakes as soon as :meth:`ask_exit` is called
    and connections are awaited only while there are some. Same shutdown steps otherwise."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._exit_asked: asyncio.Event | None = None

    async def main_loop(self) -> None:
        self._exit_asked = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exit_asked.wait(), 0.1)

    def ask_exit(self) -> None:
        """From any thread: exit now rather than at the next tick."""
        self.should_exit = True
        loop, event = self._loop, self._exit_asked
        if loop is not None and event is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed meanwhile
                loop.call_soon_threadsafe(event.set)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()

        async def drained() -> None:
            while (self.server_state.connections or self.server_state.tasks) and not (
                self.force_exit
            ):
                await asyncio.sleep(0.01)
            for server in self.servers:
                await server.wait_closed()

        try:
            await asyncio.wait_for(drained(), timeout=self.config.timeout_graceful_shutdown)
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()


class ServerThread:
    """``with ServerThread(app) as server: httpx.get(server.base_url + "/alive")``.

    ``start()`` returns once uvicorn accepts connections; ``stop()`` asks it to exit and
    joins the thread. Loopback only by default.
    """

    def __init__(
        self,
        app: FastAPI,
        host: str = LOOPBACK,
        port: int = 0,
        *,
        log_level: str = "warning",
        sock: socket.socket | None = None,
    ) -> None:
        """``sock``: serve on this already bound socket (``server_process.spawn_server``)."""
        self.app = app
        self._given_socket = sock
        self.host = host
        self._requested_port = port
        self._log_level = log_level
        self._server: PromptServer | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.port: int | None = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("server not started")
        return url_for(self.host, self.port)

    def start(self, timeout: float = 10.0) -> ServerThread:
        if self._thread is not None:
            return self
        self._socket = self._given_socket or bind_socket(self.host, self._requested_port)
        self.port = self._socket.getsockname()[1]
        config = uvicorn.Config(
            with_connection_faults(self.app),
            log_level=self._log_level,
            log_config=None,
            access_log=False,
            lifespan="on",  # starts and stops the live agent runs (live/)
            timeout_graceful_shutdown=2,
        )
        self._server = PromptServer(config)
        # Without a handler anywhere, Python's last-resort handler would print warnings to
        # stderr, over a running TUI; a NullHandler stops that and still lets records
        # propagate to whatever the host application (or pytest) configured.
        logging.getLogger("uvicorn").addHandler(logging.NullHandler())
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name=f"ohtui-server-{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive():
                self._close_socket()
                raise RuntimeError("the server thread exited during startup")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"server did not start within {timeout} s")
            time.sleep(0.005)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self._server is not None:
            self._server.ask_exit()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close_socket()
        self._thread = None
        self._server = None

    def _close_socket(self) -> None:
        if self._socket is not None:
            try:
                self._socket.close()
            finally:
                self._socket = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class RunningServer:
    """What the test fixtures yield: where the server is and what it serves."""

    base_url: str
    store: Store
    app: FastAPI
    thread: ServerThread

    @property
    def live(self) -> LiveHub:
        """The app's live hub: ``server.live.step_sync(conversation_id)`` and friends."""
        return self.app.state.live

    @property
    def lifecycle(self) -> Lifecycle:
        """The app's lifecycle: ``server.lifecycle.pause_sandbox(id)`` changes a sandbox
        "elsewhere" (as another client would), ``server.lifecycle.tasks.fail_next(...)``."""
        return self.app.state.lifecycle

    @property
    def ws_url(self) -> str:
        """``ws://host:port`` of the server (append ``/sockets/events/<id>``)."""
        return "ws" + self.base_url[len("http") :]

    def stop(self) -> None:
        self.thread.stop()


def start_server(
    store: Store | None = None, *, sock: socket.socket | None = None, **app_options: Any
) -> RunningServer:
    """Create an app over ``store`` (``create_app`` options) and start it on loopback
    (on ``sock`` if given: a port reserved earlier)."""
    from .app import create_app

    store = store if store is not None else Store()
    app = create_app(store, **app_options)
    thread = ServerThread(app, sock=sock).start()
    return RunningServer(base_url=thread.base_url, store=store, app=app, thread=thread)
