"""Finding conversation folders on disk: standard library only.

``ohtui`` asks whether ~/.openhands/conversations holds conversations before its first
frame (to offer them beside the demo); answering must not import the server or the models.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

EVENT_FILE = re.compile(r"^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$")


#: what the SDK writes into a conversation folder before its first event
STATE_FILES = ("base_state.json", "meta.json")


def conversation_folders(path: Path) -> list[Path]:
    """``path`` itself when it is one conversation folder, else its conversation subfolders."""
    if is_conversation_folder(path):
        return [path]
    return (
        sorted(p for p in path.iterdir() if p.is_dir() and is_conversation_folder(p))
        if path.is_dir()
        else []
    )


def is_conversation_folder(folder: Path) -> bool:
    """Event files, or (a conversation started with no message yet) the SDK's state files
    beside an empty or missing ``events/``: listed too, its events picked up as they come."""
    if events_dir(folder) is not None:
        return True
    return any((folder / name).is_file() for name in STATE_FILES)


def events_dir(folder: Path) -> Path | None:
    events = folder / "events"
    for candidate in (events, folder):
        if candidate.is_dir() and any(EVENT_FILE.match(name) for name in dir_names(candidate)):
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
