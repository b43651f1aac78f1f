"""search_keys: search in the app (issue 34): results on screen after the last key, and keys
elsewhere in the app while the index fills, against the same keys with no fill.

The reference server runs in its own process with generated conversations (one big one that
keeps a fill busy, and many small ones to list). Results: on the search screen, over the
filled index, queries typed a key at a time (a person's 10–50 ms apart); timed from the last
key to the first paint that shows that query's hits. Keys elsewhere: down/up on the
conversations list, in pairs of blocks in the same run: a block while a fill runs (the
search screen closed, its fill going on: an empty index filled again as needed), then a
block with no fill; medians of each and their ratio. Targets: results ≤ 100 ms after the
last key, keys elsewhere median ≤ 16 ms while a fill runs.

    python -m bench.search_keys [--rounds 8] [--presses 25] [--queries 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time

from bench.common import (
    DATA,
    PaintProbe,
    dataset,
    make_app,
    median,
    percentile,
    report,
    send_key,
    server_process,
    until,
)

SIZES = (60_000, *range(100, 2_100, 100))  # one big conversation, twenty small ones
DB = DATA / "search-keys-v1.sqlite"
GAPS = random.Random(34)
QUERIES = ("terminal", "pytest", "error", "file", "config", "output", "command", "hello")


async def press(app, probe: PaintProbe, key: str, changed) -> float:
    """Key sent → the first paint after the state it changes (seconds)."""
    await asyncio.sleep(GAPS.uniform(0.01, 0.05))
    began = time.perf_counter()
    send_key(app, key)
    await until(changed, timeout=30, step=0.0005)
    return await probe.paint_after(began) - began


async def results_after_last_key(app, probe: PaintProbe, count: int) -> list[float]:
    """Type queries on the search screen; the last key → the paint showing its hits."""
    from tui.app.screens.search import SearchScreen

    screen = app.screen
    assert isinstance(screen, SearchScreen)
    probe.watch(screen)
    took: list[float] = []
    for number in range(count):
        text = QUERIES[number % len(QUERIES)]
        for key in text[:-1]:
            send_key(app, key if key != " " else "space")
            await asyncio.sleep(GAPS.uniform(0.01, 0.05))
        last = text[-1]
        probe.expect(
            lambda text=text: (
                screen._query == text and screen._answered == screen._asked and screen._results
            )
        )
        began = time.perf_counter()
        send_key(app, last if last != " " else "space")
        await until(lambda: probe.shown_at is not None, timeout=30)
        took.append(probe.shown_at - began)
        probe.expect(None)
        send_key(app, "ctrl+u")  # clear the query for the next
        await until(lambda: screen._query == "", timeout=10)
        await asyncio.sleep(0.2)
    return took


async def list_keys(app, probe: PaintProbe, presses: int) -> list[float]:
    from textual.widgets import DataTable

    table = app.screen.query_one(DataTable)
    table.focus()
    took = []
    for i in range(presses):
        before = table.cursor_row
        key = "down" if i % 2 == 0 else "up"
        took.append(await press(app, probe, key, lambda b=before: table.cursor_row != b))
    return took


async def measure(url: str, rounds: int, presses: int, queries: int) -> dict[str, list[float]]:
    from tui.app.screens.conversations.conversations import ConversationsScreen
    from tui.app.screens.search import SearchScreen

    app = make_app(url)
    probe = PaintProbe(app)
    out: dict[str, list[float]] = {"results": [], "fill": [], "no fill": [], "ratios": []}
    async with app.run_test(size=(140, 42)):
        await until(lambda: isinstance(app.screen, ConversationsScreen), timeout=60)
        listing = app.screen
        probe.watch(listing)
        tables = listing.query("DataTable")  # empty until the screen has composed
        await until(lambda: bool(tables.nodes) and len(tables.first().rows) >= 10, timeout=60)
        send_key(app, "S")
        await until(lambda: isinstance(app.screen, SearchScreen), timeout=30)
        search = app.search
        await until(lambda: search.progress is not None and search.progress.done, timeout=900)
        out["results"] = await results_after_last_key(app, probe, queries)
        send_key(app, "escape")
        await until(lambda: app.screen is listing, timeout=10)
        await asyncio.sleep(0.5)
        for _ in range(rounds):
            if search.progress is None or search.progress.done:  # filled: empty it, fill again
                search.stop()
                search.index.rebuild()
                search.fill()
                await until(lambda: search.progress.events > 0, timeout=60)
            filling = await list_keys(app, probe, presses)
            still = not search.progress.done
            search.stop()  # resumable: the next round's fill goes on from here
            await asyncio.sleep(0.3)
            quiet = await list_keys(app, probe, presses)
            if still:  # the fill ran through the whole block: a pair
                out["fill"] += filling
                out["no fill"] += quiet
                out["ratios"].append(median(filling) / median(quiet))
            search.fill()
            await until(lambda: search.filling, timeout=10)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--presses", type=int, default=25)
    parser.add_argument("--queries", type=int, default=20)
    args = parser.parse_args()
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ohtui-search-keys-")  # own index
    ids = dataset(SIZES, db=DB)
    assert len(ids) == len(SIZES)
    with server_process("--db", str(DB)) as url:
        out = asyncio.run(measure(url, args.rounds, args.presses, args.queries))
    ms = {k: [v * 1000 for v in values] for k, values in out.items() if k != "ratios"}
    figures = {
        "results_median_ms": median(ms["results"]),
        "results_p95_ms": percentile(ms["results"], 95),
        "keys_fill_median_ms": median(ms["fill"]),
        "keys_fill_p95_ms": percentile(ms["fill"], 95),
        "keys_no_fill_median_ms": median(ms["no fill"]),
        "keys_no_fill_p95_ms": percentile(ms["no fill"], 95),
        "pairs": len(out["ratios"]),
        "ratio_of_medians": median(ms["fill"]) / median(ms["no fill"]),
        "pair_ratios": [round(r, 2) for r in out["ratios"]],
    }
    print(
        f"results on screen after the last key: median {figures['results_median_ms']:.1f} ms,"
        f" p95 {figures['results_p95_ms']:.1f} ms ({len(ms['results'])} queries; target ≤ 100)"
    )
    print(
        f"list keys while a fill runs: median {figures['keys_fill_median_ms']:.1f} ms,"
        f" p95 {figures['keys_fill_p95_ms']:.1f} ms (target median ≤ 16)"
    )
    print(
        f"list keys with no fill:      median {figures['keys_no_fill_median_ms']:.1f} ms,"
        f" p95 {figures['keys_no_fill_p95_ms']:.1f} ms"
    )
    print(
        f"fill / no fill: {figures['ratio_of_medians']:.2f}× (medians over {figures['pairs']}"
        f" pairs of blocks); each pair: {', '.join(f'{r:.2f}×' for r in out['ratios'])}"
    )
    report("search_keys", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
