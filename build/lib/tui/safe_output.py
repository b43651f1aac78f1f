"""Writing output where the user said, and nowhere else: the one writer of every output file.

``ohtui export -o``, ``ohtui insights -o``, ``ohtui diff``, ``ohtui download``, the app's
``ctrl+s`` and Files saves, and ``ohtui config init`` all write through :func:`open_output`
(new files under a free name from :func:`unused_name`), because a path is not always a file:

* ``-`` is standard output;
* a character or block device, a FIFO or a socket is written to as a stream: ``-o
  /dev/null`` must never turn the device into a regular file (as root that breaks every
  program on the machine), a FIFO's reader must get the bytes;
* a regular file, or a name not yet taken, gets a temporary file created exclusively (no
  link followed, an unpredictable name) in the same folder, renamed over the name when
  whole: a failure or a cancel leaves the old file as it was and no debris, and a link
  planted at a guessable name (``out.md.part``) can't redirect the write;
* a link the user named is resolved once and written through to its target, and the
  caller says so (``str(destination)``): a dangling one, a folder or anything else is an
  error in words (:class:`OutputError`), never created or replaced.

Standard library only (and :mod:`tui.text`), so every layer may use it.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .text import clean

STDOUT = "-"
#: What a file may hold (a conversation, its costs, key references): private unless the
#: file it replaces said otherwise.
NEW_FILE_MODE = 0o600
#: Hard links can't be made here: fall back to a checked rename for an exclusive write.
_NO_LINKS = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOSYS, errno.EOPNOTSUPP}
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class OutputError(Exception):
    """The output can't go where it was asked to; the message says why, in words."""


@dataclass(frozen=True)
class Destination:
    """Where an output goes. ``named``: what the user gave; ``path``: where the bytes go
    (the named path, or the target of the link it names, resolved once); ``kind``: "stdout",
    "stream" (a device, FIFO or socket: written as it comes, never replaced) or "file" (a
    regular file or a new one: replaced whole); ``link``: the user named a link."""

    named: str
    path: str
    kind: str
    link: bool = False

    def __str__(self) -> str:
        if self.kind == "stdout":
            return "standard output"
        if self.link:
            return clean(f"{self.path} (through the link {self.named})")
        return clean(self.named)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def destination(named: str | os.PathLike[str], *, exclusive: bool = False) -> Destination:
    """Where ``named`` writes, decided once; :class:`OutputError` if nowhere. ``exclusive``:
    the name must be free (no file, no link, nothing)."""
    text = os.fspath(named)
    if text == STDOUT:
        return Destination(text, text, "stdout")
    shown = clean(text)
    if not text:
        raise OutputError("no output file named")
    try:
        info: os.stat_result | None = os.lstat(text)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {_why(exc)}") from None
    if info is not None and exclusive:
        raise OutputError(f"{shown} already exists")
    path, link = text, False
    if info is not None and stat.S_ISLNK(info.st_mode):
        path, link = os.path.realpath(text), True
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            raise OutputError(
                f"{shown} is a link to {clean(path)}, which does not exist "
                "(name that path itself to create it)"
            ) from None
        except OSError as exc:
            raise OutputError(f"cannot write {shown}: {_why(exc)}") from None
        if stat.S_ISLNK(info.st_mode):
            raise OutputError(f"{shown} is a loop of links")
    if info is None:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise OutputError(f"cannot write {shown}: there is no folder {clean(folder)}")
        return Destination(text, path, "file", link)
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise OutputError(f"{shown} is a folder: name a file in it")
    if stat.S_ISREG(mode):
        return Destination(text, path, "file", link)
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return Destination(text, path, "stream", link)
    raise OutputError(f"{shown} is neither a file, a device, a FIFO nor a socket")


class Output:
    """The text stream :func:`open_output` gives: a failed write is an :class:`OutputError`
    naming the destination (a broken standard output stays a ``BrokenPipeError``, for
    ``| head``)."""

    def __init__(self, stream: TextIO, where: Destination) -> None:
        self._stream = stream
        self.destination = where

    def _guarded(self, call: Callable[..., Any], *args: Any) -> Any:
        try:
            return call(*args)
        except BrokenPipeError:
            if self.destination.kind == "stdout":
                raise
            raise OutputError(f"cannot write {self.destination}: its reader went away") from None
        except OSError as exc:
            raise OutputError(f"cannot write {self.destination}: {_why(exc)}") from None

    def write(self, text: str) -> int:
        return self._guarded(self._stream.write, text)

    def writelines(self, chunks: Iterable[str]) -> None:
        for chunk in chunks:
            self._guarded(self._stream.write, chunk)

    def flush(self) -> None:
        self._guarded(self._stream.flush)


def _text(fd: int, binary: bool = False) -> TextIO:
    if binary:  # bytes exactly as given (a patch must apply)
        return os.fdopen(fd, "wb")  # type: ignore[return-value]
    return os.fdopen(fd, "w", encoding="utf-8", errors="replace", newline="\n")


@contextmanager
def open_output(
    where: str | os.PathLike[str] | Destination,
    *,
    exclusive: bool = False,
    mode: int | None = None,
    binary: bool = False,
) -> Iterator[Output]:
    """A text stream (UTF-8, ``\\n`` lines; ``binary``: bytes) to ``where`` (a path or a :func:`destination`),
    by the rules in the module doc. A file appears only when the block ends without an
    exception, with ``mode`` (default: the replaced file's, else :data:`NEW_FILE_MODE`);
    ``exclusive``: only under a free name, never over anything (checked atomically)."""
    dest = where if isinstance(where, Destination) else destination(where, exclusive=exclusive)
    if dest.kind == "stdout":
        stdout: Any = sys.stdout
        if binary:
            sys.stdout.flush()
            stdout = sys.stdout.buffer
        elif hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(encoding="utf-8", errors="replace")
        out = Output(stdout, dest)
        yield out
        out.flush()
    elif dest.kind == "stream":
        with _open_stream(dest, binary) as stream:
            out = Output(stream, dest)
            yield out
            out.flush()
    else:
        yield from _write_file(dest, exclusive, mode, binary)


@contextmanager
def _open_stream(dest: Destination, binary: bool = False) -> Iterator[TextIO]:
    """The device, FIFO or socket itself, opened for writing: never created, truncated or
    replaced (a FIFO waits for its reader, as the shell's ``>`` does)."""
    try:
        if stat.S_ISSOCK(os.stat(dest.path).st_mode):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(dest.path)
                fd = os.dup(sock.fileno())
        else:
            fd = os.open(dest.path, os.O_WRONLY | _NOFOLLOW | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise OutputError(f"cannot write {dest}: {_why(exc)}") from None
    opened = os.fstat(fd).st_mode
    if stat.S_ISREG(opened) or stat.S_ISDIR(opened):  # it changed since it was looked at
        os.close(fd)
        raise OutputError(f"cannot write {dest}: it changed while being opened")
    stream = _text(fd, binary)
    try:
        yield stream
    finally:
        try:
            stream.close()
        except OSError:
            pass  # a failed flush was said by Output.flush; close only releases the fd


def _write_file(
    dest: Destination, exclusive: bool, mode: int | None, binary: bool = False
) -> Iterator[Output]:
    """The temporary file beside ``dest.path``, renamed (or linked, if ``exclusive``) onto
    it when whole; removed whatever goes wrong."""
    folder, name = os.path.split(os.path.abspath(dest.path))
    try:
        old = os.lstat(dest.path)
    except OSError:
        old = None
    if old is not None and exclusive:
        raise OutputError(f"{dest} already exists")
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise OutputError(f"cannot write {dest}: it changed since it was looked at")
    try:  # O_CREAT | O_EXCL | O_NOFOLLOW, mode 600, a random name
        fd, tmp = tempfile.mkstemp(prefix=f".{name[:100]}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {dest}: {_why(exc)} (in {clean(folder)})") from None
    try:
        stream = _text(fd, binary)
        try:
            out = Output(stream, dest)
            yield out
            out.flush()
            _settle(fd, dest, old, mode)
        finally:
            try:
                stream.close()
            except OSError:
                pass  # already flushed and synced, or failing anyway
        _commit(tmp, dest, exclusive)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(folder)


def _settle(fd: int, dest: Destination, old: os.stat_result | None, mode: int | None) -> None:
    """The new file's permissions (and, where allowed, owner) before it takes the name; on
    disk before the rename, so a crash leaves the old file or the new one, not a torn one."""
    try:
        if mode is None:
            mode = stat.S_IMODE(old.st_mode) & 0o777 if old is not None else NEW_FILE_MODE
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        if old is not None and hasattr(os, "fchown") and old.st_uid != os.geteuid():
            try:
                os.fchown(fd, old.st_uid, old.st_gid)  # root replacing someone's file
            except OSError:
                pass
        os.fsync(fd)
    except OSError as exc:
        raise OutputError(f"cannot write {dest}: {_why(exc)}") from None


def _commit(tmp: str, dest: Destination, exclusive: bool) -> None:
    try:
        if exclusive:
            try:
                os.link(tmp, dest.path)  # fails if anything has the name, atomically
            except FileExistsError:
                raise OutputError(f"{dest} already exists") from None
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
                if os.path.lexists(dest.path):
                    raise OutputError(f"{dest} already exists") from None
                os.replace(tmp, dest.path)
            else:
                os.unlink(tmp)
            return
        try:
            now = os.lstat(dest.path).st_mode
        except FileNotFoundError:
            now = None
        if now is not None and not (stat.S_ISREG(now) or stat.S_ISLNK(now)):
            raise OutputError(f"cannot write {dest}: it changed while being written")
        os.replace(tmp, dest.path)  # a link put there meanwhile is replaced, never followed
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {dest}: {_why(exc)}") from None


def _sync_folder(folder: str) -> None:
    """The rename on disk too (best effort: not every system can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_text(
    where: str | os.PathLike[str] | Destination,
    text: str,
    *,
    exclusive: bool = False,
    mode: int | None = None,
) -> Destination:
    """``text`` to ``where`` by :func:`open_output`; returns where it went."""
    with open_output(where, exclusive=exclusive, mode=mode) as out:
        out.write(text)
    return out.destination


def write_bytes(
    where: str | os.PathLike[str] | Destination, data: bytes, *, exclusive: bool = False
) -> Destination:
    """``data`` exactly to ``where`` by :func:`open_output`; returns where it went.
    ``exclusive``: only under a free name, never over anything."""
    with open_output(where, binary=True, exclusive=exclusive) as out:
        out.write(data)  # type: ignore[arg-type]
    return out.destination


def reader_gone() -> None:
    """Standard output's reader went away (``| head``): not an error; the interpreter's
    flush at exit must not complain either."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def safe_name(text: str, limit: int = 40) -> str:
    """``text`` as a file-name part: letters, digits, ``-`` and ``_`` only (a NUL, ``/``,
    ``..`` or a control character from a server can't reach the file system)."""
    cleaned = _UNSAFE_NAME.sub("_", text)[:limit].strip("_")
    return cleaned or "unnamed"


def unused_name(stem: str, suffix: str, folder: Path | None = None) -> Path:
    """A name ``stem.suffix`` (or ``stem-N.suffix``; ``stem`` alone without a suffix) in
    ``folder`` (the working directory) that nothing has, not even a dangling link: what the
    app's exports and saves are written to, never over anything (and :func:`open_output`
    with ``exclusive`` makes sure of it when it takes the name)."""
    folder = folder or Path.cwd()
    tail = f".{suffix}" if suffix else ""
    for n in range(1, 1000):
        path = folder / (f"{stem}{tail}" if n == 1 else f"{stem}-{n}{tail}")
        if not os.path.lexists(path):
            return path
    raise FileExistsError(f"{stem}{tail}: too many files with this name")
