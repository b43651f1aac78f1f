"""Run the display-path fuzz campaign of ``tests/models/test_fuzz.py`` at full size and print figures.

The test suite runs every mutation on every kind of sample event once (~240 cases) and 200
hypothesis examples to stay quick; this runs as many random cases as asked (10,000 by default)
through the same checker: parse → list row → tree → detail (plain and raw) in a real Textual
app. Exit status 1 if any case failed.

    python scripts/fuzz.py [--cases 10000] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.models.test_fuzz import Stats, make_cases, run_campaign


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    began = time.perf_counter()
    stats = asyncio.run(
        run_campaign(make_cases(args.cases, seed=args.seed), Stats(), seed=args.seed)
    )
    elapsed = time.perf_counter() - began
    print(f"cases tried      {stats.tried:,} (seed {args.seed}) in {elapsed:.0f} s")
    print(f"typed / raw      {stats.typed:,} / {stats.raw:,}")
    print(f"failures         {len(stats.failures)}")
    print("by mutation:")
    for name, count in sorted(stats.by_mutation.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<28} {count:>6,}")
    print("slowest batches:")
    for seconds, what in stats.slowest:
        print(f"  {seconds * 1000:8.0f} ms  {what[:100]}")
    for failure in stats.failures[:30]:
        print(f"FAIL {failure[:300]}")
    return 1 if stats.failures else 0


if __name__ == "__main__":
    sys.exit(main())
