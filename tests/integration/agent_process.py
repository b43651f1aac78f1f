"""Start and stop one real ``openhands-agent-server`` for the integration tests.

The server runs from its cached venv (``agent_venv``) on a free loopback port, in a temporary
work dir of its own: its working directory (conversations land in ``server/workspace/``), HOME,
TMPDIR and TMUX_TMPDIR all live there, so the terminal tool's tmux servers can be found and
ended afterwards (tmux daemonises out of the server's process group). The agent's commands only
touch ``files/``. Nothing is left running: the process group is ended, then every tmux server
whose socket is in the work dir, then the work dir is removed; and should the test process die
without stopping it, the server's supervisor (``supervise.py``) does the same.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.integration.agent_venv import SERVER_IMPORT_ENV, AgentVenv
from tests.integration.supervise import stop_tmux

SUPERVISOR = Path(__file__).with_name("supervise.py")
START_TIMEOUT = 120.0  # seconds for /health to answer (about 9 s here)


class StartFailed(Exception):
    """The server did not come up; the message holds the end of its log."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _short_tmp() -> str:
    """A base for the work dir short enough for tmux's unix socket path (~100 bytes)."""
    base = tempfile.gettempdir()
    return base if len(base) < 40 else "/tmp"


@dataclass
class AgentServer:
    """A running server: where it is, how to reach it, what it runs."""

    base_url: str
    session_api_key: str
    version: str
    python_version: str
    work: Path
    files: Path  # the only folder the fake LLM's commands touch
    conversations: Path
    log: Path


def hard_session_key() -> str:
    """A random session key whose SHA-256 in standard base64 holds ``+`` or ``/``: the SDK
    derives its secrets' Fernet key so, and cryptography >= 51 refuses such a key. Always
    picking one makes a venv without the pin fail every run, not 3 runs in 4."""
    while True:
        key = "ohtui-test-" + secrets.token_hex(8)
        encoded = base64.b64encode(hashlib.sha256(key.encode()).digest())
        if b"+" in encoded or b"/" in encoded:
            return key


class AgentServerProcess:
    """One server process: ``start()`` spawns it, ``wait_ready()`` waits for /health,
    ``stop()`` ends it and everything it started (safe to call more than once)."""

    def __init__(self, venv: AgentVenv) -> None:
        self.venv = venv
        self.work = Path(tempfile.mkdtemp(prefix="ohtui-as-", dir=_short_tmp()))
        self.key = hard_session_key()
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.started_at = 0.0
        self.ready_seconds: float | None = None
        self._stopped = False
        self._lock = threading.Lock()
        for sub in ("server", "files", "home", "tmux", "tmp", "logs"):
            (self.work / sub).mkdir()

    @property
    def log(self) -> Path:
        return self.work / "logs" / "agent_server.log"

    def start(self) -> None:
        self.port = free_port()
        # PYTHONDONTWRITEBYTECODE would make every start compile its imports again (9 s of
        # CPU instead of 5): the first start writes the venv's bytecode, later ones reuse it
        dropped = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("OH_")}
        env.update(SERVER_IMPORT_ENV)
        env.update(
            HOME=str(self.work / "home"),
            TMPDIR=str(self.work / "tmp"),
            TMUX_TMPDIR=str(self.work / "tmux"),
            OH_SESSION_API_KEYS_0=self.key,
            OH_ENABLE_VSCODE="false",
            OH_ENABLE_BROWSER="false",
            OH_PRELOAD_TOOLS="false",
            LOG_JSON="false",
            OPENHANDS_SUPPRESS_BANNER="1",
            PYTHONUNBUFFERED="1",
        )
        # under a supervisor that ends it if this process dies without stopping it
        cmd = [sys.executable, str(SUPERVISOR), str(os.getpid()), str(self.work), "--"]
        cmd += [str(self.venv.python), "-m", "openhands.agent_server"]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port)]
        with self._lock:
            if self._stopped:
                return
            with open(self.log, "ab") as out:
                self.started_at = time.monotonic()
                self.proc = subprocess.Popen(
                    cmd,
                    cwd=self.work / "server",
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own process group, ended as a whole
                )

    def wait_ready(self, cancel: threading.Event | None = None) -> AgentServer:
        """Poll /health until it answers; raise StartFailed with the log's end otherwise."""
        assert self.proc is not None, "start() first"
        url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + START_TIMEOUT
        waiter = cancel or threading.Event()
        while True:
            if self.proc.poll() is not None:
                raise StartFailed(
                    f"the agent server exited ({self.proc.returncode}): {self.tail()}"
                )
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise StartFailed(
                    f"no answer on {url}/health in {START_TIMEOUT:.0f} s: {self.tail()}"
                )
            if waiter.wait(0.1):
                raise StartFailed("the test session ended before the agent server was up")
        self.ready_seconds = time.monotonic() - self.started_at
        return AgentServer(
            base_url=url,
            session_api_key=self.key,
            version=self.venv.version,
            python_version=self.venv.python_version,
            work=self.work,
            files=self.work / "files",
            conversations=self.work / "server" / "workspace" / "conversations",
            log=self.log,
        )

    def tail(self, lines: int = 12) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.strip().splitlines()[-lines:])

    def stop(self, keep_work: bool = False) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc is not None:
            # children that outlived the server in its group (a command the agent started)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        stop_tmux(self.work)
        if not keep_work:
            shutil.rmtree(self.work, ignore_errors=True)
