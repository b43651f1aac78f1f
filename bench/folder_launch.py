"""folder_launch: ``ohtui PATH`` in a real pty, launch → newest events painted, 50,000 vs 100.

A user opens a local conversation folder (what the OpenHands CLI writes: one JSON file per
event) as ``ohtui PATH --conversation ID``: the folder server (a child process started first,
``tui/server/folder_process.py``) indexes the folder while the app starts; the app opens the
conversation and paints its first rows; End (``G``) then paints the newest event. Timed from spawning the process to the first row on screen, and to the newest event
on screen; the 100-event folder in the same run is the baseline. Folders are written once
under bench/data/folders/ (``bench.folder_open``).

    python -m bench.folder_launch [--repeat 3] [--sizes 100,50000]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import struct
import termios
import time

from bench.common import ROOT, compile_tree, median, report
from bench.folder_open import make_folder
from bench.startup import ANSI, ohtui


def launch(root, cid: str, n: int, timeout: float = 60.0) -> tuple[float, float]:
    """(spawn → first event's row painted, spawn → newest event's row painted after End)."""
    first, newest = b"step 0 ", f"step {n - 1}".encode()
    began = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app, as a user starts it
        os.environ.update({"TERM": "xterm-256color", "COLORTERM": "truecolor"})
        os.chdir(ROOT)
        argv = [*ohtui(), str(root), "--conversation", cid]
        os.execv(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 42, 140, 0, 0))
    seen, shown = b"", None
    try:
        while time.perf_counter() - began < timeout:
            ready, _, _ = select.select([fd], [], [], 0.02)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            seen += chunk
            text = ANSI.sub(b"", seen[-200_000:])
            if shown is None and first in text:
                shown = time.perf_counter() - began
                seen = b""
                os.write(fd, b"G")  # End: the newest event
            elif shown is not None and newest in text:
                return shown, time.perf_counter() - began
        raise TimeoutError("the newest event was not painted")
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="100,50000")
    args = parser.parse_args()
    compile_tree()  # every launch reads tui's bytecode, as an installed ohtui does
    sizes = [int(s) for s in args.sizes.split(",")]
    folders = {n: make_folder(n) for n in sizes}
    runs: dict[int, list[tuple[float, float]]] = {n: [] for n in sizes}
    for _ in range(args.repeat):  # sizes alternate, so the machine's load falls on both
        for n in sizes:
            cid, root = folders[n]
            runs[n].append(launch(root / cid, cid, n))
    figures: dict[str, float] = {}
    for n in sizes:
        figures[f"first_{n}_ms"] = median([f for f, _ in runs[n]]) * 1000
        figures[f"newest_{n}_ms"] = median([e for _, e in runs[n]]) * 1000
        print(
            f"{n:>7,} events in a folder: launch → first rows {figures[f'first_{n}_ms']:6.0f} ms · "
            f"→ newest painted (End) {figures[f'newest_{n}_ms']:6.0f} ms "
            f"(runs: {', '.join(f'{e * 1000:.0f}' for _, e in runs[n])})",
            flush=True,
        )
    small, big = sizes[0], sizes[-1]
    figures["small"], figures["big"] = small, big
    figures["ratio"] = figures[f"newest_{big}_ms"] / figures[f"newest_{small}_ms"]
    print(f"{big:,} vs {small:,} events: launch → newest painted {figures['ratio']:.2f}×")
    report("folder_launch", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
