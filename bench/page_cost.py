"""What does one page of shared event search cost, shallow vs deep, small vs huge log?

Builds a 100-event and a 100,000-event conversation in a temporary SQLite file, serves
them with the reference server on loopback, and times (median of ``--repeat`` requests)
the first page, a page in the middle and the last page of each. The middle and last page
are reached by walking ``next_page_id`` first (untimed), exactly as a client would.
Keyset page ids should make all of them cost the same.

    python bench/page_cost.py [--limit 20] [--repeat 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui.server import ServerThread, Store, create_app, generate_conversation
from tui.server.page_ids import decode_page_id

PATH = "/api/shared-events/search"


def page_ids(client: httpx.Client, conversation_id: str, limit: int) -> list[str | None]:
    """The page id of every page (None for the first), by walking the whole log."""
    ids: list[str | None] = [None]
    while True:
        params = {"conversation_id": conversation_id, "limit": limit}
        if ids[-1]:
            params["page_id"] = ids[-1]
        nxt = client.get(PATH, params=params).json()["next_page_id"]
        if nxt is None:
            return ids
        ids.append(nxt)


def timed(client: httpx.Client, params: dict, repeat: int) -> tuple[float, int]:
    samples = []
    items = 0
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(PATH, params=params)
        samples.append(time.perf_counter() - start)
        items = len(response.json()["items"])
    return statistics.median(samples) * 1000, items


def timed_sql(store: Store, conversation_id: str, after, limit: int, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        store.search_events(conversation_id, after=after, limit=limit, viewable_only=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=60)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "bench.sqlite"))
        sizes = {}
        for n in (100, 100_000):
            start = time.perf_counter()
            sizes[n] = generate_conversation(store, n, seed=n)
            print(f"generated {n:>7,} events in {time.perf_counter() - start:6.2f} s")
        results: dict[tuple[int, str], tuple[float, int, float]] = {}
        with (
            ServerThread(create_app(store)) as server,
            httpx.Client(base_url=server.base_url) as client,
        ):
            for n, cid in sizes.items():
                walk_start = time.perf_counter()
                ids = page_ids(client, cid, args.limit)
                walk = time.perf_counter() - walk_start
                print(
                    f"walked {len(ids):>5} pages of the {n:,}-event log in {walk:.2f} s "
                    f"({walk / len(ids) * 1000:.2f} ms/page)"
                )
                for label, page in (
                    ("first", ids[0]),
                    ("middle", ids[len(ids) // 2]),
                    ("last", ids[-1]),
                ):
                    params = {"conversation_id": cid, "limit": args.limit}
                    if page:
                        params["page_id"] = page
                    ms, items = timed(client, params, args.repeat)
                    after = decode_page_id(page, "ev", (str, int)) if page else None
                    sql = timed_sql(store, cid, after, args.limit, args.repeat)
                    results[(n, label)] = (ms, items, sql)
            count_ms = statistics.median(
                _time(
                    lambda: client.get(
                        "/api/shared-events/count", params={"conversation_id": sizes[100_000]}
                    )
                )
                for _ in range(args.repeat)
            )
        store.close()

    print(
        f"\nshared search, limit={args.limit}, median of {args.repeat} (ms; HTTP round trip, SQL alone)"
    )
    print(f"{'page':<8}{'100 events':>22}{'100,000 events':>22}{'ratio':>8}")
    for label in ("first", "middle", "last"):
        small, big = results[(100, label)], results[(100_000, label)]
        print(
            f"{label:<8}{small[0]:>9.2f} ({small[2]:.3f} sql){big[0]:>9.2f} ({big[2]:.3f} sql)"
            f"{big[0] / small[0]:>8.2f}"
        )
    print(f"\ncount over 100,000 events: {count_ms:.2f} ms (index-only scan)")
    return 0


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


if __name__ == "__main__":
    sys.exit(main())
