"""Run the agent server so that it cannot outlive the test session that started it.

    python supervise.py PARENT_PID WORK_DIR -- COMMAND...

A test session killed outright (SIGKILL, or SIGTERM from ``timeout``, which skips Python's
exit handlers) never gets to stop its server, and the server runs in a session of its own. This
supervisor is that session's leader: it starts COMMAND, and when PARENT_PID is gone (or it is
told to stop with SIGTERM/SIGINT, or COMMAND ends) it ends COMMAND's process group, then the
tmux servers whose sockets are under WORK_DIR/tmux (the agent's terminal tool starts them and
they leave the group), and, when the parent died, WORK_DIR itself. Stdlib only: it runs on the
test session's Python.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

POLL = 0.5  # seconds between looks at the parent


def _alive(parent: int) -> bool:
    """The parent is gone once this process has been handed to another (init, a subreaper)."""
    return os.getppid() == parent


def stop_tmux(work: Path) -> None:
    tmux = shutil.which("tmux")
    for sock in (work / "tmux").glob("tmux-*/*"):
        if tmux and sock.is_socket():
            subprocess.run(
                [tmux, "-S", str(sock), "kill-server"], capture_output=True, timeout=10, check=False
            )
        with contextlib.suppress(OSError):
            sock.unlink()


def main(argv: list[str]) -> int:
    parent, work, command = int(argv[0]), Path(argv[1]), argv[argv.index("--") + 1 :]
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    child = subprocess.Popen(command)  # same process group: ours
    orphaned = False
    while not stop.wait(POLL):
        if child.poll() is not None:
            break
        if not _alive(parent):
            orphaned = True
            break
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    stop_tmux(work)
    if orphaned:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
