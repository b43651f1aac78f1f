"""hostile: does work grow linearly with hostile input? Export, tree index, the detail pane
and the tree pane, each timed at several sizes in one run and printed as a ratio against
the small case.

* export of one terminal output of 0.1 / 1 / 10 MB (log lines, carriage-return progress,
  ANSI colours, a token here and there), as Markdown and as JSONL;
* export of one file edit whose old and new contents are 0.1 / 1 / 10 MB and differ
  throughout (the diff);
* the tree index of 100,000 siblings under one parent against a 100,000-event chain: in one
  batch, in pages of 100, and with the children arriving before their parent;
* the detail pane drawing a crafted file edit (each line repeated in exactly 1% of the lines:
  never junk to ``difflib``, which took 51 s on the 156,000-character one) at 1/10 and full
  size: the pane's widgets built and the diff laid out at 100 columns;
* the tree pane over 100,000 siblings (and siblings every tenth of which is a state update)
  against a 100,000-event chain: the outline worked out, the pane filled, End pressed and
  the visible lines drawn (the chain's run opened, so End moves there too).

For linear work, ``time ratio`` ≈ ``size ratio`` (``per-byte`` ≈ 1); Markdown is cut to its
block cap, so its per-byte ratio falls below 1 as inputs grow. The trees' target is fan-out
≤ 2× the chain; the detail's is ≤ 10× for 10× the edit (it draws at most 2,000 diff lines).

    python -m bench.hostile [--sizes 0.1,1,10] [--tree 100000] [--edit 9900] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from bench.common import report

_LINE = "2026-01-01 00:00:{:02d} step {:>7}: compiling module_{}.py … ok\n"


def terminal_output(size: int) -> str:
    """About ``size`` characters of a chatty build: lines, colours, a token here and there,
    and one long line (a tenth of the output) followed by a spinner that redraws it with
    carriage returns (what made the old export quadratic: each return copied the line)."""
    spinner = "".join("\r" + "|/-\\"[i % 4] for i in range(max(1, size // 50)))
    parts: list[str] = ["x" * (size // 10) + spinner + "\n"]
    total, n = len(parts[0]), 0
    while total < size:
        if n % 97 == 0:
            chunk = f"\x1b[31mwarning\x1b[0m: GITHUB_TOKEN=ghp_{n:036d} leaked in a log\n"
        else:
            chunk = _LINE.format(n % 60, n, n % 1000)
        parts.append(chunk)
        total += len(chunk)
        n += 1
    return "".join(parts)


def file_contents(size: int, variant: int) -> str:
    """About ``size`` characters of source; ``variant`` changes every tenth line."""
    lines, total, n = [], 0, 0
    while total < size:
        line = f"    value_{n} = compute({n}, {variant if n % 10 == 0 else 0})  # line {n}"
        lines.append(line)
        total += len(line) + 1
        n += 1
    return "\n".join(lines) + "\n"


def _events(kind: str, size: int) -> list[Any]:
    from tui.models import parse_event

    call = "call-1"
    if kind == "output":
        action: dict[str, Any] = {"kind": "TerminalAction", "command": "make all"}
        tool = "terminal"
        observation: dict[str, Any] = {
            "kind": "TerminalObservation",
            "command": "make all",
            "exit_code": 0,
            "content": [{"type": "text", "text": terminal_output(size)}],
        }
    else:
        action = {"kind": "FileEditorAction", "command": "str_replace", "path": "/w/big.py"}
        tool = "file_editor"
        observation = {
            "kind": "FileEditorObservation",
            "command": "str_replace",
            "path": "/w/big.py",
            "old_content": file_contents(size, 1),
            "new_content": file_contents(size, 2),
        }
    events = [
        {
            "id": "a1",
            "source": "agent",
            "thought": [],
            "action": action,
            "tool_name": tool,
            "tool_call_id": call,
            "tool_call": {"id": call, "name": tool, "arguments": "{}", "origin": "completion"},
            "llm_response_id": "r",
            "kind": "ActionEvent",
        },
        {
            "id": "o1",
            "source": "environment",
            "tool_name": tool,
            "tool_call_id": call,
            "action_id": "a1",
            "observation": observation,
            "kind": "ObservationEvent",
        },
    ]
    return [parse_event(e) for e in events]


def timed(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` runs, or of as many as fit in ~0.3 s for quick ones (the
    small cases are the baselines: their noise would show in every ratio)."""
    began = time.perf_counter()
    fn()
    samples = [time.perf_counter() - began]
    runs = max(repeat, min(50, int(0.3 / max(samples[0], 1e-6))))
    for _ in range(runs - 1):
        began = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - began)
    return min(samples)


def export_figures(sizes_mb: list[float], repeat: int) -> dict[str, float]:
    import json

    from tui.export import to_jsonl, to_markdown

    figures: dict[str, float] = {}
    small = sizes_mb[0]
    for kind, formats in (("output", ("md", "jsonl")), ("diff", ("md",))):
        base: dict[str, float] = {}
        for mb in sizes_mb:
            events = _events(kind, int(mb * 1_000_000))
            # the memory system's own cost at this size: one json.dumps of the event's data
            # (10 MB strings cost more per byte than 1 MB ones here: fresh pages, caches)
            floor = timed(lambda events=events: json.dumps(events[1].model_dump()), repeat)
            figures[f"{kind}_floor_{mb:g}mb_ms"] = floor * 1000
            for fmt in formats:
                render = to_markdown if fmt == "md" else to_jsonl
                seconds = timed(lambda render=render, events=events: render(events), repeat)
                key = f"{kind}_{fmt}_{mb:g}mb"
                figures[f"{key}_ms"] = seconds * 1000
                if mb == small:
                    base[fmt] = seconds
                ratio = seconds / base[fmt]
                per_byte = ratio / (mb / small)
                figures[f"{key}_ratio"] = ratio
                figures[f"{key}_per_byte"] = per_byte
                figures[f"{key}_vs_floor"] = seconds / floor
                print(
                    f"export {kind:<6} {fmt:<5} {mb:>6g} MB: {seconds * 1000:9.1f} ms   "
                    f"×{ratio:8.2f} the {small:g} MB case (size ×{mb / small:g}; per byte "
                    f"{per_byte:.2f}); ×{seconds / floor:5.1f} one json.dumps of the event",
                    flush=True,
                )
    return figures


def _tree_pairs(n: int, shape: str) -> list[tuple[str | None, str | None]]:
    from tui.models import ROOT_PARENT

    if shape == "chain":
        return [(f"e{i}", f"e{i - 1}" if i else ROOT_PARENT) for i in range(n)]
    if shape == "fan":
        return [("p", ROOT_PARENT)] + [(f"e{i}", "p") for i in range(n - 1)]
    # children first, their parent last: every child waits as an orphan until it arrives
    return [(f"e{i}", "p") for i in range(n - 1)] + [("p", ROOT_PARENT)]


def tree_figures(n: int, repeat: int) -> dict[str, float]:
    from tui.models import EventTree

    def build(pairs: list, page: int | None) -> None:
        if page is None:
            EventTree(pairs)
            return
        tree = EventTree()
        for start in range(0, len(pairs), page):
            tree.extend(pairs[start : start + page])
        tree.roots  # noqa: B018 - the roots list is settled lazily: count it

    figures: dict[str, float] = {}
    for label, page in (("batch", None), ("pages", 100)):
        chain = timed(lambda page=page: build(_tree_pairs(n, "chain"), page), repeat)
        for shape in ("fan", "orphans"):
            seconds = timed(
                lambda shape=shape, page=page: build(_tree_pairs(n, shape), page), repeat
            )
            ratio = seconds / chain
            figures[f"tree_{shape}_{label}_ms"] = seconds * 1000
            figures[f"tree_{shape}_{label}_ratio"] = ratio
            print(
                f"tree {n:,} {shape:<8} ({label:<5}): {seconds * 1000:8.1f} ms   "
                f"×{ratio:5.2f} the {n:,}-event chain ({chain * 1000:.1f} ms)",
                flush=True,
            )
        figures[f"tree_chain_{label}_ms"] = chain * 1000
    return figures


def crafted_edit(lines: int, variant: int) -> str:
    """A file whose every line repeats in exactly 1% of the lines (``difflib`` junks only
    lines above 1%), in an order that differs between the variants: each line matches in
    a hundred places, which made ``difflib``'s search grow with the product of the sides."""
    pool = max(2, lines // 100)
    step = 7 if variant else 13
    return "\n".join(f"line {(n * step) % pool}" for n in range(lines))


def _edit_event(lines: int) -> Any:
    from tui.models import parse_event

    return parse_event(
        {
            "id": "edit-1",
            "source": "agent",
            "thought": [],
            "action": {
                "kind": "FileEditorAction",
                "command": "str_replace",
                "path": "/w/crafted.txt",
                "old_str": crafted_edit(lines, 0),
                "new_str": crafted_edit(lines, 1),
            },
            "tool_name": "file_editor",
            "tool_call_id": "call-e",
            "tool_call": {
                "id": "call-e",
                "name": "file_editor",
                "arguments": "{}",
                "origin": "completion",
            },
            "llm_response_id": "r",
            "kind": "ActionEvent",
        }
    )


def detail_figures(lines: int, repeat: int) -> dict[str, float]:
    """The detail pane on a crafted edit: its widgets built (the diff included) and the diff
    laid out at 100 columns, at ``lines // 10`` and ``lines`` lines."""
    import io

    from rich.console import Console
    from textual.widgets import Static

    from tui.app.widgets.conversation.event_views import body

    console = Console(width=100, file=io.StringIO(), color_system=None)

    def draw(event: Any) -> None:
        for widget in body(event, None):
            if isinstance(widget, Static):
                console.render_lines(widget.content, console.options.update(width=100))

    figures: dict[str, float] = {}
    base = 0.0
    for size in (max(100, lines // 10), lines):
        event = _edit_event(size)
        chars = len(event.action.old_str) + len(event.action.new_str)
        seconds = timed(lambda event=event: draw(event), repeat)
        base = base or seconds
        ratio = seconds / base
        figures[f"detail_edit_{size}_ms"] = seconds * 1000
        figures[f"detail_edit_{size}_chars"] = chars
        figures[f"detail_edit_{size}_ratio"] = ratio
        print(
            f"detail crafted edit {size:>6,} lines ({chars:>7,} chars): {seconds * 1000:7.1f} ms"
            f"   ×{ratio:5.2f} the small case (size ×{size / max(100, lines // 10):g})",
            flush=True,
        )
    return figures


def _pane_rows(pairs: list[tuple[str | None, str | None]], shape: str) -> list[Any]:
    from tui.app.store.rows import EventRow

    state = "ConversationStateUpdateEvent"
    return [
        EventRow(
            eid,
            f"2026-01-01T00:00:{i % 60:02d}",
            "agent",
            state if shape == "mixed" and i % 10 == 5 else "MessageEvent",
            f"message {i}",
            parent,
        )
        for i, (eid, parent) in enumerate(pairs)
    ]


def pane_figures(n: int, repeat: int) -> dict[str, float]:
    """The tree pane over ``n`` events: outline, fill, End and its visible lines drawn."""
    import asyncio

    from textual.app import App, ComposeResult
    from textual.geometry import Region

    from tui.app.store.tree_outline import TreeWalk, finish
    from tui.app.widgets.conversation.event_tree import EventTreeView
    from tui.models import EventTree

    class Pane(App):
        def compose(self) -> ComposeResult:
            yield EventTreeView(id="tree")

    async def measure(shape: str) -> tuple[float, float, float]:
        pairs = _tree_pairs(n, "fan" if shape == "mixed" else shape)
        rows = _pane_rows(pairs, shape)
        tree = EventTree(pairs)
        best = (float("inf"),) * 3
        for _ in range(repeat):
            app = Pane()
            async with app.run_test(size=(60, 40)) as pilot:
                view = app.query_one(EventTreeView)
                began = time.perf_counter()
                walk = TreeWalk(tree, rows)
                outline = finish(walk.outline())
                walked = time.perf_counter() - began
                await pilot.pause()
                began = time.perf_counter()
                view.show(walk, outline)
                if shape == "chain":  # its run opened: 500 leaves and "… more", End moves too
                    node = view.root.children[0]
                    view._fill_run(node, node.data, 0)
                    node.expand()
                shown = time.perf_counter() - began
                began = time.perf_counter()  # the pane's lines are laid out on first use
                view.action_scroll_end()
                view.render_lines(Region(0, 0, view.size.width, view.size.height))
                ended = time.perf_counter() - began
            best = tuple(min(a, b) for a, b in zip(best, (walked, shown, ended), strict=True))
        return best  # type: ignore[return-value]

    figures: dict[str, float] = {}
    results = {shape: asyncio.run(measure(shape)) for shape in ("chain", "fan", "mixed")}
    chain = results["chain"]
    for shape, (walked, shown, ended) in results.items():
        for part, seconds, against in (
            ("outline", walked, chain[0]),
            ("show", shown, chain[1]),
            ("end", ended, chain[2]),
        ):
            figures[f"pane_{shape}_{part}_ms"] = seconds * 1000
            if shape != "chain":
                figures[f"pane_{shape}_{part}_ratio"] = seconds / against
        if shape != "chain":
            print(
                f"tree pane {n:,} {shape:<5}: outline {walked * 1000:7.1f} ms (×{walked / chain[0]:.2f})"
                f"  fill {shown * 1000:6.1f} ms (×{shown / chain[1]:.2f})"
                f"  End+draw {ended * 1000:6.1f} ms (×{ended / chain[2]:.2f}) the chain's",
                flush=True,
            )
        else:
            print(
                f"tree pane {n:,} chain: outline {walked * 1000:7.1f} ms  fill {shown * 1000:6.1f} ms"
                f"  End+draw {ended * 1000:6.1f} ms",
                flush=True,
            )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.1,1,10", help="output/diff sizes in MB")
    parser.add_argument("--tree", type=int, default=100_000, help="events in the tree cases")
    parser.add_argument("--edit", type=int, default=9_900, help="lines of the crafted edit")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [float(s) for s in args.sizes.split(",")]
    figures: dict[str, Any] = {
        "sizes_mb": sizes,
        "tree_events": args.tree,
        "edit_lines": args.edit,
    }
    figures.update(export_figures(sizes, args.repeat))
    figures.update(tree_figures(args.tree, args.repeat))
    figures.update(detail_figures(args.edit, args.repeat))
    figures.update(pane_figures(args.tree, args.repeat))
    report("hostile", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
