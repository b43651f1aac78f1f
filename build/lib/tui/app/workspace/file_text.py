"""A workspace file's bytes made ready to show: text literally, with syntax colours; a binary
or an empty file as a word. No Textual here: the Files screen runs these in a thread.

Why each step:

- binary: a NUL byte, or bytes that are not UTF-8, are no text to read; the view says so
  with the size, and the bytes go no further than the download that held them;
- masked: the text goes through the one secrets policy (``redact_text``) before anything
  else, as every other text on screen does; saving the file writes its bytes exactly;
- literal: each line is cleaned of control sequences (``clean``: an ``ESC`` becomes ``␛``, a
  lone ``\\r`` ``␍``) and tabs are expanded, so what the terminal gets is what is drawn;
  nothing is ever read as markup (the view draws plain strings with styles);
- bounded: at most :data:`MAX_LINES` lines are kept (a file of newlines would otherwise be
  millions of rows), and only the first :data:`MAX_COLOURED` characters are coloured
  (a lexer over megabytes holds the interpreter for seconds);
- colours: the lexer is chosen by the file's name only (guessing from the content reads the
  whole text with every lexer and is often wrong); each token gets a *name*
  (``keyword``, ``string``…) that the view maps to a style of its theme (its component
  classes), so the colours follow the theme.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tui.models.redact import redact_text
from tui.text import clean

if TYPE_CHECKING:
    from pygments.lexer import Lexer

#: Bytes downloaded to show a file; a bigger one is said to be too large to show here.
MAX_VIEW = 2 * 1024 * 1024
#: Lines kept for the view; the rest are counted.
MAX_LINES = 100_000
#: Characters of a text that are coloured; past it the rest is drawn plain.
MAX_COLOURED = 512 * 1024
TAB = 4

#: Token types (pygments' names, most specific first) → the view's style names.
TOKEN_NAMES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Comment",), "comment"),
    (("Literal", "String", "Doc"), "doc"),
    (("Literal", "String"), "string"),
    (("Literal", "Number"), "number"),
    (("Keyword", "Constant"), "constant"),
    (("Keyword", "Type"), "type"),
    (("Keyword",), "keyword"),
    (("Operator", "Word"), "keyword"),
    (("Name", "Builtin"), "builtin"),
    (("Name", "Function"), "function"),
    (("Name", "Class"), "class"),
    (("Name", "Decorator"), "decorator"),
    (("Name", "Tag"), "tag"),
    (("Name", "Attribute"), "attribute"),
    (("Name", "Constant"), "constant"),
    (("Name", "Namespace"), "type"),
    (("Generic", "Heading"), "heading"),
    (("Generic", "Subheading"), "heading"),
    (("Generic", "Inserted"), "inserted"),
    (("Generic", "Deleted"), "deleted"),
    (("Generic", "Emph"), "emph"),
    (("Generic", "Strong"), "strong"),
)
STYLE_NAMES = frozenset(name for _, name in TOKEN_NAMES)

#: One coloured stretch of a line: (start, end, style name), in characters.
Span = tuple[int, int, str]


@dataclass(frozen=True)
class FileText:
    """What the view shows of a file. ``kind``: ``text``, ``binary`` or ``empty``;
    ``size``: its bytes; ``lines``: the text's lines (literal, cleaned, tabs expanded);
    ``more_lines``: lines left out past :data:`MAX_LINES`; ``width``: the longest line's
    length; ``masked``: secret-shaped text was masked; ``language``: the lexer's name, None
    when the file's name says nothing."""

    kind: str
    size: int
    lines: list[str] = field(default_factory=list)
    more_lines: int = 0
    width: int = 0
    masked: bool = False
    language: str | None = None

    def describe(self) -> str:
        """``47 lines · python``, ``binary``, ``empty``: what the view's head line says."""
        if self.kind != "text":
            return self.kind
        count = len(self.lines) + self.more_lines
        words = [f"{count:,} line{'s' if count != 1 else ''}"]
        if self.language:
            words.append(self.language)
        if self.masked:
            words.append("secret-shaped text masked")
        return " · ".join(words)


def is_binary(data: bytes) -> bool:
    """A NUL byte, or bytes that are not UTF-8."""
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def prepare(data: bytes, name: str) -> FileText:
    """``data`` (a whole file, at most :data:`MAX_VIEW` bytes) as the view shows it."""
    if not data:
        return FileText("empty", 0)
    if is_binary(data):
        return FileText("binary", len(data))
    text = data.decode("utf-8").removeprefix("\ufeff")
    shown = redact_text(text)
    masked = shown != text
    raw = shown.replace("\r\n", "\n").split("\n")
    if raw and raw[-1] == "" and len(raw) > 1:
        raw.pop()  # the final newline ends the last line; it starts none
    more = max(0, len(raw) - MAX_LINES)
    lines = [clean(line).expandtabs(TAB) for line in raw[:MAX_LINES]]
    width = max((len(line) for line in lines), default=0)
    return FileText("text", len(data), lines, more, width, masked, language_of(name))


def _lexer(name: str) -> Lexer | None:
    """The lexer for a file called ``name`` (imported only when asked for)."""
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False, tabsize=TAB)
    except ClassNotFound:
        return None


def language_of(name: str) -> str | None:
    """The lexer's name for a file called ``name`` (None: plain text, or not known)."""
    lexer = _lexer(name)
    if lexer is None or lexer.name in ("Text only", "Text"):
        return None
    return str(lexer.name)


def _style_name(token: tuple[str, ...], cache: dict[tuple[str, ...], str | None]) -> str | None:
    found = cache.get(token, "")
    if found != "":
        return found
    name = next((style for prefix, style in TOKEN_NAMES if token[: len(prefix)] == prefix), None)
    cache[token] = name
    return name


def highlight(lines: list[str], name: str) -> list[tuple[Span, ...]] | None:
    """Each line's coloured stretches (as many lists as lines; None when the name says no
    language). Only the first :data:`MAX_COLOURED` characters are read."""
    lexer = _lexer(name)
    if lexer is None or lexer.name in ("Text only", "Text"):
        return None
    kept, total = [], 0
    for line in lines:
        total += len(line) + 1
        if total > MAX_COLOURED and kept:
            break
        kept.append(line)
    out: list[list[Span]] = [[] for _ in lines]
    cache: dict[tuple[str, ...], str | None] = {}
    row, column = 0, 0
    for token, value in lexer.get_tokens("\n".join(kept)):
        style = _style_name(tuple(token), cache)
        parts = value.split("\n")
        for index, part in enumerate(parts):
            if index:
                row, column = row + 1, 0
            if part and style is not None and row < len(out):
                out[row].append((column, column + len(part), style))
            column += len(part)
    return [tuple(spans) for spans in out]


__all__ = [
    "MAX_COLOURED",
    "MAX_LINES",
    "MAX_VIEW",
    "STYLE_NAMES",
    "FileText",
    "highlight",
    "is_binary",
    "language_of",
    "prepare",
]
