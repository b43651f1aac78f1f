"""search_index: the local full-text index (issue 34) over generated conversations.

Indexing: the generated events (``tui.server.demo.generated``: terminal actions, their
outputs, state updates, messages), page by page as a fill stores them (``extract``: masked,
bounded, cleaned; ``SearchIndex.add_events``: one transaction a page of 100), in this
process, no server: the index's own cost. A few events carry a rare word. Size: the index
file (WAL checkpointed) against the events' JSON. Queries: ``search`` as the screen and the
CLI call it (its status line included), ``--repeat`` times each: a rare word, a common word
(the commonest token of the index: a third of all events match), a phrase, and the common
word with a filter (``kind:action``). Targets (issue 34): ≥ 20,000 events/s, the index
≤ 0.5× the JSON, query p95 ≤ 50 ms.

    python -m bench.search_index [--events 100000] [--conversations 100] [--repeat 40]
    python -m bench.search_index --events 1000000 --conversations 1000
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from bench.common import median, percentile, report

RARE = "zanzibarquokka"
PAGE = 100


def build(path: Path, events: int, conversations: int) -> tuple[float, int, int]:
    """Index the generated conversations; ``(seconds indexing, JSON bytes, events)``."""
    from tui.search_index import SearchIndex, extract
    from tui.server.demo.generated import BASE_TIME, generate_events

    index = SearchIndex(path, max_bytes=1 << 40)
    each = max(1, events // conversations)
    spent, json_bytes, count = 0.0, 0, 0
    for number in range(conversations):
        cid = f"{number:032x}"
        made = generate_events(
            each, seed=number, start=BASE_TIME + timedelta(minutes=number), conversation_id=cid
        )
        if number % max(1, conversations // 5) == 0:  # a rare word in a few conversations
            made[len(made) // 2]["llm_message"] = {
                "role": "user",
                "content": [{"type": "text", "text": f"where is the {RARE} config?"}],
            }
        json_bytes += sum(len(json.dumps(event)) for event in made)
        index.note_conversations([(cid, f"generated run {number}", "", 0.0)])
        began = time.perf_counter()
        for start in range(0, len(made), PAGE):
            page = [found for e in made[start : start + PAGE] if (found := extract(e))]
            index.add_events(cid, page, page[-1].stamp if page else None)
        index.finished(cid, "")
        spent += time.perf_counter() - began
        count += len(made)
    index.guarded(lambda db: db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
    index.close()
    return spent, json_bytes, count


def common_words(path: Path) -> tuple[str, str]:
    """The commonest token, and a phrase: two words that follow each other in a hit."""
    from tui.search_index import SearchIndex

    index = SearchIndex(path)
    index.guarded(
        lambda db: db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, words, row)"
        )
    )
    rows = index.read(
        "SELECT term FROM temp.vocab WHERE length(term) > 3 ORDER BY doc DESC LIMIT 1"
    )
    common = rows[0][0]
    text = index.read("SELECT text FROM words WHERE words MATCH ? LIMIT 1", [common])[0][0]
    words = re.findall(r"\w+", text)
    phrase = " ".join(words[:2]) if len(words) >= 2 else common
    index.close()
    return common, phrase


def timed_queries(path: Path, queries: dict[str, str], repeat: int) -> dict[str, dict]:
    from tui.search_index import SearchIndex, search

    index = SearchIndex(path)
    out = {}
    for name, text in queries.items():
        search(index, text, limit=200)  # warm the page cache, as a second keystroke finds it
        took, hits = [], 0
        for _ in range(repeat):
            began = time.perf_counter()
            found = search(index, text, limit=200)
            took.append((time.perf_counter() - began) * 1000)
            hits = found.hits
        out[name] = {
            "query": text,
            "hits": hits,
            "p50_ms": round(median(took), 2),
            "p95_ms": round(percentile(took, 95), 2),
        }
    index.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--keep", metavar="DIR", help="build the index in DIR and keep it")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="ohtui-search-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench.sqlite3"
    for stale in folder.glob("bench.sqlite3*"):
        stale.unlink()
    spent, json_bytes, count = build(path, args.events, args.conversations)
    size = sum(p.stat().st_size for p in folder.glob("bench.sqlite3*"))
    common, phrase = common_words(path)
    queries = timed_queries(
        path,
        {
            "rare word": RARE,
            "common word": common,
            "phrase": f'"{phrase}"',
            "filter": f"{common} kind:action",
        },
        args.repeat,
    )
    rate = count / spent if spent else float("inf")
    print(f"indexed {count:,} events in {args.conversations:,} conversations: {spent:.1f} s")
    print(f"  {rate:,.0f} events/s (target ≥ 20,000)")
    print(
        f"  index {size / 1e6:,.1f} MB vs JSON {json_bytes / 1e6:,.1f} MB:"
        f" {size / json_bytes:.2f}× (target ≤ 0.5×)"
    )
    for name, row in queries.items():
        print(
            f"  {name:12} {row['query']!s:32} {row['hits']:>4} hits"
            f"  p50 {row['p50_ms']:6.2f} ms  p95 {row['p95_ms']:6.2f} ms (target ≤ 50)"
        )
    report(
        "search_index",
        {
            "events": count,
            "events_per_s": round(rate),
            "index_mb": round(size / 1e6, 1),
            "json_mb": round(json_bytes / 1e6, 1),
            "ratio": round(size / json_bytes, 3),
            "queries": queries,
        },
    )


if __name__ == "__main__":
    main()
