"""Unified diffs whose cost is linear in the input, whatever the input.

``difflib`` aligns lines in time that grows with the product of the two sides' lengths (and
worse on repetitive text): a 400 KB file edit took 53 s to export. Here the common head and
tail are stripped first (linear), and only a changed middle of at most
:data:`MAX_ALIGN_CELLS` line pairs is aligned by ``difflib``; a larger middle is shown as
removed, then added, and the diff says so. The output is a standard unified diff.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

#: Line pairs ``difflib`` may compare (its cost grows with their product; 1,000 × 1,000
#: lines of the worst shape found take ~0.05 s).
MAX_ALIGN_CELLS = 1_000_000

Opcode = tuple[str, int, int, int, int]


@dataclass(frozen=True)
class Diff:
    """A unified diff's lines (``---``/``+++`` headers first, no line ends) and, when the
    changed part was too large to align, a note saying it is shown as removed, then added."""

    lines: list[str]
    note: str = ""


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """Lengths of the common head and the common tail (not overlapping); linear."""
    n = min(len(a), len(b))
    head = 0
    while head < n and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, tail


def _opcodes(a: list[str], b: list[str]) -> tuple[list[Opcode], str]:
    head, tail = _common_ends(a, b)
    a_end, b_end = len(a) - tail, len(b) - tail
    middle_a, middle_b = a[head:a_end], b[head:b_end]
    codes: list[Opcode] = []
    if head:
        codes.append(("equal", 0, head, 0, head))
    note = ""
    if len(middle_a) * len(middle_b) <= MAX_ALIGN_CELLS:
        matcher = SequenceMatcher(None, middle_a, middle_b)
        codes.extend(
            (tag, i1 + head, i2 + head, j1 + head, j2 + head)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        )
    else:
        codes.append(("replace", head, a_end, head, b_end))
        note = (
            f"the changed part ({len(middle_a):,} lines → {len(middle_b):,} lines) is too large "
            "to align line by line: it is shown as removed, then added"
        )
    if tail:
        codes.append(("equal", a_end, len(a), b_end, len(b)))
    return codes, note


def _range(start: int, stop: int) -> str:
    """A unified diff range (as ``difflib`` writes it)."""
    length = stop - start
    first = start + 1
    if length == 1:
        return f"{first}"
    if not length:
        first -= 1
    return f"{first},{length}"


def hunk_groups(a: list[str], b: list[str], context: int = 3) -> tuple[list[list[Opcode]], str]:
    """The opcodes of ``a`` → ``b`` grouped into hunks of ``context`` lines around each
    change (as ``difflib``'s ``get_grouped_opcodes``), and the note of :func:`_opcodes`."""
    codes, note = _opcodes(a, b)
    matcher = SequenceMatcher(None)
    matcher.opcodes = codes  # the grouping reads only the opcodes
    return list(matcher.get_grouped_opcodes(context)), note


def hunk_header(group: list[Opcode]) -> str:
    """``@@ -start,count +start,count @@`` of one hunk (as ``difflib`` and git write it)."""
    first, last = group[0], group[-1]
    return f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"


def unified_diff(
    old: str,
    new: str,
    old_name: str = "a",
    new_name: str = "b",
    *,
    context: int = 3,
    whole: bool = False,
) -> Diff | None:
    """The unified diff of two texts by lines, ``context`` lines around each change (every
    line when ``whole``); None when they have the same lines."""
    a, b = old.splitlines(), new.splitlines()
    if a == b:
        return None
    lines = [f"--- {old_name}", f"+++ {new_name}"]
    groups, note = hunk_groups(a, b, max(len(a), len(b)) if whole else context)
    for group in groups:
        lines.append(hunk_header(group))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                lines.extend("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                lines.extend("+" + line for line in b[j1:j2])
    return Diff(lines, note)


def line_counts(old: str, new: str) -> tuple[int, int]:
    """Lines added and removed from ``old`` to ``new`` (what ``git diff --numstat`` counts,
    as aligned here: a middle too large to align counts whole on both sides)."""
    a, b = old.splitlines(), new.splitlines()
    if a == b:
        return 0, 0
    codes, _note = _opcodes(a, b)
    added = sum(j2 - j1 for tag, _i1, _i2, j1, j2 in codes if tag in ("replace", "insert"))
    removed = sum(i2 - i1 for tag, i1, i2, _j1, _j2 in codes if tag in ("replace", "delete"))
    return added, removed
