"""``ohtui PATH``'s folder server in a process of its own, beside the app.

In the app's process the server's start (FastAPI and its routes imported, the folder's file
names indexed: ~0.4 s at 50,000 events) ran before the app's own imports, serially under one
GIL, and afterwards its background counts shared that GIL with the UI. As a child process it
starts on the second core while the app imports and paints.

Light on purpose (standard library only until the child's :func:`main`): ``ohtui`` starts the
child before its own heavy imports. What stays as it was in-process:

- the port is known at once and without a race: the parent binds the loopback socket and the
  child inherits it (a request made before the child serves waits in the socket's backlog);
- the per-run key never shows in a process list: it is written to the child's stdin;
- the child ends with the app, however the app ends: it reads its stdin until end of file,
  which comes when the parent closes the pipe (:meth:`FolderProcess.stop`) or exits in any
  way, ``SIGKILL`` included; terminal signals (Ctrl+C, a closed terminal) go to the app only
  (a session of its own), so the server is never gone while the app runs;
- it answers only to loopback names and the key (``folder_server.py``), and follows the
  folders as they are written (``folder_watch.py``).

The child runs ``tui.server.folder_process`` with the app's own interpreter and tree
(``tui/children.py``: whatever the install, never a ``tui`` in the working directory).
"""

from __future__ import annotations

import gc
import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

from ..children import own_module_command
from ..loopback import LOOPBACK, bind_socket, url_for
from .folder_scan import conversation_folders

#: how long :meth:`FolderProcess.stop` waits for the child to exit before killing it
STOP_WAIT_S = 2.0
#: the child's exit status when the folder holds no conversations (any more)
NO_FOLDERS = 3


class FolderProcess:
    """A folder server running in a child process: give ``session_key`` to the client."""

    def __init__(self, base_url: str, session_key: str, process: subprocess.Popen) -> None:
        self.base_url = base_url
        self.session_key = session_key
        self.process = process

    def __repr__(self) -> str:  # the key never shows in a traceback or a log line
        return f"FolderProcess({self.base_url!r}, pid={self.process.pid})"

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


def start_folder_process(path: str | Path) -> FolderProcess | None:
    """Start serving the conversation folders under ``path`` in a child process; None (no
    child) when there are none. Returns at once: the child imports and indexes meanwhile."""
    root = Path(path).expanduser()
    if not conversation_folders(root):
        return None
    key = secrets.token_urlsafe(32)
    sock = bind_socket(LOOPBACK, 0)
    try:
        sock.listen(128)
        process = subprocess.Popen(
            own_module_command(__name__, str(sock.fileno()), str(root)),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # the app's terminal is the TUI's: nothing over it
            pass_fds=(sock.fileno(),),
            start_new_session=True,
        )
        assert process.stdin is not None
        process.stdin.write(key.encode() + b"\n")  # a few bytes: never blocks on the pipe
        process.stdin.flush()
        return FolderProcess(url_for(LOOPBACK, sock.getsockname()[1]), key, process)
    finally:
        sock.close()  # the child holds its own copy; it closes when the child exits


def main(argv: list[str] | None = None) -> int:
    """The child: serve ``root`` on the inherited socket until stdin reaches end of file."""
    gc.disable()  # the imports and the index make little garbage: no full scans meanwhile
    fd, root = argv or sys.argv[1:]
    key = sys.stdin.buffer.readline().decode().strip()
    sock = socket.socket(fileno=int(fd))
    from .folder_server import start_folder_server

    served = start_folder_server(root, sock=sock, session_key=key)
    if served is None:
        sock.close()
        return NO_FOLDERS
    gc.freeze()  # modules, schemas and the index live as long as the process
    gc.enable()
    sys.stdin.buffer.read()  # blocks until the app closes the pipe or is gone
    os._exit(0)  # read-only: nothing to flush; threads (uvicorn, the watcher) end with it


if __name__ == "__main__":
    sys.exit(main())
