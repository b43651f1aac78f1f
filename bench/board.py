"""board: 200 live agents on one board — keys stay quick, sockets stay bounded.

The reference server runs in its own process with ``--agents`` simulated agents at once
(``create_app(agents=N)``: each works through stories in its own conversation, on its own
sandbox, a step every ``--pace`` seconds). The app opens the board on it with every agent
status shown (so all N are rows), ``--sockets`` of them followed over websockets and the
rest polled, and then, while the agents work, keys are injected as the terminal driver
would (no Pilot waits) and timed to the first paint after the board's state changed:
cursor down, a re-sort, the status filter. Also measured: how long until every row is
on the board and until every row has its details, the websockets and TCP connections the
app holds, how many row changes a second the board absorbs, and what one repaint of the
changed rows costs.

    python -m bench.board [--agents 200] [--sockets 20] [--seconds 20] [--presses 100]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time

from bench.common import ROOT, PaintProbe, median, percentile, report, send_key, until

GAPS = random.Random(19)
NOTIFIER = None
EVERY_STATUS = frozenset(
    {"running", "waiting_for_confirmation", "paused", "stuck", "error", "finished", "idle"}
)


def serve(agents: int, pace: float) -> int:
    """The server process: prints its URL, then serves until killed."""
    from tui.server import ServerThread, Store, create_app

    app = create_app(Store(), agents=agents, agent_pace=pace)
    with ServerThread(app) as server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


def connections(port: int) -> int:
    """Established TCP connections of this process to ``port`` (Linux /proc)."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            remote, state, inode = parts[2], parts[3], parts[9]
            if state == "01" and inode in inodes and int(remote.rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


HANDLED: list[float] = []  # key sent → the board's state changed (the app's own work)


async def press(app, probe, key: str, changed) -> float:
    """``changed``: called just before the key goes (after a random gap), returns the
    predicate that says the key was handled (the board moves on meanwhile)."""
    await asyncio.sleep(GAPS.uniform(0.01, 0.05))  # a key lands at any phase of the frame clock
    done = changed()
    began = time.perf_counter()
    send_key(app, key)
    await until(done, timeout=30, step=0)
    HANDLED.append(time.perf_counter() - began)
    return await probe.paint_after(began) - began


def cursor_moves(table):
    """Before a down key: off the last rows; then "the table handled the key" (its rows
    reorder as agents change, the cursor keeping its row, so neither its index nor its row
    says whether the key arrived)."""
    if table.cursor >= len(table.rows) - 2:
        table.cursor = 0
    moves = table.moves
    return lambda: table.moves > moves


def count_moves(table) -> None:
    """``table.moves``: how many cursor keys it has handled."""
    table.moves = 0
    down = table.action_cursor_down

    def counted() -> None:
        down()
        table.moves += 1

    table.action_cursor_down = counted


async def measure(url: str, args) -> dict:
    from tui.app.app import OhtuiApp
    from tui.app.board.options import BoardOptions
    from tui.app.screens.board.board import BoardScreen
    from tui.app.widgets.board.board_table import BoardTable
    from tui.client import OpenHandsClient

    options = BoardOptions(
        statuses=EVERY_STATUS, sockets=args.sockets, poll_seconds=args.poll, recent_minutes=600
    )
    app = OhtuiApp(OpenHandsClient(url), url=url, board=options, profile="bench", notifier=NOTIFIER)
    app.animation_level = "none"
    probe = PaintProbe(app)
    figures: dict = {"agents": args.agents, "sockets": args.sockets}
    async with app.run_test(size=(160, 48)):
        await until(lambda: app.screen.query("DataTable"), timeout=60)
        began = time.perf_counter()
        send_key(app, "3")
        await until(lambda: isinstance(app.screen, BoardScreen) and app.screen.feed, timeout=30)
        screen = app.screen
        probe.watch(screen)
        table = screen.query_one(BoardTable)
        probe.expect(lambda: len(table.rows) >= args.agents)
        await until(lambda: probe.shown_at is not None, timeout=120)
        figures["rows_ms"] = (probe.shown_at - began) * 1000
        await until(lambda: all(r.detail_key is not None for r in table.rows), timeout=300)
        figures["detailed_s"] = time.perf_counter() - began
        await until(lambda: len(screen.feed.followers) >= min(args.sockets, 1), timeout=60)
        await asyncio.sleep(2.0)  # the sockets are open and the agents keep working

        flushes: list[float] = []
        original = screen.flush

        def timed(force: bool = False) -> None:
            dirty = force or screen.model.dirty
            start = time.perf_counter()
            original(force)
            if dirty:
                flushes.append(time.perf_counter() - start)

        screen.flush = timed
        versions = sum(row.version for row in screen.model.rows.values())
        watch_began = time.perf_counter()
        figures["rows"] = len(table.rows)
        keys: dict[str, list[float]] = {"down": [], "sort": [], "filter": []}
        table.focus()
        count_moves(table)
        deadline = watch_began + args.seconds
        presses = 0
        followed: list[int] = []
        tcp: list[int] = []
        port = int(url.rsplit(":", 1)[1])
        while presses < args.presses or time.perf_counter() < deadline:
            keys["down"].append(await press(app, probe, "down", lambda: cursor_moves(table)))
            if presses % 10 == 0:
                sort = screen.model.sort
                keys["sort"].append(
                    await press(app, probe, "s", lambda s=sort: lambda: table.sort != s)
                )
                keys["filter"].append(
                    await press(
                        app, probe, "f", lambda: lambda: screen.model.status_filter is not None
                    )
                )
                screen.model.status_filter = None  # every row again for the cursor keys
                screen.flush(force=True)
                await asyncio.sleep(0.02)
                followed.append(len(screen.feed.followers))
                tcp.append(connections(port))
            presses += 1
        elapsed = time.perf_counter() - watch_began
        changes = sum(row.version for row in screen.model.rows.values()) - versions
        for name, values in keys.items():
            figures[f"{name}_median_ms"] = median(values) * 1000
            figures[f"{name}_p95_ms"] = percentile(values, 95) * 1000
            figures[f"{name}_presses"] = len(values)
        figures["followers_max"] = max(followed + [screen.feed.most_followed])
        figures["tcp_max"] = max(tcp) if tcp else 0
        figures["row_changes_per_s"] = changes / elapsed
        figures["flush_median_ms"] = median(flushes) * 1000
        figures["flush_p95_ms"] = percentile(flushes, 95) * 1000
        figures["flushes_per_s"] = len(flushes) / elapsed
        figures["watched_s"] = elapsed
        figures["statuses"] = sorted({row.status or "—" for row in screen.model.rows.values()})
        figures["handled_median_ms"] = median(HANDLED) * 1000
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--sockets", type=int, default=20)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between an agent's steps")
    parser.add_argument("--poll", type=float, default=4.0, help="board poll_seconds")
    parser.add_argument("--seconds", type=float, default=20.0, help="watch this long at least")
    parser.add_argument("--presses", type=int, default=100, help="cursor keys at least")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.agents, args.pace)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.board",
            "--serve",
            "--agents",
            str(args.agents),
            "--pace",
            str(args.pace),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        url = process.stdout.readline().strip()
        if not url.startswith("http"):
            raise RuntimeError(f"bench server did not start: {url!r}")
        figures = asyncio.run(measure(url, args))
    finally:
        process.terminate()
        process.wait(10)
    print(
        f"  {figures['rows']} rows ({args.agents} agents, a step every {args.pace:g} s each), "
        f"{args.sockets} sockets: all rows shown after {figures['rows_ms']:.0f} ms, "
        f"every row's details after {figures['detailed_s']:.1f} s"
    )
    print(f"  statuses on the board: {', '.join(figures['statuses'])}")
    for key in ("down", "sort", "filter"):
        print(
            f"  key {key:<6} median {figures[f'{key}_median_ms']:.1f} ms, "
            f"p95 {figures[f'{key}_p95_ms']:.1f} ms ({figures[f'{key}_presses']} presses)"
        )
    print(
        f"  a key handled (state changed, before the paint): median {figures['handled_median_ms']:.2f} ms"
    )
    print(
        f"  websockets at most {figures['followers_max']} (limit {args.sockets}), "
        f"TCP connections to the server at most {figures['tcp_max']}"
    )
    print(
        f"  {figures['row_changes_per_s']:.0f} row changes/s absorbed in "
        f"{figures['flushes_per_s']:.1f} repaints/s; a repaint's work median "
        f"{figures['flush_median_ms']:.2f} ms, p95 {figures['flush_p95_ms']:.2f} ms "
        f"(over {figures['watched_s']:.0f} s)"
    )
    report("board", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
