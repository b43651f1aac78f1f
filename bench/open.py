"""open: a conversation's first rows on screen, vs the bare-Textual limit, 100,000 events vs 100.

From the moment the conversation is opened in a running app (the view is pushed) to the
first paint that shows its rows. Baselines, measured in the same run, alternating with it:
the bare limit (``bench.bare``: a minimal Textual screen with one Line-API list fed by one
raw ``httpx`` GET + ``json.loads`` of the same page, pushed → rows painted) and one raw GET
of the first page alone (on an open connection, as the app's is; no parsing). Also: from
the app's construction (``--conversation ID`` start-up) to the same first rows. Median of
--repeat.

    python -m bench.open [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import time

import httpx

from bench import common
from bench.bare import bare_open
from bench.common import (
    DB,
    SIZE,
    PaintProbe,
    dataset,
    make_app,
    median,
    report,
    rows_shown,
    server_process,
    until,
)

#: a person's moment between the list appearing and the row being opened (its own timers and
#: the app's preload, started after the list's first frame, are done by then, as for a person)
PICK_S = 0.2
RACE = False  # --race: open as soon as the list screen is pushed (the protocol before round 4)


def raw_first_page(url: str, cid: str) -> float:
    """One raw GET of the first page, no parsing, on a connection already open (as the
    app's is when a conversation is opened from its list): only the request is timed."""
    path = common.events_path(cid)
    with httpx.Client(base_url=url) as client:
        client.get(path, params={"limit": 1}).raise_for_status()  # connect, warm up
        began = time.perf_counter()
        client.get(path, params={"limit": 100}).raise_for_status()
        return time.perf_counter() - began


async def listed(screen, probe: PaintProbe) -> None:
    """Until the conversations list is painted with its rows, and a person's moment after it.

    A conversation is opened from its row, so the list is on screen first. Opened as soon as
    the list screen was pushed (before round 4), the open shared the loop with the list's own
    compose, first page and paint (~15 ms of a ~60 ms open), which no one choosing a row waits
    on; ``app start → rows`` (``--conversation ID``) is the figure that includes a start."""
    from tui.app.widgets.common.fitted_table import FittedTable

    probe.watch(screen)
    probe.expect(
        lambda: bool(screen.query(FittedTable)) and screen.query_one(FittedTable).row_count
    )
    await until(lambda: probe.shown_at is not None)
    await asyncio.sleep(PICK_S)


async def open_view(url: str, cid: str) -> tuple[float, float]:
    """(view pushed → first rows painted, app constructed → first rows painted)."""
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.screens.conversations.conversations import ConversationsScreen

    constructed = time.perf_counter()
    app = make_app(url, conversation_id=cid)
    probe = PaintProbe(app)
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationScreen))
        screen = app.screen
        probe.watch(screen)
        probe.expect(lambda: rows_shown(screen))
        await until(lambda: probe.shown_at is not None)
        launch = probe.shown_at - constructed
    # the view alone: the app already on its conversations list, then the conversation opened
    app = make_app(url)
    probe = PaintProbe(app)
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationsScreen))
        if not RACE:
            await listed(app.screen, probe)
        began = time.perf_counter()
        app.open_conversation(cid)
        await until(lambda: isinstance(app.screen, ConversationScreen))
        screen = app.screen
        probe.watch(screen)
        probe.expect(lambda: rows_shown(screen))
        await until(lambda: probe.shown_at is not None)
        view = probe.shown_at - began
    return view, launch


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="100,100000")
    parser.add_argument(
        "--race",
        action="store_true",
        help="open as soon as the list screen is pushed, before it is listed (as before round 4)",
    )
    common.add_kind(parser)
    args = parser.parse_args()
    common.use_kind(args.kind)
    global RACE
    RACE = args.race
    sizes = tuple(int(s) for s in args.sizes.split(","))
    ids = dataset(sizes)
    figures: dict[str, float] = {}
    with server_process("--db", str(DB)) as url:
        raw_first_page(url, ids[sizes[0]])  # warm the server
        for n in sizes:
            raws, bares, views, launches = [], [], [], []
            for _ in range(args.repeat):
                raws.append(raw_first_page(url, ids[n]))
                bares.append(asyncio.run(bare_open(url, ids[n])))
                view, launch = asyncio.run(open_view(url, ids[n]))
                views.append(view)
                launches.append(launch)
            figures[f"raw_{n}_ms"] = median(raws) * 1000
            figures[f"bare_{n}_ms"] = median(bares) * 1000
            figures[f"view_{n}_ms"] = median(views) * 1000
            figures[f"launch_{n}_ms"] = median(launches) * 1000
            figures[f"view_ratio_bare_{n}"] = figures[f"view_{n}_ms"] / figures[f"bare_{n}_ms"]
            print(
                f"{n:>7,} events: view opened → rows painted {figures[f'view_{n}_ms']:6.1f} ms · "
                f"bare limit {figures[f'bare_{n}_ms']:5.1f} ms ({figures[f'view_ratio_bare_{n}']:.2f}×) · "
                f"raw first page {figures[f'raw_{n}_ms']:4.1f} ms · "
                f"app start → rows {figures[f'launch_{n}_ms']:6.1f} ms\n"
                f"        runs: view {', '.join(f'{v * 1000:.0f}' for v in views)}; "
                f"bare {', '.join(f'{b * 1000:.0f}' for b in bares)}",
                flush=True,
            )
    small, big = sizes[0], sizes[-1]
    figures["view_ratio_raw"] = figures[f"view_{big}_ms"] / figures[f"raw_{big}_ms"]
    figures["view_ratio_sizes"] = figures[f"view_{big}_ms"] / figures[f"view_{small}_ms"]
    print(f"{big:,} vs {small:,} events: view open ratio {figures['view_ratio_sizes']:.2f}×")
    report("open", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
