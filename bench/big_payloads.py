"""big_payloads: twenty outputs of 20 MB, looked through and exported, in both processes.

Issue 32 (finding 9): a conversation of twenty terminal observations of 20 MB each took
891 MB in the app and 1,237 MB in its folder server. Here ``ohtui`` runs as a user runs it,
in a pty: over a local folder (``ohtui PATH``: the folder server is its child process) or
against the reference server in its own process (``bench.serve --db``). The conversation
opens, every row is selected in turn until its detail pane shows it, then ``ctrl+s``
exports it (Markdown: every event fetched by id). Figures: each process's peak RSS
(``VmHWM``), the open (spawn → first rows painted), the slowest detail, the export.
Target: each process under 300 MB.

    python -m bench.big_payloads [--outputs 20] [--mb 20] [--servers folder,server]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from bench.common import ROOT, compile_tree, report
from bench.startup import ANSI, ohtui

CID = "0b16b16b0b16b16b0b16b16b0b16b16b"
TARGET_MB = 300
LINE = "output of a very chatty build step"


def event_id(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-00000000b16b"


def events(outputs: int, mb: float):
    """The conversation's events, one at a time (each output is built once, when its event
    is asked for): a message, then ``outputs`` commands with ``mb`` MB of output each."""
    lines = int(mb * 1024 * 1024 // 64)
    body = "".join(f"{i:>10} {LINE:<52}\n" for i in range(lines))
    yield {
        "id": event_id(999),
        "timestamp": "2026-11-20T10:00:00.000000",
        "source": "user",
        "parent_id": "__root__",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "build it"}]},
        "kind": "MessageEvent",
    }
    parent = event_id(999)
    for i in range(outputs):
        call = f"call-{i}"
        action = {
            "id": event_id(2 * i),
            "timestamp": f"2026-11-20T10:{i:02d}:01.000000",
            "source": "agent",
            "parent_id": parent,
            "thought": [],
            "action": {"command": f"make step{i}", "kind": "TerminalAction"},
            "tool_name": "terminal",
            "tool_call_id": call,
            "tool_call": {
                "id": call,
                "name": "terminal",
                "arguments": "{}",
                "origin": "completion",
            },
            "llm_response_id": "r",
            "security_risk": "UNKNOWN",
            "summary": f"step {i}",
            "kind": "ActionEvent",
        }
        yield action
        parent = event_id(2 * i + 1)
        yield {
            "id": parent,
            "timestamp": f"2026-11-20T10:{i:02d}:02.000000",
            "source": "environment",
            "parent_id": action["id"],
            "tool_name": "terminal",
            "tool_call_id": call,
            "action_id": action["id"],
            "observation": {
                "content": [{"type": "text", "text": f"step {i}\n{body}"}],
                "command": f"make step{i}",
                "exit_code": 0,
                "kind": "TerminalObservation",
            },
            "kind": "ObservationEvent",
        }


def write_folder(root: Path, outputs: int, mb: float) -> None:
    """The conversation as the agent writes it: one compact JSON file per event."""
    folder = root / CID
    (folder / "events").mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps({"id": CID, "title": "big outputs"}))
    for n, event in enumerate(events(outputs, mb)):
        name = f"event-{n:05d}-{event['id']}.json"
        (folder / "events" / name).write_text(json.dumps(event, separators=(",", ":")))


def write_store(path: Path, outputs: int, mb: float) -> None:
    """The same conversation in a reference server's database (in a child process: the
    bench's own memory is not what is measured, but it stays small all the same)."""
    from tui.server import Store
    from tui.server.views import conversation_info

    store = Store(str(path))
    try:
        info = conversation_info(
            id=CID, sandbox_id="sb", title="big outputs", created_at="2026-11-20T10:00:00Z"
        )
        store.put_conversation(info)
        for event in events(outputs, mb):  # one at a time: each output is 20 MB
            store.append_events(CID, [event], normalize=False)
    finally:
        store.close()


def peak_mb(pid: int) -> float:
    """The process's peak resident set (``VmHWM``), MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as found:
            return [int(child) for child in found.read().split()]
    except OSError:
        return []


def folder_server_of(pid: int) -> int | None:
    for child in children(pid):
        with open(f"/proc/{child}/cmdline", "rb") as cmdline:
            if b"tui.server.folder_process" in cmdline.read():
                return child
    return None


class Screen:
    """The app in a pty: keys in, the screen's text (escape sequences removed) out."""

    def __init__(self, argv: list[str], cwd: str) -> None:
        self.began = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the app, as a user starts it
            os.environ.update({"TERM": "xterm-256color", "COLORTERM": "truecolor"})
            os.chdir(cwd)
            os.execv(argv[0], argv)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.seen = b""

    def wait_for(self, text: bytes, timeout: float = 120.0) -> float:
        """Seconds until ``text`` was drawn since the last :meth:`press`."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.02)
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    break
                if text in ANSI.sub(b"", self.seen[-400_000:]):
                    return time.perf_counter()
        raise TimeoutError(f"{text!r} was not drawn")

    def press(self, keys: bytes) -> float:
        self.seen = b""
        os.write(self.fd, keys)
        return time.perf_counter()

    def close(self) -> None:
        os.write(self.fd, b"\x11")  # ctrl+q
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def look_through(argv: list[str], outputs: int, server_pid: int | None) -> dict[str, float]:
    """Open, select every row until its detail shows, export; the peaks and the times."""
    with tempfile.TemporaryDirectory(prefix="ohtui-bench-export-") as cwd:
        screen = Screen(argv, cwd)
        try:
            try:
                opened = screen.wait_for(b"exit 0 \xc2\xb7 step 0") - screen.began
            except TimeoutError:  # what an older ohtui did: say so, with its peaks
                said = ANSI.sub(b"", screen.seen[-400_000:]).decode(errors="replace")
                print(f"  the conversation did not open; the screen: {said[-600:]!r}")
                server_pid = server_pid or folder_server_of(screen.pid)
                return {
                    "open_s": float("nan"),
                    "app_peak_mb": peak_mb(screen.pid),
                    "server_peak_mb": peak_mb(server_pid) if server_pid else float("nan"),
                }
            server_pid = server_pid or folder_server_of(screen.pid)
            screen.press(b"v")  # the event log: every event a row, each output's own detail
            screen.wait_for("Events \u00b7".encode())
            slowest = 0.0
            for n in range(1, 2 * outputs + 1):  # the message is row 0, selected at first
                pressed = screen.press(b"\x1b[B")
                shown = screen.wait_for(f"id {event_id(n - 1)}".encode())
                slowest = max(slowest, shown - pressed)
            pressed = screen.press(b"\x13")  # ctrl+s: export the conversation as Markdown
            exported = screen.wait_for(b"Exported", timeout=300) - pressed
            figures = {
                "open_s": opened,
                "slowest_detail_s": slowest,
                "export_s": exported,
                "app_peak_mb": peak_mb(screen.pid),
                "server_peak_mb": peak_mb(server_pid) if server_pid else float("nan"),
            }
        finally:
            screen.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=20)
    parser.add_argument("--mb", type=float, default=20.0, help="size of each output")
    parser.add_argument("--servers", default="folder,server")
    args = parser.parse_args()
    compile_tree()
    figures: dict[str, float] = {}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="ohtui-bench-big-") as tmp:
        for server in args.servers.split(","):
            if server == "folder":
                root = Path(tmp) / "folders"
                write_folder(root, args.outputs, args.mb)
                found = look_through(
                    [*ohtui(), str(root), "--conversation", CID], args.outputs, None
                )
            else:
                db = Path(tmp) / "big.sqlite"
                script = (
                    "import sys; from pathlib import Path; from bench.big_payloads import "
                    "write_store; write_store(Path(sys.argv[1]), int(sys.argv[2]), "
                    "float(sys.argv[3]))"
                )
                subprocess.run(
                    [sys.executable, "-c", script, str(db), str(args.outputs), str(args.mb)],
                    cwd=ROOT,
                    env=env,
                    check=True,
                )
                process = subprocess.Popen(
                    [sys.executable, "-m", "bench.serve", "--db", str(db)],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                try:
                    assert process.stdout is not None
                    url = process.stdout.readline().strip()
                    found = look_through(
                        [*ohtui(), "--url", url, "--conversation", CID],
                        args.outputs,
                        process.pid,
                    )
                finally:
                    process.terminate()
                    process.wait(10)
            times = (
                f" · open {found['open_s']:.2f} s · slowest detail "
                f"{found['slowest_detail_s']:.2f} s · export {found['export_s']:.1f} s"
                if "export_s" in found
                else " · did not open"
            )
            print(
                f"{server:>6}: {args.outputs} outputs of {args.mb:g} MB · app peak "
                f"{found['app_peak_mb']:.0f} MB · {server} peak {found['server_peak_mb']:.0f} MB "
                f"(target < {TARGET_MB} MB each){times}",
                flush=True,
            )
            figures.update({f"{server}_{name}": value for name, value in found.items()})
    report("big_payloads", {"outputs": args.outputs, "mb": args.mb, **figures})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
