"""live: the server pushes events to an open, visible conversation at 1,000 / 5,000 / 20,000 per s.

The server (its own process) publishes agent messages into the demo's live conversation for
--seconds at each rate; each message carries its send time. The app follows the tail.
Reported: events sent, received, shown as rows, lost (sent − shown), send→screen latency
p50/p99 (the paint after the batch that added the row), keypress→paint latency while
the stream runs, and the app's CPU time per event: its loop thread's (``time.thread_time``,
which a busy machine moves far less than the latencies), all its threads', and a helper
process's (the stream's frames read there while it is fast: ``tui/app/helper/live_worker.py``).

``--indexed``: the user has a search index of the server (its file made before the app
starts), so the followed events are indexed as they arrive too (``AppSearch.add_live``);
the events the index holds at the end are reported.

    python -m bench.live [--rates 1000,5000,20000] [--seconds 10] [--indexed]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

from bench.common import (
    ROOT,
    SIZE,
    PaintProbe,
    make_app,
    median,
    percentile,
    report,
    send_key,
    until,
)

SENT_AT = re.compile(r"t=(\d+\.\d+) n=(\d+)")


async def follow(url: str, cid: str, seconds: float) -> dict[str, float]:
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.widgets.conversation.event_list import EventList

    app = make_app(url, conversation_id=cid)
    probe = PaintProbe(app)
    # (perf, epoch, loop CPU, process CPU, rows from, to)
    spans: list[tuple[float, float, float, float, int, int]] = []
    flushes: list[tuple[float, float, list[float]]] = []  # (perf time, epoch, send epochs)
    cpu: list[float] = []  # the loop thread's CPU time at each flush with sent events
    all_cpu: list[float] = []  # the app process's (every thread's) CPU time, the same
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    keys: list[float] = []
    async with app.run_test(size=SIZE):
        await until(lambda: isinstance(app.screen, ConversationScreen))
        screen = app.screen
        probe.watch(screen)
        await until(
            lambda: (
                screen.live is not None
                and screen.live.state.connection is not None
                and screen.live.state.connection.state == "live"
                and screen.events.base.complete
            ),
            timeout=60,
        )
        event_list = screen.query_one(EventList)
        event_list.focus()
        event_list.action_last()
        original = screen.flush_live_rows

        head = screen.events.base.head
        shown_before = len(head)

        def flush() -> None:
            # only where the new rows start and end: their send times are read from the
            # rows once the stream is over, not on the loop being measured
            before = len(head)
            original()
            if len(head) > before:
                spans.append(
                    (
                        time.perf_counter(),
                        time.time(),
                        time.thread_time(),
                        time.process_time(),
                        before,
                        len(head),
                    )
                )

        screen.flush_live_rows = flush
        began = time.perf_counter()
        quiet_since, last_count = time.perf_counter(), -1
        while True:  # keys while the stream runs; stop 2 s after the last new row
            count = len(head) - shown_before
            if count != last_count:
                last_count, quiet_since = count, time.perf_counter()
            elif count and time.perf_counter() - quiet_since > 2.0:
                break
            if time.perf_counter() - began > seconds + 60:
                break
            if count and time.perf_counter() - quiet_since < 0.5:  # the stream is flowing
                before = event_list.cursor
                moment = time.perf_counter()
                send_key(app, "up")
                try:
                    await until(
                        lambda before=before: event_list.cursor != before, timeout=5, step=0
                    )
                    keys.append(await probe.paint_after(moment) - moment)
                except TimeoutError:
                    pass
                send_key(app, "end")
            await asyncio.sleep(0.2)
        for at, epoch, thread_time, process_time, start, end in spans:
            sent = [
                float(m.group(1))
                for i in range(start, end)
                if (m := SENT_AT.match(head[i].summary, len("assistant: ")))
            ]
            if sent:
                flushes.append((at, epoch, sent))
                cpu.append(thread_time)
                all_cpu.append(process_time)
        latencies, waits, paint_delays = [], [], []
        for at, epoch, sent in flushes:
            later = [p for p in probe.paints if p >= at]
            paint_delay = (min(later) - at) if later else 0.0
            latencies.extend(epoch - s + paint_delay for s in sent)
            waits.extend(epoch - s for s in sent)  # sent → its row added (network, batching, queue)
            paint_delays.append(paint_delay)  # row added → on screen
        rows = [screen.events.base.head[i] for i in range(len(screen.events.base.head))]
        shown = sum(1 for r in rows if r.summary.startswith("assistant: t="))
        ids = [r.id for r in rows]
    # the app's own CPU per event while it streams (first flush to last: every event but
    # the first batch's): far less moved by a busy machine than the latencies are
    streamed = sum(len(s) for _, _, s in flushes[1:])
    cpu_us = (cpu[-1] - cpu[0]) / streamed * 1e6 if streamed else 0.0
    all_us = (all_cpu[-1] - all_cpu[0]) / streamed * 1e6 if streamed else 0.0
    # a helper process the app ran (and waited for as it closed): its CPU over every event
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    helper = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    received = sum(len(s) for _, _, s in flushes)
    return {
        "cpu_us_per_event": cpu_us,
        "process_cpu_us_per_event": all_us,
        "helper_cpu_us_per_event": helper / received * 1e6 if received else 0.0,
        "received": received,
        "shown": shown,
        "duplicates": len(ids) - len(set(ids)),
        "latency_p50_ms": percentile(latencies, 50) * 1000,
        "latency_p99_ms": percentile(latencies, 99) * 1000,
        "wait_p50_ms": percentile(waits, 50) * 1000,
        "wait_p99_ms": percentile(waits, 99) * 1000,
        "paint_p50_ms": percentile(paint_delays, 50) * 1000,
        "paint_p99_ms": percentile(paint_delays, 99) * 1000,
        "key_median_ms": median(keys) * 1000,
        "key_p95_ms": percentile(keys, 95) * 1000,
        "keys": len(keys),
    }


def _index_of(url: str, make: bool) -> int:
    """Make the index file of ``url`` (``make``), or count the events it holds (-1: none)."""
    from tui.search_index import SearchIndex, index_path

    path = index_path(url)
    if not make and not path.exists():
        return -1
    index = SearchIndex(path)
    try:
        return index.read("SELECT count(*) FROM events")[0][0]
    finally:
        index.close()


def run(rate: int, seconds: float, indexed: bool = False) -> dict[str, float]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.serve",
            "--live",
            "--rate",
            str(rate),
            "--seconds",
            str(seconds),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        url, cid = process.stdout.readline().split()
        if indexed:
            os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ohtui-live-bench-")
            _index_of(url, make=True)
        figures = asyncio.run(follow(url, cid, seconds))
        figures["indexed"] = _index_of(url, make=False) if indexed else -1
    finally:
        process.terminate()
        _, err = process.communicate(timeout=20)
    sent = int(m.group(1)) if (m := re.search(r"SENT (\d+)", err)) else -1
    return {
        "rate": rate,
        "sent": sent,
        **figures,
        "lost": sent - figures["shown"] if sent >= 0 else -1,
        "achieved_per_s": sent / seconds if sent >= 0 else 0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="1000,5000,20000")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--indexed", action="store_true", help="a search index of the server")
    args = parser.parse_args()
    figures: dict[str, float] = {}
    for rate in (int(r) for r in args.rates.split(",")):
        got = run(rate, args.seconds, args.indexed)
        for key, value in got.items():
            figures[f"{key}_{rate}"] = value
        print(
            f"{rate:>6,}/s asked: sent {got['sent']:,} ({got['achieved_per_s']:,.0f}/s), received {got['received']:,}, "
            f"shown {got['shown']:,}, lost {got['lost']:,}, duplicated {got['duplicates']}; send→screen p50 "
            f"{got['latency_p50_ms']:.0f} ms p99 {got['latency_p99_ms']:.0f} ms (sent→row p50 {got['wait_p50_ms']:.0f} "
            f"p99 {got['wait_p99_ms']:.0f}, row→paint p50 {got['paint_p50_ms']:.0f} p99 {got['paint_p99_ms']:.0f}); key→paint median "
            f"{got['key_median_ms']:.1f} ms p95 {got['key_p95_ms']:.1f} ms ({got['keys']} keys); "
            f"app CPU {got['cpu_us_per_event']:.1f} µs/event (loop; every thread "
            f"{got['process_cpu_us_per_event']:.1f}, helper {got['helper_cpu_us_per_event']:.1f})"
            + (f"; the search index holds {got['indexed']:,} events" if args.indexed else ""),
            flush=True,
        )
    report("live", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
