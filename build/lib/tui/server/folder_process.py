"""``ohtui PATH``'s folder server in a process of its own, beside the app.

In the app's process the server's start (FastAPI and its routes imported, the folder's file
names indexed: ~0.4 s at 50,000 events) ran before the app's own imports, serially under one
GIL, and afterwards its background counts shared that GIL with the UI. As a child process it
starts on the second core while the app imports and paints.

How the child is started, told its per-run key and ended with the app however the app ends:
``server_process.py`` (shared with the demo's server, ``demo_process.py``). The child answers
only to loopback names and the key (``folder_server.py``), and follows the folders as they
are written (``folder_watch.py``).
"""

from __future__ import annotations

import secrets
import socket
import sys
from pathlib import Path

from tui.memory import map_big_blocks, pause_collector, started

from .folder_scan import conversation_folders
from .server_process import ServerProcess, serve_until_parent_ends, spawn_server

#: the child's exit status when the folder holds no conversations (any more)
NO_FOLDERS = 3


def start_folder_process(path: str | Path) -> ServerProcess | None:
    """Start serving the conversation folders under ``path`` in a child process; None (no
    child) when there are none. Returns at once: the child imports and indexes meanwhile."""
    root = Path(path).expanduser()
    if not conversation_folders(root):
        return None
    return spawn_server(__name__, str(root), session_key=secrets.token_urlsafe(32))


def main(argv: list[str] | None = None) -> int:
    """The child: serve ``root`` on the inherited socket until stdin reaches end of file."""
    pause_collector()  # the imports and the index make little garbage: no full scans meanwhile
    map_big_blocks()  # an event file of megabytes read is given back once sent (tui/memory.py)
    fd, root = argv or sys.argv[1:]
    key = sys.stdin.buffer.readline().decode().strip()
    sock = socket.socket(fileno=int(fd))
    from .folder_server import start_folder_server

    served = start_folder_server(root, sock=sock, session_key=key)
    if served is None:
        sock.close()
        return NO_FOLDERS
    started()  # modules, schemas and the index live as long as the process
    serve_until_parent_ends()  # read-only: nothing to flush
    return 0


if __name__ == "__main__":
    sys.exit(main())
