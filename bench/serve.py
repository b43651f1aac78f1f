"""The reference server for benchmarks, in its own process: ``python -m bench.serve --db PATH``.

Prints its URL on the first line. ``--folder PATH`` serves local conversation folders
instead (as ``ohtui PATH`` does, its workspace routes reading each one's own workspace). With ``--live CID --rate R --seconds S`` it also pushes
agent MessageEvents into conversation CID at R events/s for S seconds, starting once the first
websocket subscriber is in (each event's text carries its send time, for latency).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid
from datetime import UTC, datetime


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", help="SQLite file (default: a demo store in memory)")
    parser.add_argument(
        "--live", action="store_true", help="push events into the demo's live conversation"
    )
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--kind", choices=("app", "agent"), default="app")
    parser.add_argument("--folder", help="serve the conversation folders under PATH instead")
    args = parser.parse_args()

    from tui.server import ServerThread, Store, add_live_demo, create_app, load_demo

    if args.folder:
        from tui.server.folders import FolderStore

        store = FolderStore(args.folder)
    else:
        store = Store(args.db) if args.db else Store()
    live_id = ""
    if not args.db and not args.folder:
        load_demo(store)
        live_id = add_live_demo(store)
    app = create_app(store, kind=args.kind)
    with ServerThread(app) as server:
        print(f"{server.base_url} {live_id}".strip(), flush=True)
        if args.live:
            hub = app.state.live
            hub.call(
                lambda: push(hub, live_id, args.rate, args.seconds), timeout=args.seconds + 120
            )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


async def push(hub, cid: str, rate: int, seconds: float) -> None:
    conv = hub.require(cid)
    while not conv.subscribers:
        await asyncio.sleep(0.01)
    await asyncio.sleep(1.0)  # the client has its replay and is following
    tick = 0.01
    per_tick = max(1, round(rate * tick))
    began = time.perf_counter()
    sent = 0
    parent = getattr(getattr(conv, "builder", None), "head", None)
    while time.perf_counter() - began < seconds:
        due = int((time.perf_counter() - began) * rate)
        batch = []
        while sent < due and len(batch) < per_tick * 4:
            event_id = str(uuid.uuid4())
            now = datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")
            batch.append(
                {
                    "id": event_id,
                    "timestamp": now,
                    "source": "agent",
                    "parent_id": parent or "__root__",
                    "kind": "MessageEvent",
                    "llm_message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": f"t={time.time():.6f} n={sent}"}],
                    },
                }
            )
            parent = event_id
            sent += 1
        if batch:
            conv.publish(batch)
        await asyncio.sleep(tick)
    print(f"SENT {sent}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
