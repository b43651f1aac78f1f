"""startup: ``ohtui --version``, launch → first paint of the demo in a real pty, import offenders.

``--version`` is timed as a whole process against a bare ``python -c pass`` (the interpreter's
own start, the baseline). First paint: ``ohtui`` runs in a pseudo-terminal (140×42, TERM
xterm-256color) and the time is taken when the conversations table's title first appears in
its output. ``python -X importtime`` of ``ohtui --version`` and of the app's imports gives the
top offenders by cumulative time.

Every launch finds ``tui``'s bytecode written, as an installed ``ohtui`` does (pip compiles a
wheel's modules on install; a checkout writes them on its first run). Where
``PYTHONDONTWRITEBYTECODE`` is set, as on this machine, a checkout compiled its modules from
source on every launch, in the app and again in the demo's child: ~40 ms of the app's CPU
before its first paint and ~50 ms of the child's before it serves, which no user pays.

    python -m bench.startup [--repeat 5] [--install]
"""

from __future__ import annotations

import argparse
import fcntl
import importlib.util
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import ROOT, compile_tree, median, report

LISTED = re.compile(rb"\d+ conversations")  # the list's status line, once rows are in
ANSI = re.compile(
    rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[=>]"
)


def ohtui() -> list[str]:
    found = shutil.which(
        "ohtui", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    )
    return [found] if found else [sys.executable, "-m", "tui"]


def timed_run(argv: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - began


def first_paint(
    timeout: float = 30.0,
    argv: list[str] | None = None,
    cwd: str = str(ROOT),
    env: dict | None = None,
    linger: Callable[[], bool] | None = None,
) -> tuple[float, float]:
    """Seconds from spawning ``ohtui`` in a pty until the conversations screen is on its
    screen (its table's title), and until the demo's conversations are listed in it
    (``linger``: it stays open until that holds, or 30 s)."""
    began = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app, as a user starts it
        os.environ.update({"TERM": "xterm-256color", "COLORTERM": "truecolor", **(env or {})})
        os.chdir(cwd)
        argv = argv or ohtui()
        os.execv(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 42, 140, 0, 0))
    seen, painted = b"", None
    try:
        while time.perf_counter() - began < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                seen += chunk
                text = ANSI.sub(b"", seen[-200_000:])
                if painted is None and b"Conversations" in text:
                    painted = time.perf_counter() - began
                if painted is not None and LISTED.search(text):
                    listed = time.perf_counter() - began
                    stay = time.perf_counter() + 30
                    while linger is not None and not linger() and time.perf_counter() < stay:
                        select.select([fd], [], [], 0.05)  # the app goes on drawing
                        try:
                            os.read(fd, 65536)
                        except OSError:
                            break
                    return painted, listed
        raise TimeoutError("no first paint")
    finally:
        os.write(fd, b"\x11")  # ctrl+q
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)


def import_offenders(code: str, top: int = 8) -> list[tuple[str, float]]:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    rows = []
    for line in result.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((parts[2].rstrip(), int(parts[1]) / 1e6))
    # modules up to two levels down, heaviest first (a package's time includes its children)
    shallow = [(name.strip(), s) for name, s in rows if len(name) - len(name.lstrip()) <= 5]
    shallow = [(n, s) for n, s in shallow if n not in ("site", "encodings", "io", "zipimport")]
    return sorted(shallow, key=lambda r: -r[1])[:top]


def without_bytecode(repeat: int) -> tuple[list[float], list[float]]:
    """An install that wrote no bytecode (uv's default) on a machine that writes none
    (``PYTHONDONTWRITEBYTECODE``): ohtui installed with uv into a fresh venv; the first paint
    of launches with every ``.pyc`` removed before each, and of launches after one that
    stayed until ohtui had written the bytecode of what it loaded (``tui/bytecode.py``)."""
    uv = shutil.which("uv", path=os.path.dirname(sys.executable))
    if uv is None:
        print("  no uv beside this interpreter: the row without bytecode is left out")
        return [], []
    first, later = [], []
    with tempfile.TemporaryDirectory(prefix="ohtui-bench-uv-") as tmp:
        venv = Path(tmp) / "venv"
        python = venv / "bin" / "python"
        subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
        subprocess.run([uv, "pip", "install", "-q", "--python", str(python), str(ROOT)], check=True)
        argv, env = [str(venv / "bin" / "ohtui")], {"PYTHONDONTWRITEBYTECODE": "1"}
        site = next((venv / "lib").glob("python*/site-packages"))
        probe = Path(importlib.util.cache_from_source(str(site / "tui" / "app" / "app.py")))
        for _ in range(repeat):
            for compiled in venv.rglob("*.pyc"):
                compiled.unlink()
            first.append(first_paint(argv=argv, cwd=tmp, env=env)[0])
        first_paint(argv=argv, cwd=tmp, env=env, linger=probe.exists)
        later = [first_paint(argv=argv, cwd=tmp, env=env)[0] for _ in range(repeat)]
    return first, later


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--install",
        action="store_true",
        help="also time a uv install without bytecode, before and after ohtui writes its own",
    )
    args = parser.parse_args()
    compile_tree()
    bare = median([timed_run([sys.executable, "-c", "pass"]) for _ in range(args.repeat)])
    version = median([timed_run([*ohtui(), "--version"]) for _ in range(args.repeat)])
    runs = [first_paint() for _ in range(max(1, (args.repeat + 1) // 2))]
    paints, listed = [r[0] for r in runs], [r[1] for r in runs]
    paint = median(paints)
    figures = {
        "python_ms": bare * 1000,
        "version_ms": version * 1000,
        "first_paint_ms": paint * 1000,
        "listed_ms": median(listed) * 1000,
    }
    print(f"python -c pass        {bare * 1000:6.0f} ms (baseline)")
    print(
        f"ohtui --version       {version * 1000:6.0f} ms ({version / bare:.1f}× a bare interpreter)"
    )
    print(
        f"ohtui → first paint   {paint * 1000:6.0f} ms (the conversations screen, loading; runs: "
        + ", ".join(f"{p * 1000:.0f}" for p in paints)
        + ")"
    )
    print(
        f"ohtui → demo listed   {median(listed) * 1000:6.0f} ms (the bundled server started in a child "
        "process beside the app; runs: " + ", ".join(f"{p * 1000:.0f}" for p in listed) + ")"
    )
    if args.install:
        cold, compiled = without_bytecode(max(1, (args.repeat + 1) // 2))
        if cold and compiled:
            figures["no_bytecode_first_paint_ms"] = median(cold) * 1000
            figures["no_bytecode_next_paint_ms"] = median(compiled) * 1000
            print(
                f"uv install, no bytecode  {median(cold) * 1000:6.0f} ms first paint; once ohtui "
                f"wrote its own {median(compiled) * 1000:.0f} ms "
                f"({median(cold) / median(compiled):.2f}×; runs: "
                + ", ".join(f"{a * 1000:.0f}" for a in cold)
                + " / "
                + ", ".join(f"{b * 1000:.0f}" for b in compiled)
                + ")"
            )
    for label, code in (
        ("--version", "import tui.cli"),
        ("the app", "import tui.app.app, tui.server.embedded"),
    ):
        offenders = import_offenders(code)
        print(f"import offenders of {label} (cumulative):")
        for name, seconds in offenders:
            print(f"  {seconds * 1000:6.0f} ms  {name}")
        figures[f"imports_{'version' if label == '--version' else 'app'}"] = [
            [n, round(s * 1000)] for n, s in offenders
        ]
    report("startup", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
