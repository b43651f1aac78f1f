"""walk + memory: load all 100,000 events through the UI, vs raw paging, vs their JSON bytes.

walk, two ways from the first event to the last: (1) End pressed right after the
conversation opened, until the last event is painted, against one raw GET of the page the
UI fetched (the newest 100, on an open connection); (2) until the UI's index holds every
event (it pages through the whole log, oldest first, parsing each event into a row),
against fetching the same pages with ``httpx`` and no parsing. memory: RSS growth of the
app process with all rows loaded (rows are what stay resident; full events live in a
bounded cache) against the JSON bytes of the events; also RSS right after opening, with
100,000 known but one page loaded.

    python -m bench.load [--size 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import time

import httpx

from bench import common
from bench.common import (
    DB,
    SIZE,
    PaintProbe,
    dataset,
    make_app,
    median,
    report,
    rows_shown,
    rss_mb,
    send_key,
    server_process,
    until,
)


def raw_walk(url: str, cid: str) -> tuple[float, int, int]:
    """Seconds to page through every event with no parsing; pages; bytes of the events' JSON."""
    began = time.perf_counter()
    pages, page_id, size = 0, None, 0
    with httpx.Client(base_url=url, timeout=60) as client:
        while True:
            params = {"limit": 100, "sort_order": "TIMESTAMP"}
            if page_id:
                params["page_id"] = page_id
            response = client.get(common.events_path(cid), params=params)
            pages += 1
            body = response.content
            page_id = (
                response.json()["next_page_id"] if b'"next_page_id":null' not in body else None
            )
            if page_id is None:
                break
    elapsed = time.perf_counter() - began
    with httpx.Client(base_url=url, timeout=60) as client:  # untimed: the events' JSON bytes
        page_id = None
        while True:
            params = {"limit": 100, **({"page_id": page_id} if page_id else {})}
            data = client.get(common.events_path(cid), params=params).json()
            size += sum(
                len(json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode())
                for item in data["items"]
            )
            page_id = data["next_page_id"]
            if page_id is None:
                break
    return elapsed, pages, size


def raw_last_page(url: str, cid: str) -> float:
    """One raw GET of the newest page (what End needs), no parsing, on a connection already
    open (as the app's is): only the request is timed."""
    path = common.events_path(cid)
    with httpx.Client(base_url=url) as client:
        client.get(path, params={"limit": 100}).raise_for_status()  # connect, warm up
        began = time.perf_counter()
        client.get(path, params={"limit": 100, "sort_order": "TIMESTAMP_DESC"}).raise_for_status()
        return time.perf_counter() - began


async def end_walk(url: str, cid: str) -> float:
    """End pressed as soon as the first rows are on screen → the last event painted."""
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.widgets.conversation.event_list import EventList

    app = make_app(url, conversation_id=cid)
    probe = PaintProbe(app)
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationScreen))
        screen = app.screen
        probe.watch(screen)
        await until(lambda: rows_shown(screen) and screen.window.total is not None)
        event_list = screen.query_one(EventList)
        event_list.focus()
        last = len(screen.window) - 1
        began = time.perf_counter()
        send_key(app, "end")
        await until(
            lambda: event_list.cursor == last and screen.window.row(last) is not None,
            timeout=60,
            step=0,
        )
        loaded = time.perf_counter()
        return await probe.paint_after(loaded) - began


async def ui_walk(url: str, cid: str) -> dict[str, float]:
    from tui.app.screens.conversation import ConversationScreen

    gc.collect()
    before = rss_mb()
    app = make_app(url, conversation_id=cid)
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationScreen))
        screen = app.screen
        began = time.perf_counter()
        await until(lambda: rows_shown(screen))
        first_page_rss = rss_mb()
        await until(lambda: screen.events.base.complete, timeout=900, step=0.005)
        walked = time.perf_counter() - began
        gc.collect()
        loaded_rss = rss_mb()
        rows = len(screen.events.base.head)
    return {
        "walk_s": walked,
        "rss_before_mb": before,
        "rss_first_page_mb": first_page_rss,
        "rss_loaded_mb": loaded_rss,
        "rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5, help="End walks (median)")
    common.add_kind(parser)
    args = parser.parse_args()
    common.use_kind(args.kind)
    ids = dataset((args.size,))
    cid = ids[args.size]
    with server_process("--db", str(DB)) as url:
        raw_s, pages, json_bytes = raw_walk(url, cid)
        ui = asyncio.run(ui_walk(url, cid))  # first: its RSS figures need a fresh process
        raw_ends, ends = [], []
        for _ in range(args.repeat):
            raw_ends.append(raw_last_page(url, cid))
            ends.append(asyncio.run(end_walk(url, cid)))
    growth = ui["rss_loaded_mb"] - ui["rss_before_mb"]
    # the events' own share: what loading all of them added after the first page (the app's
    # screens, its imports and Textual's caches are in the growth above, ~15 MB)
    events_growth = ui["rss_loaded_mb"] - ui["rss_first_page_mb"]
    figures = {
        "end_ms": median(ends) * 1000,
        "raw_last_page_ms": median(raw_ends) * 1000,
        "end_ratio": median(ends) / median(raw_ends),
        "events": ui["rows"],
        "pages": pages,
        "raw_walk_s": raw_s,
        "ui_walk_s": ui["walk_s"],
        "walk_ratio": ui["walk_s"] / raw_s,
        "json_mb": json_bytes / 1e6,
        "rss_growth_mb": growth,
        "memory_ratio": growth / (json_bytes / 1e6),
        "rss_events_mb": events_growth,
        "events_memory_ratio": events_growth / (json_bytes / 1e6),
        "rss_before_mb": ui["rss_before_mb"],
        "rss_first_page_mb": ui["rss_first_page_mb"],
        "rss_loaded_mb": ui["rss_loaded_mb"],
    }
    print(
        f"End    first → last of {args.size:,} events painted {figures['end_ms']:.1f} ms vs one raw GET of the newest "
        f"page {figures['raw_last_page_ms']:.1f} ms ({figures['end_ratio']:.2f}×; runs: "
        + ", ".join(f"{e * 1000:.0f}" for e in ends)
        + ")"
    )
    print(
        f"walk   {ui['rows']:,} events in {pages:,} pages: UI {ui['walk_s']:.1f} s vs raw paging {raw_s:.1f} s "
        f"({figures['walk_ratio']:.2f}×)"
    )
    print(
        f"memory JSON of the events {figures['json_mb']:.1f} MB; app RSS {ui['rss_before_mb']:.0f} MB before, "
        f"{ui['rss_first_page_mb']:.0f} MB with one page, {ui['rss_loaded_mb']:.0f} MB with all rows "
        f"(+{growth:.0f} MB, {figures['memory_ratio']:.2f}× the JSON; after the first page "
        f"+{events_growth:.0f} MB, {figures['events_memory_ratio']:.2f}×)"
    )
    report("load", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
