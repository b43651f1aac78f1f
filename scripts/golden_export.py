"""Write the sample conversation's Markdown export anew as the golden file the tests compare with.

``tests/cli/test_export.py`` renders the real sample conversation (``../shared/samples``) with the
current code and compares it with ``tests/data/demo-export.md``. When the export changes on
purpose, run this, read ``git diff tests/data/demo-export.md`` as a reviewer would, and commit
the file with the change that caused it.

    python scripts/golden_export.py [--check]   (--check: exit 1 if the file is out of date)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.cli.test_export import GOLDEN, demo_markdown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    args = parser.parse_args()
    markdown = demo_markdown()
    current = GOLDEN.read_text(encoding="utf-8") if GOLDEN.exists() else None
    if markdown == current:
        print(f"{GOLDEN} is current")
        return 0
    if args.check:
        print(f"{GOLDEN} is out of date")
        return 1
    GOLDEN.write_text(markdown, encoding="utf-8")
    print(f"wrote {GOLDEN} ({len(markdown):,} characters): review `git diff` before committing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
