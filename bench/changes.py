"""changes: the Changes view over 2,000 changed files and a 1 MB file's diff, vs a bare
Textual DataTable of the same 2,000 rows in the same run.

The workspace is a git repository made in a temporary folder: 2,000 files changed since its
one commit, one of them a text just under the server's 1 MB limit with every 7th line
edited. A local conversation folder names it, and the reference server over folders serves
it from its own process (``bench.serve --folder``), as ``ohtui PATH`` reads a CLI
conversation's checkout.

- first rows: the client's answer of the changes in hand → the first paint showing all the
  files table's rows (``--repeat`` opens); bare: a DataTable given the same rows → its first
  paint.
- keys: j, k and page down on the files table once every count is in, press → paint; bare:
  down, up and page down on the DataTable.
- diff: the cursor onto the 1 MB file → its diff painted, and meanwhile the loop's longest
  stall (a callback every millisecond notes how late it runs); once with the texts fetched
  from the server, once from the view's kept texts (only the rows worked out again); bare:
  the same probe on the bare app, idle, for as long.

    python -m bench.changes [--files 2000] [--presses 60] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
import uuid
from pathlib import Path

from bench.common import (
    PaintProbe,
    make_app,
    median,
    percentile,
    report,
    send_key,
    server_process,
    until,
)

#: Wide enough for files and diff side by side (the diff follows the cursor), as people
#: read Changes; the bare table gets the same terminal.
SIZE = (160, 48)
BIG = "data/big.txt"
BIG_LINES = 20_000  # 50 bytes each: 1,000,000 bytes, under the server's 1 MiB
GAPS = random.Random(29)


def build(root: Path, files: int) -> Path:
    """A repository with ``files`` changed files, and the folder of conversation folders
    (one, naming it) to serve."""
    from tui.server.workspace_demo import AUTHOR
    from tui.server.workspace_git import git

    work = root / "checkout"
    (work / "data").mkdir(parents=True)
    small = [f"src/pkg{i // 100:02d}/mod{i:04d}.py" for i in range(files - 1)]
    for name in small:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text("".join(f"value_{n} = {n}\n" for n in range(20)))
    (work / BIG).write_text("".join(f"line {n:06d} {'x' * 37}\n" for n in range(BIG_LINES)))
    env = {**AUTHOR, "GIT_AUTHOR_DATE": "2026-08-17T09:00:00+00:00"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A", env=env)
    git(work, "commit", "-q", "--no-gpg-sign", "-m", "Initial commit", env=env)
    for name in small:
        (work / name).write_text("".join(f"value_{n} = {n * 2}\n" for n in range(20)))
    (work / BIG).write_text(
        "".join(f"line {n:06d} {('y' if n % 7 == 0 else 'x') * 37}\n" for n in range(BIG_LINES))
    )
    cid = uuid.uuid4().hex
    folder = root / "conversations" / cid
    (folder / "events").mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps({"id": cid, "title": "2,000 changed files"}))
    state = {"id": cid, "workspace": {"working_dir": str(work), "kind": "LocalWorkspace"}}
    (folder / "base_state.json").write_text(json.dumps(state))
    event = {
        "id": str(uuid.uuid4()),
        "timestamp": "2026-08-17T09:00:00",
        "source": "user",
        "kind": "MessageEvent",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "Change it all"}]},
    }
    (folder / "events" / f"event-00000-{event['id']}.json").write_text(json.dumps(event))
    return folder.parent


class StallProbe:
    """A callback every millisecond on the app's loop: how late each one ran."""

    TICK = 0.001

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(self.TICK)
            now = time.perf_counter()
            self.gaps.append(max(0.0, now - last - self.TICK))
            last = now

    def start(self) -> None:
        self.gaps = []
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> float:
        """The longest stall seen, in seconds."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        return max(self.gaps, default=0.0)


async def press(app, probe: PaintProbe, key: str, changed) -> float:
    await asyncio.sleep(GAPS.uniform(0.01, 0.05))  # a key arrives at any phase of the frame clock
    began = time.perf_counter()
    send_key(app, key)
    await until(changed, timeout=30, step=0)
    return await probe.paint_after(began) - began


async def keys(app, probe: PaintProbe, table, presses: int, names: dict[str, str]) -> dict:
    """Median and p95 of each key (``names``: the figure's name → the key pressed)."""
    out: dict[str, list[float]] = {name: [] for name in names}
    for name, key in names.items():
        for i in range(presses):
            before = table.cursor_row
            if name == "pgdn" and before >= table.row_count - 100:
                table.move_cursor(row=0)
                await asyncio.sleep(0.05)
                before = table.cursor_row
            if name == "k" and before == 0:
                table.move_cursor(row=10)
                await asyncio.sleep(0.05)
                before = table.cursor_row
            took = await press(app, probe, key, lambda before=before: table.cursor_row != before)
            out[name].append(took)
    return out


async def ohtui(url: str, cid: str, files: int, presses: int, repeat: int) -> dict[str, float]:
    from tui.app.screens.changes import ChangesScreen
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.widgets.workspace.changes_tables import FilesTable
    from tui.app.widgets.workspace.diff_view import DiffView

    app = make_app(url, conversation_id=cid, readonly=True, local=True)
    probe = PaintProbe(app)
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationScreen), timeout=60)
        conversation = app.screen
        await until(lambda: conversation.conversation is not None, timeout=60)
        answered: list[float] = []
        original = app.client.git_changes

        async def timed(*args, **kwargs):
            found = await original(*args, **kwargs)
            answered.append(time.perf_counter())
            return found

        app.client.git_changes = timed
        first: list[float] = []
        for attempt in range(repeat):
            answered.clear()
            send_key(app, "w")
            await until(lambda: isinstance(app.screen, ChangesScreen), timeout=30)
            changes = app.screen
            probe.watch(changes)
            await until(lambda changes=changes: bool(changes.query("#changes-files")), timeout=30)
            table = changes.query_one("#changes-files", FilesTable)
            probe.expect(lambda table=table: bool(answered) and table.row_count >= files)
            await until(lambda: probe.shown_at is not None, timeout=120)
            first.append(probe.shown_at - answered[0])
            probe.expect(None)
            if attempt < repeat - 1:
                await asyncio.sleep(0.3)
                send_key(app, "escape")
                await until(lambda: app.screen is conversation, timeout=30)
                await asyncio.sleep(0.3)
        began = time.perf_counter()
        await until(lambda: len(changes.counted) >= files, timeout=1200, step=0.05)
        figures["count_all_s"] = time.perf_counter() - began
        await asyncio.sleep(0.5)
        table.focus()
        table.move_cursor(row=0)
        await asyncio.sleep(0.3)
        times = await keys(app, probe, table, presses, {"j": "j", "k": "k", "pgdn": "pagedown"})

        # the 1 MB file's diff: fetched, then from the kept texts
        big = table.keys.index(BIG)
        near, step = (big + 1, "k") if big == 0 else (big - 1, "j")  # the row beside it
        view = changes.query_one(DiffView)
        stalls = StallProbe()
        for how in ("fetched", "kept"):
            table.focus()  # enter gave the diff the keys
            table.move_cursor(row=near)
            await until(lambda: changes.shown_path == table.keys[near], timeout=30)
            await until(lambda: view.diff is not None, timeout=60)
            await asyncio.sleep(0.5)
            if how == "fetched":
                changes.diffs.clear()  # the counting pass may have kept it
            stalls.start()
            probe.expect(lambda: changes.shown_path == BIG and view.diff is not None)
            began = time.perf_counter()
            send_key(app, step)
            send_key(app, "enter")
            await until(lambda: probe.shown_at is not None, timeout=120)
            figures[f"diff_{how}_ms"] = (probe.shown_at - began) * 1000
            probe.expect(None)
            figures[f"diff_{how}_stall_ms"] = await stalls.stop() * 1000
            figures["diff_rows"] = float(len(view.diff.rows)) if view.diff is not None else 0.0
    figures["first_rows_ms"] = median(first) * 1000
    for name, values in times.items():
        figures[f"{name}_median_ms"] = median(values) * 1000
        figures[f"{name}_p95_ms"] = percentile(values, 95) * 1000
    return figures


async def bare(rows: list[tuple[str, str]], presses: int, repeat: int, idle: float) -> dict:
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    class Bare(App):
        def compose(self) -> ComposeResult:
            yield DataTable(cursor_type="row")

    app = Bare()
    app.animation_level = "none"
    probe = PaintProbe(app)
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE):
        table = app.query_one(DataTable)
        table.add_columns("status", "+", "−", "path")
        probe.watch(app.screen)
        first = []
        for _ in range(repeat):
            table.clear()
            await asyncio.sleep(0.3)
            probe.expect(lambda: table.row_count >= len(rows))
            began = time.perf_counter()
            table.add_rows((status, "", "", path) for status, path in rows)
            await until(lambda: probe.shown_at is not None, timeout=60)
            first.append(probe.shown_at - began)
            probe.expect(None)
        table.focus()
        await asyncio.sleep(0.3)
        times = await keys(app, probe, table, presses, {"j": "down", "k": "up", "pgdn": "pagedown"})
        stalls = StallProbe()
        stalls.start()
        await asyncio.sleep(idle)
        figures["idle_stall_ms"] = await stalls.stop() * 1000
    figures["first_rows_ms"] = median(first) * 1000
    for name, values in times.items():
        figures[f"{name}_median_ms"] = median(values) * 1000
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--presses", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from tui.server.workspace_git import git_available

    if not git_available():
        print("changes: git is not installed: no workspace to read")
        return 0
    with tempfile.TemporaryDirectory(prefix="ohtui-bench-changes-") as temp:
        began = time.perf_counter()
        folders = build(Path(temp), args.files)
        print(f"  built {args.files:,} changed files in {time.perf_counter() - began:.1f} s")
        cid = next(folders.iterdir()).name
        with server_process("--folder", str(folders)) as url:
            o = asyncio.run(ohtui(url, cid, args.files, args.presses, args.repeat))
        rows = sorted(
            [("UPDATED", f"src/pkg{i // 100:02d}/mod{i:04d}.py") for i in range(args.files - 1)]
            + [("UPDATED", BIG)],
            key=lambda row: row[1],
        )
        idle = max(o["diff_fetched_ms"], o["diff_kept_ms"]) / 1000
        b = asyncio.run(bare(rows, args.presses, args.repeat, idle))
    figures = {f"bare_{k}": v for k, v in b.items()} | o
    figures["first_rows_ratio"] = o["first_rows_ms"] / b["first_rows_ms"]
    print(
        f"first rows after the answer: {o['first_rows_ms']:.1f} ms"
        f"  (bare DataTable: {b['first_rows_ms']:.1f} ms, {figures['first_rows_ratio']:.2f}×)"
    )
    for name in ("j", "k", "pgdn"):
        figures[f"{name}_ratio"] = o[f"{name}_median_ms"] / b[f"{name}_median_ms"]
        print(
            f"key {name:<5} median {o[f'{name}_median_ms']:.1f} ms, p95 {o[f'{name}_p95_ms']:.1f} ms"
            f"  (bare: {b[f'{name}_median_ms']:.1f} ms, {figures[f'{name}_ratio']:.2f}×)"
        )
    for how in ("fetched", "kept"):
        print(
            f"1 MB diff ({how}): painted after {o[f'diff_{how}_ms']:.0f} ms, loop's longest stall"
            f" {o[f'diff_{how}_stall_ms']:.1f} ms  (bare app idle: {b['idle_stall_ms']:.1f} ms)"
        )
    print(
        f"every file's counts in after {o['count_all_s']:.1f} s; the diff has {o['diff_rows']:,.0f} rows"
    )
    report("changes", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
