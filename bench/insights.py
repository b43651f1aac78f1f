"""insights: a 100,000-event conversation's insights vs walking its log; the UI meanwhile.

walk: every page of the conversation through the client (parsed into events), counted and
dropped: the least any reader of the whole log pays. insights: the same pages into
``tui.insights`` (``collect_insights``: the record, the count, every page, the figures).
Target: insights ≤ 1.5× the walk. Also: the computation alone over the parsed events (per
event), the memory the computation keeps (tracemalloc, while the pages stream through),
and, in the app, keypress → paint while the view computes (tab switches, injected as the
terminal driver would, against the same keys once it is done).

    python -m bench.insights [--size 100000] [--repeat 3] [--presses 40]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import time
import tracemalloc

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
    send_key,
    server_process,
    until,
)

GAPS = random.Random(20)


async def walk(url: str, cid: str, *, keep: bool = False) -> tuple[float, list]:
    """Seconds to read every event through the client (each dropped once counted, as
    insights drop them: 100,000 kept would make the garbage collector's passes the figure);
    with ``keep``, the events (for the compute run, untimed)."""
    from tui.client import OpenHandsClient

    kept: list = []
    async with OpenHandsClient(url) as client:
        await client.count_events(cid)  # connect and warm up, as the insights run does
        began = time.perf_counter()
        read = 0
        async for event in client.iter_events(cid):
            read += 1
            if keep:
                kept.append(event)
        assert read
        return time.perf_counter() - began, kept


async def insights(url: str, cid: str):
    from tui.client import OpenHandsClient
    from tui.insights.load import collect_insights

    async with OpenHandsClient(url) as client:
        await client.count_events(cid)
        began = time.perf_counter()
        found = await collect_insights(client, cid)
        return time.perf_counter() - began, found


async def held_memory(url: str, cid: str) -> tuple[float, float]:
    """(MB the finished computation holds, MB at the peak) while the pages stream through."""
    from tui.client import OpenHandsClient
    from tui.insights.load import start_walk

    async with OpenHandsClient(url) as client:
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        walker = await start_walk(client, cid)
        while not walker.done:
            await walker.step()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - base
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        del walker
    return held / 1e6, peak / 1e6


async def ui(url: str, cid: str, presses: int) -> dict[str, object]:
    """Open the conversation, let its own index finish, press i; switch tabs meanwhile."""
    from tui.app.screens import insights as view
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.screens.insights import InsightsScreen
    from tui.app.widgets.conversation.event_tree import EventTreeView

    view.CACHE.clear()
    app = make_app(url, conversation_id=cid)
    probe = PaintProbe(app)
    during: list[float] = []
    after: list[float] = []
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationScreen))
        screen = app.screen
        await until(lambda: rows_shown(screen))
        await until(lambda: screen.events.base.complete, timeout=900)
        tree = screen.query_one(EventTreeView)
        await until(lambda: tree.shown_size == len(screen.events.base.head), timeout=900)
        await asyncio.sleep(0.3)
        began = time.perf_counter()
        send_key(app, "i")
        await until(lambda: isinstance(app.screen, InsightsScreen), timeout=30, step=0)
        shown = app.screen
        await until(lambda: bool(shown.query("#insights-tabs")), timeout=30, step=0)
        probe.watch(shown)
        tabs = shown.query_one("#insights-tabs")

        async def switch(into: list[float]) -> None:
            await asyncio.sleep(GAPS.uniform(0.01, 0.05))
            before = tabs.active
            pressed = time.perf_counter()
            send_key(app, "right_square_bracket")
            await until(lambda: tabs.active != before, timeout=30, step=0)
            into.append(await probe.paint_after(pressed) - pressed)

        while shown.insights is None and len(during) < presses:
            await switch(during)
        await until(lambda: shown.insights is not None, timeout=900, step=0.001)
        computed = time.perf_counter() - began
        for _ in range(len(during) or presses):
            await switch(after)
    return {"ui_s": computed, "during": during, "after": after}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--presses", type=int, default=40)
    args = parser.parse_args()
    from tui.insights import compute_insights

    cid = dataset((args.size,))[args.size]
    walks, runs = [], []
    with server_process("--db", str(DB)) as url:
        for _ in range(args.repeat):  # alternated, so load on the machine hits both alike
            seconds, _ = asyncio.run(walk(url, cid))
            walks.append(seconds)
            seconds, found = asyncio.run(insights(url, cid))
            runs.append(seconds)
        _, events = asyncio.run(walk(url, cid, keep=True))
        gc.collect()
        began = time.perf_counter()
        again = compute_insights(events, cid)
        compute_s = time.perf_counter() - began
        del events
        held_mb, peak_mb = asyncio.run(held_memory(url, cid))
        shown = asyncio.run(ui(url, cid, args.presses))
    assert again.events == found.events == args.size, (again.events, found.events)
    during, after = shown["during"], shown["after"]
    figures = {
        "events": found.events,
        "walk_s": median(walks),
        "insights_s": median(runs),
        "ratio": median(runs) / median(walks),
        "compute_s": compute_s,
        "compute_us_per_event": compute_s / args.size * 1e6,
        "held_mb": held_mb,
        "peak_mb": peak_mb,
        "ui_s": shown["ui_s"],
        "ui_ratio": shown["ui_s"] / median(walks),
        "key_during_median_ms": median(during) * 1000,
        "key_during_p95_ms": percentile(during, 95) * 1000,
        "key_after_median_ms": median(after) * 1000,
        "key_presses_during": len(during),
    }
    print(
        f"walk      {args.size:,} events through the client: {figures['walk_s']:.2f} s "
        f"(runs: {', '.join(f'{w:.2f}' for w in walks)})"
    )
    print(
        f"insights  the same pages into the figures: {figures['insights_s']:.2f} s "
        f"({figures['ratio']:.2f}× the walk; runs: {', '.join(f'{r:.2f}' for r in runs)})"
    )
    print(
        f"compute   alone over the parsed events: {compute_s * 1000:.0f} ms "
        f"({figures['compute_us_per_event']:.1f} µs per event)"
    )
    print(
        f"memory    kept by the computation: {held_mb:.2f} MB (peak {peak_mb:.1f} MB, one page in flight)"
    )
    print(
        f"app       i → figures shown: {shown['ui_s']:.2f} s ({figures['ui_ratio']:.2f}× the walk); "
        f"tab switch → paint while computing median {figures['key_during_median_ms']:.0f} ms, "
        f"p95 {figures['key_during_p95_ms']:.0f} ms ({len(during)} presses), "
        f"once done median {figures['key_after_median_ms']:.0f} ms"
    )
    report("insights", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
