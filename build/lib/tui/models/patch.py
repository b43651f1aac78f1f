"""Git patches built from whole texts, for a server that gives the two sides of a file but
no patch (its ``/git/diff``): what ``git apply`` takes, hunk by hunk.

The lines are aligned by :mod:`.textdiff` (linear in the texts' size; a changed part too
large to align is written as removed, then added: a larger patch, still a correct one).
Lines are split on ``\\n`` only, as git does. Each side says whether it ends in a newline:
a side that does not gets git's ``\\ No newline at end of file`` after its last line, and
a last line that differs only by that newline is a change, as in git.
"""

from __future__ import annotations

from dataclasses import dataclass

from .textdiff import hunk_groups, hunk_header

NO_NEWLINE = "\\ No newline at end of file"
#: git's file mode for a regular file (the servers' diffs say nothing of modes)
FILE_MODE = "100644"
_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


@dataclass(frozen=True)
class Side:
    """One side of a file: its lines (without line ends) and whether the last one ends in a
    newline. An empty file is ``Side([], True)``."""

    lines: list[str]
    final_newline: bool = True

    @classmethod
    def of(cls, text: str, *, assume_newline: bool = False) -> Side:
        """The side of ``text`` as it is; ``assume_newline`` for a text whose final newline
        was dropped on the way (the agent server's diffs): it is taken to have one."""
        if not text:
            return cls([], True)
        if text.endswith("\n"):
            return cls(text[:-1].split("\n"), True)
        return cls(text.split("\n"), assume_newline)


def quote_path(path: str) -> str:
    """A path as git writes it in a patch: C-quoted when it holds a quote, a backslash, a
    control character or anything outside ASCII (git's ``core.quotePath``), else bare."""
    if not any(c in _ESCAPES or ord(c) < 0x20 or ord(c) >= 0x7F for c in path):
        return path
    out = []
    for char in path:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) >= 0x7F:
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogatepass"))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _named(prefix: str, path: str) -> str:
    quoted = quote_path(path)
    if quoted.startswith('"'):
        return f'"{prefix}{quoted[1:]}'
    return f"{prefix}{path}"


def _comparable(side: Side) -> list[str]:
    """The lines with their line ends, so a last line without one differs from one with."""
    lines = [line + "\n" for line in side.lines]
    if lines and not side.final_newline:
        lines[-1] = side.lines[-1]
    return lines


def _emit(out: list[str], mark: str, line: str) -> None:
    if line.endswith("\n"):
        out.append(mark + line[:-1])
    else:
        out.append(mark + line)
        out.append(NO_NEWLINE)


def hunks(old: Side, new: Side, *, context: int = 3) -> tuple[list[str], str]:
    """The hunks of ``old`` → ``new`` (headers and lines, no line ends) and the note of a
    changed part too large to align ("" when there is none); no hunks when they are equal."""
    a, b = _comparable(old), _comparable(new)
    if a == b:
        return [], ""
    groups, note = hunk_groups(a, b, context)
    out: list[str] = []
    for group in groups:
        out.append(hunk_header(group))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in a[i1:i2]:
                    _emit(out, " ", line)
                continue
            if tag in ("replace", "delete"):
                for line in a[i1:i2]:
                    _emit(out, "-", line)
            if tag in ("replace", "insert"):
                for line in b[j1:j2]:
                    _emit(out, "+", line)
    return out, note


@dataclass(frozen=True)
class FilePatch:
    """One file's part of a patch (its lines end in ``\\n``); ``note`` as in :func:`hunks`."""

    text: str
    note: str = ""


def file_patch(
    path: str,
    old: Side | None,
    new: Side | None,
    *,
    old_path: str | None = None,
    context: int = 3,
) -> FilePatch | None:
    """The ``diff --git`` section of one file: ``old`` None for a file that is new, ``new``
    None for one deleted, ``old_path`` for a rename. None when nothing changed."""
    if old is None and new is None:
        raise ValueError("a file patch needs at least one side")
    source = old_path or path
    body, note = hunks(old or Side([]), new or Side([]), context=context)
    head = [f"diff --git {_named('a/', source)} {_named('b/', path)}"]
    if old is None:
        head.append(f"new file mode {FILE_MODE}")
    elif new is None:
        head.append(f"deleted file mode {FILE_MODE}")
    elif source != path:
        if not body:
            head.append("similarity index 100%")
        head += [f"rename from {quote_path(source)}", f"rename to {quote_path(path)}"]
    elif not body:
        return None
    if body:
        head.append("--- /dev/null" if old is None else f"--- {_named('a/', source)}")
        head.append("+++ /dev/null" if new is None else f"+++ {_named('b/', path)}")
    return FilePatch("\n".join(head + body) + "\n", note)


__all__ = ["NO_NEWLINE", "FilePatch", "Side", "file_patch", "hunks", "quote_path"]
