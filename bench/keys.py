"""keys: keypress → repainted screen with 100,000 events known to the list, vs 100 events.

Keys are injected as the terminal driver would (no Pilot waits) and timed to the first
paint after the list's state changed: down, page down (then page up to come back), End and
Home, and a filter change (kind = ActionEvent, which fetches a new first page, and back to
every event, the loaded base view; their medians are also given apart, as "filter on" and
"filter off": the median of both alternating falls between the two groups and moves with
either). Median and p95 of --presses per key (--presses / 5 filter changes, or --filters).

Presses are spaced by a random 10–50 ms (seeded), as a person's keys arrive at any moment.
Injected back to back (1 ms after the previous paint) every key would land just after
Textual's 60 fps screen-update tick and wait for the next one, measuring one whole frame
(16.7 ms) each time whatever the app does.

    python -m bench.keys [--presses 200] [--filters 40]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

from bench import common
from bench.common import (
    DB,
    SIZE,
    PaintProbe,
    dataset,
    make_app,
    median,
    percentile,
    report,
    rows_shown,
    server_process,
    until,
)

HANDLED: list[float] = []  # key sent → the list's state changed (the app's own work)
#: a filter change's CPU on the app's loop thread, press → the paint that shows it: what the
#: app did, which the machine's load moves far less than the wall time
CPU: dict[str, list[float]] = {"filter on": [], "filter off": []}
GAPS = random.Random(6)


async def press(app, probe, key: str, changed) -> float:
    from bench.common import send_key

    await asyncio.sleep(GAPS.uniform(0.01, 0.05))  # a key arrives at any phase of the frame clock
    began = time.perf_counter()
    send_key(app, key)
    await until(changed, timeout=30, step=0)
    HANDLED.append(time.perf_counter() - began)
    return await probe.paint_after(began) - began


async def measure(url: str, cid: str, presses: int, filters: int) -> dict[str, list[float]]:
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.store.row_windows import EventQuery
    from tui.app.widgets.conversation.event_list import EventList
    from tui.app.widgets.conversation.event_tree import EventTreeView

    app = make_app(url, conversation_id=cid)
    probe = PaintProbe(app)
    out: dict[str, list[float]] = {
        "down": [],
        "pagedown": [],
        "end/home": [],
        "filter": [],
        "filter on": [],
        "filter off": [],
    }
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationScreen))
        screen = app.screen
        probe.watch(screen)
        await until(lambda: rows_shown(screen))
        await until(
            lambda: screen.events.base.complete, timeout=600
        )  # everything known: the worst case for the list
        # and settled: the tree pane's outline of every event is shown (it is worked out in
        # slices after the index completes; keys pressed meanwhile share the loop with it)
        tree = screen.query_one(EventTreeView)
        await until(lambda: tree.shown_size == len(screen.events.base.head), timeout=600)
        await asyncio.sleep(0.3)
        event_list = screen.query_one(EventList)
        event_list.focus()
        for i in range(presses):
            before = event_list.cursor
            if before >= len(screen.window) - 2:
                event_list.cursor = 0
                await asyncio.sleep(0.02)
                before = 0
            out["down"].append(
                await press(app, probe, "down", lambda before=before: event_list.cursor != before)
            )
        for i in range(presses):
            before = event_list.cursor
            key = "pagedown" if i % 2 == 0 else "pageup"
            out["pagedown"].append(
                await press(app, probe, key, lambda before=before: event_list.cursor != before)
            )
        for i in range(presses):
            before = event_list.cursor
            key = "end" if i % 2 == 0 else "home"
            out["end/home"].append(
                await press(app, probe, key, lambda before=before: event_list.cursor != before)
            )
        for i in range(max(2, filters)):
            kind = "ActionEvent" if i % 2 == 0 else None
            # let the previous filter's detail pane settle (its event is fetched and drawn after
            # a debounce), so what is timed is this filter, not the last one's detail
            await asyncio.sleep(0.3)
            window = screen.window
            # the first paint that shows the new view's rows, noted by the paint itself: no
            # polling loop spinning on a core the server and the app need (step=0 took one
            # of the machine's two cores for the whole press: the server's answer came
            # 2-5 ms later than alone)
            shown_cpu: list[float] = []  # the loop thread's CPU when that paint ended

            def shown(window=window, shown_cpu=shown_cpu) -> bool:
                if (
                    screen.window is not window
                    and event_list.source is screen.window
                    and screen.window.row(0) is not None
                ):
                    shown_cpu.append(time.thread_time())
                    return True
                return False

            probe.expect(shown)
            began, cpu = time.perf_counter(), time.thread_time()
            screen.apply_query(EventQuery(kind=kind))
            await until(lambda: probe.shown_at is not None, timeout=30)
            took = probe.shown_at - began
            probe.expect(None)
            out["filter"].append(took)
            out["filter on" if kind else "filter off"].append(took)
            CPU["filter on" if kind else "filter off"].append(shown_cpu[0] - cpu)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument(
        "--filters", type=int, help="filter changes (half on, half off); --presses / 5 unless given"
    )
    parser.add_argument("--sizes", default="100,100000")
    common.add_kind(parser)
    args = parser.parse_args()
    common.use_kind(args.kind)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    ids = dataset(sizes)
    figures: dict[str, float] = {}
    with server_process("--db", str(DB)) as url:
        for n in sizes:
            HANDLED.clear()
            for values in CPU.values():
                values.clear()
            filters = args.filters if args.filters is not None else args.presses // 5
            times = asyncio.run(measure(url, ids[n], args.presses, filters))
            figures[f"handled_{n}_median_ms"] = median(HANDLED) * 1000
            print(
                f"{n:>7,} events  key handled (state changed, before the paint) median {median(HANDLED) * 1000:.2f} ms"
            )
            for key, values in CPU.items():
                figures[f"{key} cpu_{n}_median_ms"] = median(values) * 1000
                print(
                    f"{n:>7,} events  {key:<10} loop CPU median {median(values) * 1000:6.2f} ms",
                    flush=True,
                )
            for key, values in times.items():
                figures[f"{key}_{n}_median_ms"] = median(values) * 1000
                figures[f"{key}_{n}_p95_ms"] = percentile(values, 95) * 1000
                print(
                    f"{n:>7,} events  {key:<10} median {median(values) * 1000:6.1f} ms  p95 {percentile(values, 95) * 1000:6.1f} ms"
                    f"  ({len(values)} presses)",
                    flush=True,
                )
    small, big = sizes[0], sizes[-1]
    for key in (
        "down",
        "pagedown",
        "end/home",
        "filter",
        "filter on",
        "filter off",
        "filter on cpu",
        "filter off cpu",
    ):
        figures[f"{key}_ratio"] = (
            figures[f"{key}_{big}_median_ms"] / figures[f"{key}_{small}_median_ms"]
        )
        print(f"{key:<10} {big:,} vs {small:,}: {figures[f'{key}_ratio']:.2f}×")
    report("keys", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
