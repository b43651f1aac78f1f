"""One file's diff as the Changes view draws it, built from the server's two whole texts.

The agent server gives a file's text at the base and now, not a patch: the rows are worked
out here, once per file, in a thread (never on the UI's loop: a 1 MB file's alignment and
masking take a while), and the view only draws the rows in sight. The same rows serve the
unified view and the side-by-side one (:attr:`FileDiff.pairs`: a removed line beside the
line that replaced it). Linear in the texts' size (:mod:`tui.models.textdiff`), bounded like
the detail pane's diffs (at most :data:`MAX_ROWS` rows of at most :data:`MAX_LINE`
characters, the rest counted), masked by the one secrets policy and cleaned of control
sequences (file contents are untrusted), tabs expanded so a row keeps its columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import zip_longest

from tui.models.redact import redact_text
from tui.models.textdiff import Opcode, hunk_groups, hunk_header, line_counts
from tui.text import clean

#: Diff lines drawn of one diff, here and in the detail pane's diff of an edit (before a
#: "… N more diff lines" note).
MAX_DIFF_LINES = 2_000
#: Rows kept of one diff (as many as the detail pane draws of an edit's diff).
MAX_ROWS = MAX_DIFF_LINES
#: Characters kept of one line (the rest is said: "… 1,234 more").
MAX_LINE = 2_000
CONTEXT = 3
TAB = 4
#: Characters looked at for a NUL, git's own test of a binary file.
BINARY_PROBE = 8_000

NO_REPOSITORY = "This file is in no git repository: the server has no base to compare it with."
NO_TEXT = (
    "The server gives no text for this file: it is empty, or binary (the server's diffs "
    "hold text only; the patch carries binaries exactly)."
)
BINARY = "A binary file: no line diff (the patch carries it exactly)."
SAME_LINES = (
    "The lines are the same: only line ends or the final newline changed, which the "
    "server's diff does not show."
)


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One line of the unified diff: ``kind`` is "hunk", "same", "removed" or "added";
    ``old``/``new`` its line numbers on each side (None where it has none)."""

    kind: str
    old: int | None
    new: int | None
    text: str


@dataclass(frozen=True, slots=True)
class SidePair:
    """One row side by side: the old line on the left, the new one on the right (either
    None where that side has no line there); a hunk header spans both."""

    left: DiffRow | None
    right: DiffRow | None


@dataclass
class FileDiff:
    """What the view draws of one file: its rows (unified) and pairs (side by side), how
    many lines it adds and removes, and what was left out or cannot be drawn."""

    rows: list[DiffRow] = field(default_factory=list)
    pairs: list[SidePair] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    #: unified rows past :data:`MAX_ROWS`, not kept
    hidden: int = 0
    #: textdiff's note (a changed part too large to align: shown removed, then added)
    note: str = ""
    #: nothing to draw, in words (no repository, no text, binary, same lines); "" otherwise
    message: str = ""
    number_width: int = 1


def counts(original: str | None, modified: str | None) -> tuple[int, int] | None:
    """Lines added and removed (None when the server gave no text to count: no repository,
    or an empty or binary file on both sides)."""
    if original is None and modified is None:
        return None
    old, new = original or "", modified or ""
    if not old and not new:
        return None
    if _binary(old) or _binary(new):
        return None
    return line_counts(old, new)


def _binary(text: str) -> bool:
    return "\x00" in text[:BINARY_PROBE]


def _line(text: str) -> str:
    """A line as drawn: tabs expanded, control characters visible, cut at :data:`MAX_LINE`."""
    if "\t" in text:
        text = text.expandtabs(TAB)
    if len(text) > MAX_LINE:
        text = f"{text[:MAX_LINE]}… ({len(text) - MAX_LINE:,} more characters)"
    return clean(text)


def build_diff(original: str | None, modified: str | None) -> FileDiff:
    """The rows of one file's diff (see the module doc); run it in a thread."""
    if original is None and modified is None:
        return FileDiff(message=NO_REPOSITORY)
    old_raw, new_raw = original or "", modified or ""
    if not old_raw and not new_raw:
        return FileDiff(message=NO_TEXT)
    if _binary(old_raw) or _binary(new_raw):
        return FileDiff(message=BINARY)
    added, removed = line_counts(old_raw, new_raw)
    # shown masked, as every text of the app; the counts are of the texts as they are
    old, new = redact_text(old_raw).splitlines(), redact_text(new_raw).splitlines()
    width = len(str(max(len(old), len(new), 1)))
    if old == new:
        return FileDiff(added=added, removed=removed, message=SAME_LINES, number_width=width)
    groups, note = hunk_groups(old, new, CONTEXT)
    out = FileDiff(added=added, removed=removed, note=note, number_width=width)
    for group in groups:
        if not _add_group(out, group, old, new):
            break
    return out


def _add_group(out: FileDiff, group: list[Opcode], old: list[str], new: list[str]) -> bool:
    """The rows and pairs of one hunk; False once :data:`MAX_ROWS` rows are kept (the rest
    of this hunk and the later ones are counted in ``hidden``)."""
    rows, pairs = out.rows, out.pairs
    header = DiffRow("hunk", None, None, hunk_header(group))
    if len(rows) >= MAX_ROWS:
        out.hidden += 1 + sum(_size(code) for code in group)
        return False
    rows.append(header)
    pairs.append(SidePair(header, header))
    for index, code in enumerate(group):
        tag, i1, i2, j1, j2 = code
        room = MAX_ROWS - len(rows)
        if room <= 0:
            out.hidden += sum(_size(later) for later in group[index:])
            return False
        if tag == "equal":
            for n in range(i1, min(i2, i1 + room)):
                row = DiffRow("same", n + 1, j1 + n - i1 + 1, _line(old[n]))
                rows.append(row)
                pairs.append(SidePair(row, row))
            out.hidden += max(0, (i2 - i1) - room)
            continue
        gone = [DiffRow("removed", n + 1, None, _line(old[n])) for n in range(i1, i2)[:room]]
        spare = room - len(gone)
        came = [DiffRow("added", None, n + 1, _line(new[n])) for n in range(j1, j2)[:spare]]
        rows.extend(gone)
        rows.extend(came)
        out.hidden += _size(code) - len(gone) - len(came)
        pairs.extend(SidePair(left, right) for left, right in zip_longest(gone, came))
    return True


def _size(code: Opcode) -> int:
    """Unified rows one opcode makes: its lines once when equal, each side's otherwise."""
    tag, i1, i2, j1, j2 = code
    return i2 - i1 if tag == "equal" else (i2 - i1) + (j2 - j1)


__all__ = ["MAX_ROWS", "DiffRow", "FileDiff", "SidePair", "build_diff", "counts"]
