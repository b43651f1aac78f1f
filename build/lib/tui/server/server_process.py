"""A server of ohtui's own in a child process, beside the app (the folder server and the demo).

In the app's process a server's start (FastAPI and its routes imported, its data loaded or
indexed: ~0.4–0.5 s) ran under the app's GIL, serially with the app's own imports and paint,
and afterwards its work (counts, the demo's simulated runs) shared that GIL with the UI. As a
child it starts on the second core while the app imports and paints.

Light on purpose (standard library only): ``ohtui`` starts the child before its own heavy
imports. What stays as it was in-process:

- the port is known at once and without a race: the parent binds the loopback socket and the
  child inherits it (a request made before the child serves waits in the socket's backlog);
- a per-run key, if any, never shows in a process list: it is written to the child's stdin;
- the child ends with the app, however the app ends: it reads its stdin until end of file,
  which comes when the parent closes the pipe (:meth:`ServerProcess.stop`) or exits in any
  way, ``SIGKILL`` included; terminal signals (Ctrl+C, a closed terminal) go to the app only
  (a session of its own), so the server is never gone while the app runs.

The child runs one of ``tui.server``'s modules with the app's own interpreter and tree
(``tui/children.py``: whatever the install, never a ``tui`` in the working directory).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

from .. import bytecode
from ..children import own_module_command
from ..loopback import LOOPBACK, bind_socket, url_for

#: how long :meth:`ServerProcess.stop` waits for the child to exit before killing it
STOP_WAIT_S = 2.0
#: the line a child writes on its stdout once it serves (when its parent asked to be told)
READY = b"ready\n"


class ServerProcess:
    """A server running in a child process: give ``session_key`` (if any) to the client."""

    def __init__(self, base_url: str, session_key: str, process: subprocess.Popen) -> None:
        self.base_url = base_url
        self.session_key = session_key
        self.process = process

    def __repr__(self) -> str:  # the key never shows in a traceback or a log line
        return f"{type(self).__name__}({self.base_url!r}, pid={self.process.pid})"

    def wait_ready(self) -> None:
        """Block until the child serves; raise ``RuntimeError`` saying why if it cannot.
        Only for a child started with ``tell_ready``."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if line == READY:
            return
        said = line.decode(errors="replace").strip()
        if not said:
            try:
                said = f"it exited with status {self.process.wait(STOP_WAIT_S)}"
            except subprocess.TimeoutExpired:
                said = "it stopped answering"
        raise RuntimeError(said)

    def stop(self) -> None:
        """End the child (it exits when its stdin closes) and reap it."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:  # it has gone already: nothing was waiting to be written
                pass
        try:
            self.process.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def spawn_server(
    module: str, *args: str, session_key: str = "", tell_ready: bool = False
) -> ServerProcess:
    """Start ``module``'s ``main`` serving on a new loopback socket (its descriptor is the
    child's first argument, then ``args``); returns at once, the child starts meanwhile."""
    sock = bind_socket(LOOPBACK, 0)
    try:
        sock.listen(128)
        process = subprocess.Popen(
            own_module_command(module, str(sock.fileno()), *args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE if tell_ready else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # the app's terminal is the TUI's: nothing over it
            pass_fds=(sock.fileno(),),
            start_new_session=True,
        )
        assert process.stdin is not None
        if session_key:
            process.stdin.write(session_key.encode() + b"\n")  # a few bytes: never blocks
            process.stdin.flush()
        return ServerProcess(url_for(LOOPBACK, sock.getsockname()[1]), session_key, process)
    finally:
        sock.close()  # the child holds its own copy; it closes when the child exits


def serve_until_parent_ends(
    tell_ready: bool = False, before_exit: Callable[[], object] | None = None
) -> None:
    """In the child, once it serves: say so (if asked), then wait for the parent to close
    the pipe or be gone, and exit at once (threads, uvicorn's included, end with it).
    ``before_exit`` runs first (``os._exit`` skips every other clean-up: the demo's
    temporary workspace would stay behind)."""
    if tell_ready:
        sys.stdout.buffer.write(READY)
        sys.stdout.buffer.flush()
    bytecode.compile_in_background(__file__)  # where no installer did: the next start reads it
    sys.stdin.buffer.read()
    if before_exit is not None:
        try:
            before_exit()
        except Exception:  # noqa: BLE001,S110 - exiting anyway: a clean-up is best effort
            pass
    os._exit(0)


def tell_failure(exc: BaseException) -> None:
    """In the child: the reason its start failed, for the parent's :meth:`wait_ready`."""
    sys.stdout.buffer.write(f"{exc}".replace("\n", " ").encode() + b"\n")
    sys.stdout.buffer.flush()
