"""``ohtui``'s bundled demo server in a process of its own, beside the app.

In a thread of the app (started after the first frame) its start — FastAPI, the routes and
the demo data: ~0.45 s of one core — shared the app's GIL with the client's imports and the
list's first page, and the list waited for all of it (~1.0 s from launch). As a child started
before the app's own imports it runs on the second core meanwhile; its simulated runs no
longer share the UI's GIL either. How it is started and ended with the app:
``server_process.py``. It answers only to loopback names (``loopback_guard.py``), as before.
"""

from __future__ import annotations

import os
import socket
import sys

from tui.memory import map_big_blocks, pause_collector, started

from .server_process import ServerProcess, serve_until_parent_ends, spawn_server, tell_failure

#: The child runs a little behind the app for the CPU: on a busy machine the app's imports and
#: first paint would otherwise share a core with the child's start (first paint 370 → 410–530
#: ms in pairs at load 1.5; niced: 365–375 ms, and the list no later).
NICENESS = 5


def start_demo_process() -> ServerProcess:
    """Start the demo server in a child process; returns at once (``wait_ready`` waits for
    it to serve: requests made before then wait in the socket's backlog)."""
    return spawn_server(__name__, tell_ready=True)


def main(argv: list[str] | None = None) -> int:
    """The child: serve the demo on the inherited socket until stdin reaches end of file."""
    os.nice(NICENESS)
    pause_collector()  # the imports and the demo data make little garbage: no full scans meanwhile
    map_big_blocks()  # an output of megabytes freed is given back (tui/memory.py)
    (fd,) = argv or sys.argv[1:]
    sock = socket.socket(fileno=int(fd))
    try:
        from .embedded import start_demo_server

        _, stop = start_demo_server(sock=sock)
    except Exception as exc:  # noqa: BLE001 - said to the app, which shows it
        sock.close()
        tell_failure(exc)
        return 1
    started()  # modules, schemas and the demo's data live as long as the process
    # in memory: nothing to save; stop() removes the demo's temporary workspace
    serve_until_parent_ends(tell_ready=True, before_exit=lambda: stop(server_too=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
