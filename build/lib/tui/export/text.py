"""Safe Markdown pieces: untrusted text that can neither break the transcript's structure,
nor act on a terminal, nor hide what it says, nor leak a secret — in linear time.

Every piece of text that reaches the transcript goes through :func:`safe`: carriage
returns and other controls are shown as visible symbols (``␍``, ``␛``), never resolved the
way a terminal would (a ``\\r`` could otherwise rewrite a command in a shared transcript),
lone surrogates and bidi overrides are written as their ``\\uXXXX`` escape, and secrets are masked by the one policy
(:func:`tui.models.redact.redact_text`). Long text is cut to :data:`MAX_BLOCK_CHARS`,
keeping its head and its tail, with a line that says how much was left out.
"""

from __future__ import annotations

import re
from typing import Any

from tui.models.jsontext import json_text
from tui.models.redact import redact, redact_text

#: Characters of one block (an output, a message, a diff) the transcript keeps: the first
#: and the last half, with what was cut said between them.
MAX_BLOCK_CHARS = 200_000
#: Characters kept on either side of a cut beyond it, so that a secret the cut runs through
#: is still recognised and masked whole before the cut is made.
_CUT_MARGIN = 4_096

# C0 controls except \t and \n, DEL, C1 controls, bidi marks/overrides/isolates, the line and
# paragraph separators (the same set the screen neutralises) and lone surrogates.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMES = {"\x1b": "␛", "\x00": "␀", "\r": "␍", "\x07": "␇", "\x08": "␈", "\x7f": "␡"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    name = _NAMES.get(char)
    if name:
        return name
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures" block
    return f"\\u{code:04x}"  # C1, bidi, separators, lone surrogates: as their escape


def visible(text: str) -> str:
    """Controls as visible symbols (``\\r`` → ``␍``, ESC → ``␛``); newlines and tabs kept."""
    if text.isprintable():  # C-speed: nothing _UNSAFE matches is printable
        return text
    return _UNSAFE.sub(_visible, text.replace("\r\n", "\n"))


def cut(text: str, limit: int = MAX_BLOCK_CHARS) -> tuple[str, str, str]:
    """``(head, note, tail)``: ``text`` itself when it fits (note and tail empty), else its
    first and last ``limit // 2`` characters and a note of what is left out between them."""
    if len(text) <= limit:
        return text, "", ""
    half = limit // 2
    left_out = len(text) - 2 * half
    lines = text.count("\n", half, len(text) - half)
    note = f"… {left_out:,} characters ({lines:,} line breaks) not exported …"
    return text[:half], note, text[-half:]


def safe(text: str, limit: int = MAX_BLOCK_CHARS) -> str:
    """Untrusted text as the transcript shows it: cut to ``limit`` (head and tail kept, the
    cut said on a line of its own), secrets masked, controls visible."""
    head, note, tail = cut(text, limit)
    if not note:
        return visible(redact_text(text))
    # mask with a margin past each cut, so a secret the cut runs through is masked whole
    head = redact_text(text[: len(head) + _CUT_MARGIN])[: len(head)]
    tail = redact_text(text[-(len(tail) + _CUT_MARGIN) :])[-len(tail) :]
    return visible(f"{head}\n{note}\n{tail}")


def inline(text: str, limit: int = 300) -> str:
    """Untrusted text for a heading or a one-line note: one line, no HTML."""
    line = " ".join(safe(text[: limit * 8 + 1024], limit * 8).split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return line.replace("<", "&lt;")


def longest_run(text: str, char: str = "`") -> int:
    """The longest run of ``char`` in ``text`` (C-speed regex scan)."""
    return max((len(run) for run in re.findall(re.escape(char) + "+", text)), default=0)


def code_span(text: str, limit: int = 300) -> str:
    """Untrusted text as inline code, delimited by more backticks than it contains."""
    line = " ".join(safe(text[: limit * 8 + 1024], limit * 8).split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    ticks = "`" * (longest_run(line) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line.strip() else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def fence(text: str, info: str = "", limit: int = MAX_BLOCK_CHARS) -> str:
    """A fenced code block that no content can close early."""
    body = safe(text, limit).rstrip("\n")
    ticks = "`" * max(3, longest_run(body) + 1)
    return f"{ticks}{info}\n{body}\n{ticks}" if body else f"{ticks}{info}\n{ticks}"


_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_BACKTICKS = re.compile(r"`+")
_DETAILS_TAG = re.compile(r"<(?=/?(?:details|summary)\b)", re.IGNORECASE)
# HTML block starts (CommonMark types 1-5) that run until a terminator, not a blank line.
_SWALLOWING_HTML = re.compile(
    r"^( {0,3})<(?=(?:script|pre|style|textarea)\b|!--|\?|![A-Za-z]|!\[CDATA\[)",
    re.IGNORECASE | re.MULTILINE,
)


def code_spans(text: str) -> list[tuple[int, int]]:
    """The inline code spans of ``text`` (a backtick run up to the next run of the same
    length), found in one pass over the runs: a regex with a back-reference rescanned the
    rest of the text from every unmatched run (quadratic on hostile text)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    following: list[int | None] = [None] * len(runs)
    seen: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        following[index] = seen.get(length)
        seen[length] = index
    spans = []
    index = 0
    while index < len(runs):
        closer = following[index]
        if closer is None:
            index += 1
            continue
        spans.append((runs[index][0], runs[closer][1]))
        index = closer + 1
    return spans


def _neutralise_html(text: str) -> str:
    out = []
    pos = 0
    for start, end in code_spans(text):
        out.append(_escape_html(text[pos:start]))
        out.append(text[start:end])
        pos = end
    out.append(_escape_html(text[pos:]))
    return "".join(out)


def _escape_html(text: str) -> str:
    text = _DETAILS_TAG.sub("&lt;", text)
    return _SWALLOWING_HTML.sub(r"\1&lt;", text)


def markdown_block(text: str, limit: int = MAX_BLOCK_CHARS) -> str:
    """Untrusted Markdown kept as Markdown, but unable to affect what follows it.

    Fences left open are closed; ``<details>``/``<summary>`` tags and HTML blocks that
    only end at a terminator (``<!--``, ``<pre>``, ``<script>``…) are escaped outside code.
    """
    lines = safe(text, limit).strip("\n").split("\n")
    out: list[str] = []
    prose: list[str] = []
    open_fence: tuple[str, int] | None = None

    def flush() -> None:
        if prose:
            out.append(_neutralise_html("\n".join(prose)))
            prose.clear()

    for line in lines:
        match = _FENCE_LINE.match(line)
        if open_fence is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                flush()
                open_fence = (match.group(1)[0], len(match.group(1)))
                out.append(line)
            else:
                prose.append(line)
        else:
            out.append(line)
            if (
                match
                and match.group(1)[0] == open_fence[0]
                and len(match.group(1)) >= open_fence[1]
                and not match.group(2).strip()
            ):
                open_fence = None
    flush()
    if open_fence is not None:
        out.append(open_fence[0] * open_fence[1])
    return "\n".join(out)


def quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def details(summary: str, body: str) -> str:
    return f"<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>"


def when(timestamp: str | None) -> str:
    if not timestamp:
        return ""
    return inline(timestamp[:19].replace("T", " "))


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def json_block(value: Any) -> str:
    """Data as an indented JSON block: secrets masked by key and by shape, numbers as sent."""
    return fence(json_text(redact(value), indent=2), "json")


def error_quote(label: str, text: str, note: str = "") -> str:
    """``> **Error** (note): text``; a multi-line text goes in a fence inside the quote."""
    head = f"**{label}**" + (f" ({inline(note)})" if note else "")
    shown = safe(text).strip("\n") if text else ""
    if "\n" not in shown:
        return quote(f"{head}: {inline(shown)}" if shown else head)
    return quote(f"{head}\n\n{fence(text)}")
