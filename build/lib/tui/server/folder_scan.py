"""Finding conversation folders on disk: standard library only.

``ohtui`` asks whether ~/.openhands/conversations holds conversations before its first
frame (to offer them beside the demo); answering must not import the server or the models.

Nothing is read through a link that leaves the folder ohtui was pointed at (the root): a
conversation folder, its ``events/`` or an event file may be a link into the home folder
(``~/.netrc``, ``~/.kube``). :func:`leaves` says so from the link's resolved path; such a
folder is listed as one (it is shown as "a link out of the folder, not read") but never
looked into.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

EVENT_FILE = re.compile(r"^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$")


#: what the SDK writes into a conversation folder before its first event
STATE_FILES = ("base_state.json", "meta.json")


def real_path(path: str | Path) -> str:
    """``path`` with every link resolved: what :func:`leaves` compares with."""
    return os.path.normcase(os.path.realpath(path))


def leaves(path: str | Path, root: str) -> bool:
    """Does ``path``, every link in it followed, end outside ``root`` (a :func:`real_path`)?"""
    real = real_path(path)
    return real != root and not real.startswith(root.rstrip(os.sep) + os.sep)


def links_out(path: str | Path, root: str) -> bool:
    """Is ``path``, whose parent is under ``root``, a link out of it? One ``lstat`` when it
    is not a link (a folder of a thousand conversations is not resolved path by path)."""
    return os.path.islink(path) and leaves(path, root)


def conversation_folders(path: Path) -> list[Path]:
    """``path`` itself when it is one conversation folder, else its conversation subfolders
    and its links to folders outside it (shown as such, never looked into)."""
    root = real_path(path)
    if is_conversation_folder(path, root):
        return [path]
    return (
        sorted(
            p
            for p in path.iterdir()
            if p.is_dir() and (links_out(p, root) or is_conversation_folder(p, root))
        )
        if path.is_dir()
        else []
    )


def is_conversation_folder(folder: Path, root: str | None = None) -> bool:
    """Event files, or (a conversation started with no message yet) the SDK's state files
    beside an empty or missing ``events/``: listed too, its events picked up as they come.
    ``root``: an ``events/`` that leaves it is not looked into (``folder`` is under it: the
    caller made sure)."""
    if events_dir(folder, root) is not None:
        return True
    return any((folder / name).is_file() for name in STATE_FILES)


def events_dir(folder: Path, root: str | None = None) -> Path | None:
    """Where ``folder``'s event files are: ``events/``, else the folder itself (CLI
    trajectories). An ``events/`` that links out of ``root`` is never listed (``folder`` is
    under it: the caller made sure)."""
    events = folder / "events"
    for candidate in (events, folder):
        if (
            candidate.is_dir()
            and (root is None or candidate is folder or not links_out(candidate, root))
            and any(EVENT_FILE.match(name) for name in dir_names(candidate))
        ):
            return candidate
    return None


def dir_names(directory: Path) -> Iterator[str]:
    """Names in a directory, read as they are asked for (finding one event file in a
    100,000-file folder does not list it all)."""
    return (entry.name for entry in dir_entries(directory))


def dir_entries(directory: Path) -> Iterator[os.DirEntry]:
    try:
        with os.scandir(directory) as entries:
            yield from entries
    except OSError:
        return
