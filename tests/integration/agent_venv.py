"""The real agent server's own Python 3.12 venv, built once and cached outside the repository.

``openhands-agent-server`` needs Python >= 3.12 while ohtui runs on 3.11 too, so the tests give
the server a venv of its own. It is built with uv (seconds, where pip takes minutes), into a
temporary folder renamed into place only once the install imports, under a file lock, so two
test processes never build it twice or see half of it. It is reused while its marker is valid.

Where: ``$OHTUI_TEST_CACHE`` or ``~/.cache/ohtui-tests``, one folder per version
(``agent-server-1.58.2``). Which: ``$OHTUI_AGENT_SERVER_VERSION``, else 1.58.2 (whose
``certifi>=2026.10.19`` pin is newer than some package indexes offer: overridden, harmlessly),
falling back to 1.57.0. Which Python: ``$OHTUI_PYTHON312``, ``python3.12`` on PATH, then pyenv.

``cryptography`` is held below 51 (:data:`EXTRA_PINS`), as ``../shared/real-servers`` does: the
SDK makes its secrets' Fernet key with standard base64, which 51 refuses when the key holds
``+`` or ``/`` (about 3 session keys in 4), and every conversation start then answers 500.
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PREFERRED_VERSION = "1.58.2"
FALLBACK_VERSION = "1.57.0"
PACKAGES = ("openhands-agent-server", "openhands-sdk", "openhands-tools")
MARKER = "ohtui-venv.json"
#: held back beside the server's own pins (see the module's docstring)
EXTRA_PINS = ("cryptography>=45.0.1,<51",)
LAYOUT = 3  # bumped when the way the venv is built changes: older caches are rebuilt
# litellm fetches its cost map at import unless told not to; offline the server then dies.
SERVER_IMPORT_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}


class NoPython312(Exception):
    """No Python 3.12 interpreter was found: the suite is skipped (loudly)."""


class BuildFailed(Exception):
    """The venv could not be built; the message holds the installer's last lines."""


class Cancelled(Exception):
    """The test session ended while the venv was being built."""


@dataclass(frozen=True)
class AgentVenv:
    path: Path
    version: str
    python_version: str
    built: bool  # built now (False: reused from the cache)
    seconds: float  # time spent finding or building it

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"


def cache_root() -> Path:
    explicit = os.environ.get("OHTUI_TEST_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ohtui-tests"


def _python_version(candidate: str) -> str | None:
    """``"3.12.1"`` when ``candidate`` runs and is a 3.12, else None (a pyenv shim for a
    version that is not selected exits non-zero: that is a no)."""
    try:
        out = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    version = out.stdout.strip()
    return version if out.returncode == 0 and version.startswith("3.12.") else None


def find_python312() -> tuple[str, str]:
    """-> (interpreter path, version). Raises NoPython312 saying where it looked."""
    looked: list[str] = []
    explicit = os.environ.get("OHTUI_PYTHON312")
    candidates: list[str] = []
    if explicit:
        candidates.append(explicit)
        looked.append(f"OHTUI_PYTHON312={explicit}")
    on_path = shutil.which("python3.12")
    if on_path:
        candidates.append(on_path)
    looked.append("python3.12 on PATH")
    pyenv_root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates += sorted(
        glob.glob(os.path.join(pyenv_root, "versions", "3.12.*", "bin", "python3"))
    )
    looked.append(f"{pyenv_root}/versions/3.12.*")
    for candidate in candidates:
        version = _python_version(candidate)
        if version:
            # a shim resolves to a versioned interpreter: keep the real one, not the shim
            real = subprocess.run(
                [candidate, "-c", "import sys; print(sys.executable)"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
            return real or candidate, version
    raise NoPython312("no Python 3.12 found (looked at: " + ", ".join(looked) + ")")


def _uv() -> str | None:
    try:
        from uv import find_uv_bin  # the test extras bring uv

        return find_uv_bin()
    except (ImportError, FileNotFoundError):
        return shutil.which("uv")


def _marker(venv: Path) -> dict | None:
    try:
        data = json.loads((venv / MARKER).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("layout") != LAYOUT:
        return None
    return data if (venv / "bin" / "python").exists() else None


@contextmanager
def _locked(path: Path, cancel: threading.Event | None) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:  # another test process is building it: wait our turn
                if (cancel or threading.Event()).wait(0.2):
                    raise Cancelled from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _run(cmd: list[str], log: Path, cancel: threading.Event | None, env: dict | None = None) -> int:
    """Run an installer step, output appended to ``log``; killed when the session ends."""
    with open(log, "a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        while True:
            try:
                return proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel.is_set():
                    proc.kill()
                    proc.wait()
                    raise Cancelled from None


def _install(python: str, version: str, target: Path, log: Path, cancel) -> None:
    pins = [f"{p}=={version}" for p in PACKAGES] + list(EXTRA_PINS)
    uv = _uv()
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
    for var in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"):
        env.pop(var, None)
    if uv:
        if _run([uv, "venv", "-q", "--relocatable", "-p", python, str(target)], log, cancel, env):
            raise BuildFailed(f"uv venv failed; see {log}")
        overrides = target / "overrides.txt"
        overrides.write_text("certifi\n")  # any certifi: 1.58.x pins one newer than the index
        # no --compile-bytecode (12 s here): the server's first start writes the bytecode of
        # what it imports (agent_process lets it), a fraction of the 14,000 modules
        cmd = [uv, "pip", "install", "-q", "--python", str(target / "bin" / "python")]
        cmd += ["--override", str(overrides), *pins]
    else:  # slow, but works without uv
        if _run([python, "-m", "venv", str(target)], log, cancel, env):
            raise BuildFailed(f"python -m venv failed; see {log}")
        cmd = [str(target / "bin" / "python"), "-m", "pip", "install", "-q", *pins]
    if _run(cmd, log, cancel, env):
        raise BuildFailed(f"installing {' '.join(pins)} failed: {_tail(log)}")
    imports = (
        "import openhands.agent_server, openhands.tools, cryptography;"
        "assert int(cryptography.__version__.split('.')[0]) < 51, cryptography.__version__"
    )
    check = [str(target / "bin" / "python"), "-c", imports]
    if _run(check, log, cancel, {**env, **SERVER_IMPORT_ENV}):
        raise BuildFailed(f"openhands-agent-server {version} does not import: {_tail(log)}")


def _tail(log: Path, lines: int = 6) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return "(no log)"


def ensure_version(
    version: str, python: str, python_version: str, cancel: threading.Event | None = None
) -> AgentVenv:
    """The cached venv for ``version``, built if missing (atomically, under a lock)."""
    t0 = time.monotonic()
    root = cache_root()
    final = root / f"agent-server-{version}"
    data = _marker(final)
    if data:
        return AgentVenv(final, version, data["python"], False, time.monotonic() - t0)
    with _locked(root / f"agent-server-{version}.lock", cancel):
        data = _marker(final)  # another process may have built it while we waited
        if data:
            return AgentVenv(final, version, data["python"], False, time.monotonic() - t0)
        tmp = Path(tempfile.mkdtemp(prefix=f".agent-server-{version}.", dir=root))
        log = root / f"agent-server-{version}.install.log"
        log.write_text("")
        try:
            _install(python, version, tmp / "venv", log, cancel)
            marker = {"version": version, "python": python_version, "layout": LAYOUT}
            (tmp / "venv" / MARKER).write_text(json.dumps(marker))
            if final.exists():  # a stale, invalid copy: move it aside first
                shutil.rmtree(final)
            os.rename(tmp / "venv", final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return AgentVenv(final, version, python_version, True, time.monotonic() - t0)


def ensure_agent_venv(cancel: threading.Event | None = None) -> AgentVenv:
    """The venv to run: the pinned version, else 1.58.2, else 1.57.0."""
    python, python_version = find_python312()
    pinned = os.environ.get("OHTUI_AGENT_SERVER_VERSION")
    versions = [pinned] if pinned else [PREFERRED_VERSION, FALLBACK_VERSION]
    errors = []
    for version in versions:
        try:
            return ensure_version(version, python, python_version, cancel)
        except BuildFailed as exc:
            errors.append(f"{version}: {exc}")
    raise BuildFailed("; ".join(errors))


if __name__ == "__main__":  # build (or show) the cached venv by hand
    venv = ensure_agent_venv()
    verb = "built" if venv.built else "reused"
    print(f"{verb} {venv.path} (openhands-agent-server {venv.version}) in {venv.seconds:.1f} s")
    sys.exit(0)
