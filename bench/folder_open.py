"""folder_open: opening a 100,000-file conversation folder vs a 100-file one.

Writes two conversation folders once (under bench/data/folders/), then times, in a fresh
FolderStore each repeat, indexing the folder (listing and parsing the file names) and serving
the count and the first page of 100 events through the reference server (what the app asks
for when it opens a conversation). The server's own start is not counted.

    python -m bench.folder_open [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import time

import httpx

from bench.common import DATA, median, report


def make_folder(n: int) -> tuple[str, object]:
    root = DATA / "folders" / str(n)
    cid = f"{n:032x}"
    events = root / cid / "events"
    if not events.is_dir() or len(list(events.iterdir())) != n:
        events.mkdir(parents=True, exist_ok=True)
        for i in range(n):
            event = {
                "id": f"00000000-0000-4000-8000-{i:012d}",
                "timestamp": f"2026-01-01T00:00:00.{i:06d}"[:26],
                "source": "agent" if i % 2 else "user",
                "parent_id": None,
                "kind": "MessageEvent",
                "llm_message": {
                    "role": "assistant" if i % 2 else "user",
                    "content": [{"type": "text", "text": f"step {i}"}],
                },
            }
            (events / f"event-{i:05d}-{event['id']}.json").write_text(
                json.dumps(event, separators=(",", ":"))
            )
        (root / cid / "meta.json").write_text(json.dumps({"id": cid, "title": f"{n:,} files"}))
    return cid, root


def open_once(root, cid: str) -> tuple[float, float]:
    """(seconds to index the folder, seconds to serve the count and the first page)."""
    from tui.server import ServerThread, create_app
    from tui.server.folders import FolderStore

    began = time.perf_counter()
    store = FolderStore(root)
    indexed = time.perf_counter() - began
    with (
        ServerThread(create_app(store)) as server,
        httpx.Client(base_url=server.base_url) as client,
    ):
        start = time.perf_counter()
        client.get(f"/api/v1/conversation/{cid}/events/count").raise_for_status()
        client.get(
            f"/api/v1/conversation/{cid}/events/search", params={"limit": 100}
        ).raise_for_status()
        served = time.perf_counter() - start
    store.close()
    return indexed, served


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="100,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    figures = {}
    for n in sizes:
        began = time.perf_counter()
        cid, root = make_folder(n)
        print(f"  folder of {n:,} files ready in {time.perf_counter() - began:.1f} s", flush=True)
        runs = [open_once(root, cid) for _ in range(args.repeat)]
        figures[f"index_{n}_ms"] = median([i for i, _ in runs]) * 1000
        figures[f"serve_{n}_ms"] = median([s for _, s in runs]) * 1000
        figures[f"open_{n}_ms"] = median([i + s for i, s in runs]) * 1000
        print(
            f"{n:>7,} files: index {figures[f'index_{n}_ms']:.0f} ms + count and first page "
            f"{figures[f'serve_{n}_ms']:.0f} ms = {figures[f'open_{n}_ms']:.0f} ms (medians of {args.repeat})",
            flush=True,
        )
    figures["ratio"] = figures[f"open_{sizes[-1]}_ms"] / figures[f"open_{sizes[0]}_ms"]
    print(f"{sizes[-1]:,} vs {sizes[0]:,} files: {figures['ratio']:.2f}×")
    report("folder_open", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
