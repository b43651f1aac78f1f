"""pytest plugin: one real agent server per test session, started as early as possible.

Loaded from ``pyproject.toml`` (``-p tests.integration.plugin``) so it runs in the process
that owns the session: with xdist that is the controller, which never collects tests, so a
conftest could not do this there. At session start, when the selected paths include
``tests/integration``, a background thread finds Python 3.12, builds or reuses the server's venv
and starts the server; the workers meanwhile start up and collect, and the integration tests
(all on one worker, ``xdist_group("agent-server")``) read where it is from a state file named in
``$OHTUI_AGENT_SERVER_STATE``. The server is stopped when the session ends, whatever happened.

States written: ``ready`` (the server's address, key, version, timings), ``skipped`` (no Python
3.12: the tests skip, and the summary says so in red), ``failed`` (build or start failed: the
tests fail with the reason), ``not-started`` (no integration path selected: a worker that runs
integration tests anyway starts its own server, see ``conftest.py``).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from tests.integration.agent_process import AgentServerProcess, StartFailed
from tests.integration.agent_venv import Cancelled, NoPython312, ensure_agent_venv

STATE_ENV = "OHTUI_AGENT_SERVER_STATE"
HERE = Path(__file__).resolve().parent


def write_state(path: Path, state: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state))
    os.replace(tmp, path)


def read_state(path: Path, timeout: float, cancel: threading.Event | None = None) -> dict:
    """Wait for the launcher's state file (it may still be building the venv)."""
    waiter = cancel or threading.Event()
    deadline = time.monotonic() + timeout
    while True:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            pass
        if time.monotonic() > deadline:
            return {"status": "failed", "reason": f"no agent-server state after {timeout:.0f} s"}
        waiter.wait(0.1)


class Launcher:
    """Builds the venv and starts the server on a background thread; ``finish`` stops it."""

    def __init__(self, state_file: Path) -> None:
        self.state_file = state_file
        self.cancel = threading.Event()
        self.process: AgentServerProcess | None = None
        self.state: dict = {}
        self.stop_seconds: float | None = None
        self._thread: threading.Thread | None = None

    def begin(self) -> None:
        self._thread = threading.Thread(target=self.run, name="agent-server-launcher", daemon=True)
        self._thread.start()
        atexit.register(self.finish)

    def run(self) -> dict:
        t0 = time.monotonic()
        try:
            venv = ensure_agent_venv(self.cancel)
            for attempt in (1, 2):  # a second try if the free port was taken meanwhile
                self.process = AgentServerProcess(venv)
                self.process.start()
                try:
                    server = self.process.wait_ready(self.cancel)
                    break
                except StartFailed:
                    lost_port = "address already in use" in self.process.tail().lower()
                    self.process.stop()
                    if attempt == 2 or not lost_port:
                        raise
            state = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(server).items()}
            state.update(
                status="ready",
                venv=str(venv.path),
                venv_built=venv.built,
                venv_seconds=round(venv.seconds, 1),
                start_seconds=round(self.process.ready_seconds or 0.0, 1),
                total_seconds=round(time.monotonic() - t0, 1),
            )
        except NoPython312 as exc:
            state = {"status": "skipped", "reason": str(exc)}
        except Cancelled:
            state = {"status": "failed", "reason": "the session ended during the venv build"}
        except Exception as exc:  # noqa: BLE001 - the tests report it; the workers must not wait
            state = {"status": "failed", "reason": f"{type(exc).__name__}: {exc}"}
        self.state = state
        write_state(self.state_file, state)
        return state

    def finish(self) -> None:
        self.cancel.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        if self.process is not None and self.stop_seconds is None:
            t0 = time.monotonic()
            self.process.stop(keep_work=bool(os.environ.get("OHTUI_KEEP_AGENT_SERVER_WORK")))
            self.stop_seconds = time.monotonic() - t0

    def summary(self) -> tuple[str, dict]:
        """The line the session's summary shows, and its colour."""
        s = self.state
        if s.get("status") == "ready":
            venv = f"venv built ({s['venv_seconds']} s)" if s["venv_built"] else "venv reused"
            line = (
                f"agent-server integration: openhands-agent-server {s['version']} "
                f"(Python {s['python_version']}); {venv}; server up in {s['start_seconds']} s"
            )
            if self.stop_seconds is not None:
                line += f", stopped in {self.stop_seconds:.1f} s"
            return line, {"green": True}
        if s.get("status") == "skipped":
            line = (
                f"agent-server integration tests SKIPPED: {s['reason']}. "
                "Install Python 3.12 or set OHTUI_PYTHON312 to run them."
            )
            return line, {"red": True, "bold": True}
        if s.get("status") == "failed":
            return f"agent-server integration: FAILED to start: {s['reason']}", {"red": True}
        return "agent-server integration: the session ended before the server was up", {}


def _selects_integration(config: pytest.Config) -> bool:
    """Whether the session's paths include this folder (the controller cannot collect)."""
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::", 1)[0]).resolve()
        if path == HERE or HERE in path.parents or path in HERE.parents:
            return True
    return False


class AgentServerPlugin:
    def __init__(self) -> None:
        self.launcher: Launcher | None = None
        self.state_dir = Path(tempfile.mkdtemp(prefix="ohtui-as-state-"))
        self.state_file = self.state_dir / "state.json"
        os.environ[STATE_ENV] = str(self.state_file)  # inherited by the xdist workers

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        config = session.config
        if config.getoption("collectonly") or not _selects_integration(config):
            write_state(self.state_file, {"status": "not-started"})
            return
        self.launcher = Launcher(self.state_file)
        self.launcher.begin()

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        if self.launcher is not None:
            self.launcher.finish()

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.launcher is None or not self.launcher.state:
            return
        line, markup = self.launcher.summary()
        terminalreporter.write_sep("-", "agent server", **markup)
        terminalreporter.write_line(line, **markup)

    def pytest_unconfigure(self) -> None:
        if self.launcher is not None:
            self.launcher.finish()
        shutil.rmtree(self.state_dir, ignore_errors=True)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller owns the server
        return
    config.pluginmanager.register(AgentServerPlugin(), "ohtui-agent-server")
