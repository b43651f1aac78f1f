"""Show what changed on screen in snapshot SVGs: the text of each changed picture vs git HEAD.

Snapshots are updated only after looking at them; this makes the look quick and reviewable
(colours still need the SVG itself). With no arguments it takes every snapshot git reports as
modified; otherwise the named files.

    python scripts/snapshot_diff.py [tests/__snapshots__/.../name.svg ...]
"""

from __future__ import annotations

import difflib
import html
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_TEXT = re.compile(r'<text[^>]*?x="([\d.]+)"[^>]*?y="([\d.]+)"[^>]*>(.*?)</text>', re.DOTALL)


def screen_lines(svg: str) -> list[str]:
    """The terminal rows of a Textual SVG screenshot, as plain text."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for match in _TEXT.finditer(svg):
        x, y = float(match.group(1)), float(match.group(2))
        rows.setdefault(y, []).append((x, html.unescape(re.sub("<[^>]+>", "", match.group(3)))))
    return [
        "".join(text for _, text in sorted(parts)).rstrip() for _, parts in sorted(rows.items())
    ]


def changed_snapshots() -> list[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain", "--", "tests/__snapshots__"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line[3:] for line in out.splitlines() if line.endswith(".svg")]


def main(paths: list[str]) -> int:
    for path in paths or changed_snapshots():
        new = (
            screen_lines((ROOT / path).read_text(encoding="utf-8"))
            if (ROOT / path).exists()
            else []
        )
        shown = subprocess.run(
            ["git", "show", f"HEAD:{path}"], cwd=ROOT, capture_output=True, text=True, check=False
        )
        old = screen_lines(shown.stdout) if shown.returncode == 0 else []
        print(f"== {path}" + ("  (new)" if not old else ""))
        diff = list(difflib.unified_diff(old, new, lineterm="", n=0))
        print("\n".join(diff[2:]) if diff else "   text unchanged (colours or layout only)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
