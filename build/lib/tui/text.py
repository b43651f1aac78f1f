"""Untrusted text made safe to show or write: control sequences and bidi overrides neutralised.

The bottom floor of the package (no imports from ``tui``): the app and the exporters both
use it. Everything an agent or a tool produced is untrusted. On screen it is placed only as
literal text built from plain strings (never markup), and in copies and exports too, after
:func:`clean` has turned control characters into visible stand-ins, so an ``ESC`` or OSC 52
sequence in tool output can't move the cursor, write the clipboard or recolour the terminal.
The command line prints only through :func:`say`, which cleans too: its messages carry
server titles, server error text, config file values and conversation ids.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TextIO

# C0 controls except \t and \n, DEL, C1 controls, the bidi marks/overrides/isolates (U+061C,
# U+200E/F, U+202A-E, U+2066-9), the line/paragraph separators U+2028/9 (terminals disagree
# on them, which breaks the line layout) and lone surrogates (JSON "\ud800" decodes to one;
# it can't be encoded for the terminal and has no width).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMES = {"\x1b": "␛", "\x00": "␀", "\r": "␍", "\x07": "␇", "\x08": "␈", "\x7f": "␡"}
# What str.splitlines() breaks on, for finding the first line without splitting everything.
_LINE_BREAKS = re.compile("[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    name = _NAMES.get(char)
    if name:
        return name
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures" block
    return f"\\u{code:04x}"


def clean(text: str) -> str:
    """Neutralise control sequences; keep newlines and tabs."""
    if text.isprintable():  # C-speed: nothing _UNSAFE matches is printable
        return text
    return _UNSAFE.sub(_visible, text)


def say(text: str = "", *, file: TextIO | None = None, end: str = "\n") -> None:
    """``print`` for the command line (standard output unless ``file``), cleaned: the one
    way ``tui`` writes to a terminal outside the app, so no message can pass a server's or a
    file's control sequences through (a test finds any other ``print``)."""
    print(clean(text), file=sys.stdout if file is None else file, end=end)


def one_line(text: str, limit: int = 400) -> str:
    """First non-empty line, cleaned and cut to ``limit`` characters (for list rows)."""
    if len(text) <= limit and text.isprintable():
        # the usual case, at C speed: no line breaks, tabs or controls (none is printable)
        return text.strip()
    # Scan lazily: a 50 MB output must not be split into a million lines to find its first.
    start, line = 0, ""
    for match in _LINE_BREAKS.finditer(text):
        line = text[start : match.start()].strip()
        if line:
            break
        start = match.end()
    else:
        line = text[start:].strip()
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    # a tab in a row would jump the terminal's cursor past the row's own layout
    return clean(line.replace("\t", " "))


def cut_at_word(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a space, with "…" where it was cut (a
    single word longer than that is cut where it must be)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        head = head[:space]
    return head.rstrip() + "…"


def _count_lines(text: str) -> int:
    """Lines as splitlines() counts the usual breaks (\\n, \\r\\n, \\r), without splitting."""
    if not text:
        return 0
    breaks = text.count("\n") + text.count("\r") - text.count("\r\n")
    return breaks + (0 if text.endswith(("\n", "\r")) else 1)


def _cut(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return f"{line[:limit]}… ({len(line) - limit:,} more characters)"


#: Characters past the shown part that ``abbreviate``'s ``mask`` also sees, so a secret that
#: starts in view and runs past its end is still recognised whole.
MASK_MARGIN = 4_096


def abbreviate(
    text: str,
    max_chars: int = 20_000,
    max_lines: int = 400,
    max_line_chars: int | None = None,
    *,
    mask: Callable[[str], str] | None = None,
) -> tuple[str, int]:
    """Cut long text for display; returns the shown text and how many lines were left out.

    Only the first ``max_chars`` characters are ever split, so a 50 MB output costs what its
    first screen costs. Characters cut from a line that is shown (the last one, or any longer
    than ``max_line_chars``) are counted in a "… (N more characters)" note. ``mask`` (e.g.
    the secrets policy) is applied to the part that can be shown (and a margin after it),
    never to a copy of the whole text.
    """
    if mask is None:
        head = text[:max_chars]
    else:
        head = mask(text[: max_chars + MASK_MARGIN])[:max_chars]
    lines = head.splitlines()
    shown = lines[:max_lines]
    if max_line_chars:
        shown = [_cut(line, max_line_chars) for line in shown]
    if len(text) > max_chars and len(lines) <= max_lines:
        tail = f"… ({len(text) - max_chars:,} more characters)"
        shown = [*shown[:-1], (shown[-1] if shown else "") + tail]
    hidden = max(0, _count_lines(text) - len(shown))
    return clean("\n".join(shown)), hidden
