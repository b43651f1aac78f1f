"""Every path the documents name is there: a file moved or renamed takes its mentions along
(CONTRIBUTING's layout, the user guide, the README, bench notes)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "CONTRIBUTING.md", "docs/guide.md")
#: ``tui/app/store/rows.py``, ``tui/app/screens/``, ``bench/changes.py``, ``tests/cli/…``
PATH = re.compile(r"(?<![\w/.-])((?:tui|bench|tests|scripts|themes)/[\w./-]*[\w/])")


def test_every_path_the_documents_name_exists():
    missing = []
    for name in DOCS:
        text = (ROOT / name).read_text(encoding="utf-8")
        for found in sorted(set(PATH.findall(text))):
            path = found.rstrip(".")
            if any(
                mark in text[text.find(found) : text.find(found) + len(found) + 1] for mark in "*<"
            ):
                continue  # a pattern (``routes_*.py``, ``tests/<folder>/``), not a path
            if "NAME" in path or "AREA" in path or "…" in path:
                continue
            if not (ROOT / path).exists():
                missing.append(f"{name}: {path}")
    assert missing == [], "paths the documents name that are not there:\n" + "\n".join(missing)
