"""The pieces every detail body is drawn with: literal text, masked text, diffs, JSON.

Each is bounded, masked and themed on its own, so a body for a new event kind cannot get
those wrong. Bounded work (why): these run on the UI's loop when the cursor lands on an
event, so their cost must not follow the input's shape. Diffs come from
``tui.models.textdiff`` (linear: a crafted 200k-character edit froze the app 5–11 s under
``difflib``) and show at most :data:`MAX_DIFF_LINES` lines of at most
:data:`MAX_JSON_LINE` characters, saying what was cut; only the part of a long text that
can be shown is searched for secrets.
"""

from __future__ import annotations

from rich.highlighter import JSONHighlighter
from rich.style import Style
from rich.text import Span, Text
from textual.widgets import Static

from tui.app.themes import theme_style
from tui.app.workspace.diff_rows import MAX_DIFF_LINES
from tui.models.jsontext import json_text
from tui.models.redact import redact, redact_text
from tui.models.textdiff import unified_diff
from tui.text import MASK_MARGIN, abbreviate, one_line

#: Longest single line of the raw JSON view; a 1 MB string value is cut with a note.
MAX_JSON_LINE = 2_000
#: A string longer than this is cut before the JSON view masks and writes it: to its first
#: :data:`JSON_HEAD` characters, which fit on one line with their escapes (a line of an
#: output takes ~1.1× its characters), and how many more there are.
JSON_LONG = 100_000
JSON_HEAD = MAX_JSON_LINE // 2
#: Edits of more than this many characters are shown as their new text, not diffed (the
#: diff is linear, but a diff nobody can read is not worth drawing).
MAX_DIFF_CHARS = 2_000_000


def literal(
    text: str,
    style: str = "",
    classes: str | None = None,
    *,
    max_chars: int = 20_000,
    max_lines: int = 400,
) -> Static:
    """A Static showing ``text`` literally (never markup), abbreviated if huge, secrets
    masked."""
    shown, hidden = abbreviate(text, max_chars, max_lines, mask=redact_text)
    body = Text(shown, style=style)
    if hidden:
        # not "r: raw JSON": it holds the text on one line, cut at MAX_JSON_LINE characters
        body.append(
            f"\n… {hidden:,} more lines (a JSONL export keeps them all)", style="dim italic"
        )
    return Static(body, classes=classes)


def masked(text: str, shown: int | None = None) -> str:
    """``text`` with its secrets masked: all of it, or (``shown``: how many characters can be
    drawn) only its first ``shown`` characters and a margin, so a 50 MB output costs what its
    screen does (the rest is not returned: callers draw the head only)."""
    if shown is None:
        return redact_text(text)
    return redact_text(text[: shown + MASK_MARGIN])


def short(text: str, limit: int = 200) -> str:
    """One cleaned line for a header or title (an id or tool name can be any size)."""
    return one_line(masked(text, limit), limit)


def diff_label(side: str, path: str) -> str:
    """A diff header's file name: ``a/src/x.py`` for a relative path, ``a/workspace/x.py``
    for an absolute one (not ``a//workspace/x.py``)."""
    return f"{side}/{path.lstrip('/')}" if path else side


def diff_text(old: str, new: str, path: str = "") -> Text:
    """A unified diff as coloured, literal Text (linear; capped, saying what was cut)."""
    out = Text()
    note = "dim italic"
    path = short(path, 500)
    if len(old) + len(new) > MAX_DIFF_CHARS:
        out.append(
            f"(edit of {len(old):,} → {len(new):,} characters: too large to diff; new text)\n",
            style=note,
        )
        shown, hidden = abbreviate(new, max_line_chars=MAX_JSON_LINE, mask=redact_text)
        out.append(shown + (f"\n… {hidden:,} more lines" if hidden else ""))
        return out
    diff = unified_diff(masked(old), masked(new), diff_label("a", path), diff_label("b", path))
    if diff is None:
        out.append("(the text is the same before and after)\n", style=note)
        return out
    if diff.note:
        out.append(f"{diff.note[:1].upper()}{diff.note[1:]}.\n", style=note)
    header, hunk = Style(bold=True), theme_style("$diff-hunk")
    added, removed = theme_style("$diff-added"), theme_style("$diff-removed")
    lines = diff.lines
    for count, line in enumerate(lines):
        if count >= MAX_DIFF_LINES:
            out.append(
                f"… {len(lines) - count:,} more diff lines not shown (r: raw JSON has both texts)\n",
                style=note,
            )
            break
        style = (
            header
            if line.startswith(("---", "+++"))
            else hunk
            if line.startswith("@@")
            else added
            if line.startswith("+")
            else removed
            if line.startswith("-")
            else ""
        )
        out.append(abbreviate(line, max_chars=MAX_JSON_LINE)[0] + "\n", style=style)
    return out


#: rich's JSON highlighter's styles → theme colours (its own defaults are fixed colours)
JSON_STYLES = {
    "json.brace": "bold",
    "json.key": "$primary bold",
    "json.str": "$success",
    "json.number": "$accent",
    "json.bool_true": "$secondary italic",
    "json.bool_false": "$secondary italic",
    "json.null": "$secondary italic",
}


def json_view(data: object) -> Static:
    """``data`` as indented JSON (secrets masked, numbers as sent; never raises),
    highlighted in the theme's colours."""
    dumped = json_text(redact(data, cut=(JSON_LONG, JSON_HEAD)), indent=2)
    shown, hidden = abbreviate(
        dumped, max_chars=200_000, max_lines=5_000, max_line_chars=MAX_JSON_LINE
    )
    text = Text(shown)
    JSONHighlighter().highlight(text)  # colours only: no background, no markup
    styles = {name: theme_style(spec) for name, spec in JSON_STYLES.items()}
    text.spans = [Span(s.start, s.end, styles.get(str(s.style), s.style)) for s in text.spans]
    if hidden:
        text.append(f"\n… {hidden:,} more lines", style="dim italic")
    return Static(text)
