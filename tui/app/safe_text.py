"""Untrusted text made safe to show: terminal control sequences and bidi overrides neutralised.

Everything an agent or a tool produced is untrusted. It reaches the screen only as
``rich.text.Text`` built from plain strings (never markup), after :func:`clean` has turned
control characters into visible stand-ins, so an ``ESC`` or OSC 52 sequence in tool
output can't move the cursor, write the clipboard or recolour the terminal.
"""

from __future__ import annotations

import re

# C0 controls except \t and \n, DEL, C1 controls, and the bidi/isolate overrides.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMES = {"\x1b": "␛", "\x00": "␀", "\r": "␍", "\x07": "␇", "\x08": "␈", "\x7f": "␡"}


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
    return _UNSAFE.sub(_visible, text)


def one_line(text: str, limit: int = 400) -> str:
    """First non-empty line, cleaned and cut to ``limit`` characters (for list rows)."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            break
    else:
        line = ""
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return clean(line)


def abbreviate(text: str, max_chars: int = 20_000, max_lines: int = 400) -> tuple[str, int]:
    """Cut long text for display; returns the shown text and how many lines were left out."""
    lines = text.splitlines()
    hidden = 0
    if len(lines) > max_lines:
        hidden = len(lines) - max_lines
        lines = lines[:max_lines]
    shown = "\n".join(lines)
    if len(shown) > max_chars:
        shown = shown[:max_chars] + "…"
    return clean(shown), hidden
