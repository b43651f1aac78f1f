"""What the benchmarks share: the dataset, a server in its own process, paint timing.

The server runs in a separate process (``python -m bench.serve``) so that its work never
competes with the app's for the GIL: the app is measured as a user would run it, against a
server elsewhere. Paint times come from wrapping the screen's compositor refresh (the
method of ``../shared/spec/textual-measured.md`` §6): a key is injected without Pilot's
waits, and the latency is the first paint after the change.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
#: the generated dataset (made once, reused); OHTUI_BENCH_DB names another file (the smoke test's)
DB = Path(os.environ.get("OHTUI_BENCH_DB") or DATA / "bench-v1.sqlite")
SIZES = (100, 100_000)
SIZE = (140, 42)
#: The server the benchmarks talk to: the reference server as an app server (``app``) or as a
#: bare agent server (``agent``: its own routes, event-id page ids, the client in agent mode);
#: chosen with ``--kind`` (``add_kind``), the same stored conversations either way.
KIND = "app"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def compile_tree() -> None:
    """``tui``'s bytecode written, as an install leaves it (pip compiles a wheel's modules).
    Where ``PYTHONDONTWRITEBYTECODE`` is set (this machine), a checkout otherwise compiles
    its modules from source in every process that imports them: each launch, the demo's
    and the folder's server, the index's and the live stream's helpers."""
    import compileall

    compileall.compile_dir(ROOT / "tui", quiet=1)


def dataset(sizes: tuple[int, ...] = SIZES, db: Path = DB) -> dict[int, str]:
    """Conversation ids by size, in a SQLite file generated once and reused."""
    from tui.server import Store
    from tui.server.demo import generate_conversation

    db.parent.mkdir(parents=True, exist_ok=True)
    index = db.with_suffix(".json")
    known = json.loads(index.read_text()) if index.exists() and db.exists() else {}
    store = Store(str(db))
    try:
        for n in sizes:
            if str(n) not in known:
                began = time.perf_counter()
                known[str(n)] = generate_conversation(store, n, seed=n)
                print(
                    f"  generated a {n:,}-event conversation in {time.perf_counter() - began:.1f} s",
                    flush=True,
                )
    finally:
        store.close()
    index.write_text(json.dumps(known))
    return {int(k): v for k, v in known.items() if int(k) in sizes}


def add_kind(parser) -> None:
    """``--kind app|agent`` on a benchmark's command line (see ``KIND``)."""
    parser.add_argument(
        "--kind",
        choices=("app", "agent"),
        default="app",
        help="serve as an app server (default) or a bare agent server",
    )


def use_kind(kind: str) -> None:
    global KIND
    KIND = kind


def events_path(cid: str) -> str:
    """The events search route of ``KIND``'s server."""
    if KIND == "agent":
        return f"/api/conversations/{cid}/events/search"
    return f"/api/v1/conversation/{cid}/events/search"


@contextmanager
def server_process(*args: str) -> Iterator[str]:
    """``with server_process("--db", path) as line``: the reference server in its own process;
    ``line`` is its first output line (the URL, then the live conversation id if any)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.serve", *args, *(["--kind", KIND] if KIND != "app" else [])],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        line = process.stdout.readline().strip()
        if not line.startswith("http"):
            raise RuntimeError(f"bench server did not start: {line!r}")
        yield line
    finally:
        process.terminate()
        process.wait(10)


def make_app(url: str, **options: Any):
    from tui.app.app import OhtuiApp
    from tui.client import OpenHandsClient

    # the kind found out by the client, as for a user's ``--url`` (agent mode included)
    app = OhtuiApp(OpenHandsClient(url), url=url, **options)
    app.animation_level = "none"
    return app


class PaintProbe:
    """Records the time of every compositor refresh of the app's screens."""

    def __init__(self, app) -> None:
        self.app = app
        self.paints: list[float] = []
        self._wrapped: set[int] = set()
        self._wanted = None
        self.shown_at: float | None = None  # the first paint at which ``expect``'s state held

    def expect(self, predicate) -> None:
        """Note the first paint made while ``predicate()`` is true (checked as each paint
        ends): exact, where polling for the state and then waiting for the next paint could
        miss the paint that showed it and take a later one."""
        self._wanted, self.shown_at = predicate, None

    def watch(self, screen) -> None:
        if id(screen) in self._wrapped:
            return
        self._wrapped.add(id(screen))
        original = screen._compositor_refresh

        def refresh(*args, **kwargs):
            result = original(*args, **kwargs)
            now = time.perf_counter()
            self.paints.append(now)
            if self._wanted is not None and self.shown_at is None and self._wanted():
                self.shown_at = now
            return result

        screen._compositor_refresh = refresh

    async def paint_after(self, moment: float, timeout: float = 10.0) -> float:
        """The first paint after ``moment`` (perf_counter seconds)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for t in reversed(self.paints):
                if t > moment:
                    later = [p for p in self.paints if p > moment]
                    return min(later)
            await asyncio.sleep(0.0005)
        raise TimeoutError("no paint")


def rows_shown(screen) -> bool:
    """The conversation screen's list shows its window and the window's first row is loaded."""
    from tui.app.widgets.conversation.event_list import EventList

    lists = screen.query(EventList)  # empty until the screen has composed
    return (
        bool(lists) and lists.first().source is screen.window and screen.window.row(0) is not None
    )


def send_key(app, key: str) -> None:
    """Inject a key as the terminal driver would, without Pilot's waits."""
    from textual import events

    event = events.Key(key, None)
    event.set_sender(app)
    app._driver.send_message(event)


async def until(predicate, timeout: float = 60.0, step: float = 0.001) -> None:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("condition not met")
        await asyncio.sleep(step)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def rss_mb() -> float:
    """Current resident set size (Linux /proc), MB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def report(name: str, figures: dict[str, Any]) -> None:
    """The machine-readable line the runner collects (``python -m bench``)."""
    print("RESULT " + json.dumps({"bench": name, "kind": KIND, **figures}), flush=True)
