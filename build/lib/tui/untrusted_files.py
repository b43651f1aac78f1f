"""Reading a file ohtui did not write: only a regular one, never blocking, never unbounded.

Any path a user names (the config file, a theme, agent settings, a key file) or a folder
holds may be a FIFO (opening it waits for a writer, forever), a device or a link to one
(``/dev/zero`` never ends), a directory, or a file far larger than what it claims to be.
:func:`read_bounded` refuses non-regular files from ``stat`` before any open, opens without
blocking and checks what was opened again (the path may have been swapped in between), and
reads at most ``limit`` bytes. What is wrong is said in words that follow the file's name
(``PATH is a FIFO, not a regular file: never read``). Standard library only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}
_CHUNK = 1 << 20


class FileRefused(ValueError):
    """Why a file was not read, in words that follow its name: ``does not exist``,
    ``is a FIFO, not a regular file: never read``… ``missing`` tells a file that is not
    there at all (which some callers allow) from one that is there but unusable."""

    def __init__(self, reason: str, *, missing: bool = False, size: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing
        #: the file's size in bytes, when it is known (a file over the limit)
        self.size = size


class FileData(NamedTuple):
    data: bytes
    #: the file's mode (``stat``), for warnings about who else may read it
    mode: int


def _not_regular(mode: int) -> FileRefused:
    kind = _KINDS.get(stat.S_IFMT(mode), "something other than a file")
    return FileRefused(f"is {kind}, not a regular file: never read")


def _over(limit: int, size: int | None = None) -> FileRefused:
    said = f"{size:,} bytes, " if size is not None else ""
    return FileRefused(f"is {said}over the {limit:,}-byte limit: not read", size=size)


def _os_error(exc: OSError) -> FileRefused:
    if isinstance(exc, FileNotFoundError):
        return FileRefused("does not exist", missing=True)
    return FileRefused(f"cannot be read ({exc.strerror or exc})")


def read_bounded(path: str | Path, limit: int, *, follow_links: bool = True) -> FileData:
    """The bytes of the regular file at ``path``, at most ``limit`` of them;
    :class:`FileRefused` for anything else. A link to one is followed, unless
    ``follow_links`` is False (a folder's files, whose links the caller has checked): then a
    link is refused, and so is a file swapped for another between the look and the open."""
    look = os.stat if follow_links else os.lstat
    try:
        before = look(path)
    except OSError as exc:
        raise _os_error(exc) from None
    if stat.S_ISLNK(before.st_mode):
        raise FileRefused("is a link: not followed")
    if not stat.S_ISREG(before.st_mode):
        raise _not_regular(before.st_mode)
    if before.st_size > limit:
        raise _over(limit, before.st_size)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise _os_error(exc) from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise _not_regular(opened.st_mode)
        if not follow_links and (opened.st_dev, opened.st_ino) != (
            before.st_dev,
            before.st_ino,
        ):
            raise FileRefused("was replaced while being opened: not read")
        chunks, size = [], 0
        while size <= limit:  # a file that grows while read stops at the bound too
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise _os_error(exc) from None
    finally:
        os.close(fd)
    if size > limit:
        raise _over(limit)
    return FileData(b"".join(chunks), opened.st_mode)


def read_text(path: str | Path, limit: int) -> tuple[str, int]:
    """``(text, mode)`` of a small UTF-8 file the user named, as :func:`read_bounded`."""
    data, mode = read_bounded(path, limit)
    try:
        return data.decode("utf-8"), mode
    except UnicodeDecodeError as exc:
        raise FileRefused(f"is not UTF-8 text (a bad byte at {exc.start:,})") from None
