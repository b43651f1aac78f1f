"""One conversation folder's event files: ids and order from the names, bodies on demand.

Listing a 100,000-file folder is the expensive part, so it is done once per change of the
directory (its mtime), and only names not seen before are parsed.
"""

from __future__ import annotations

import os
import re
import time
from datetime import UTC, datetime
from pathlib import Path

from .folder_scan import events_dir, leaves, real_path

EVENT_FILES = re.compile(
    r"^(event-(\d{5,})-([0-9a-fA-F-]{8,})\.json)$", re.MULTILINE
)  # over joined names
RACY_NS = 2_000_000_000  # a directory mtime this recent may hide a file created in the same tick


def trusted_stamp(stamp: int | None) -> int | None:
    """An mtime to compare the next one with, or None when it is too recent to trust: a
    change in the same clock tick as the last look would leave it unchanged."""
    return stamp if stamp is not None and time.time_ns() - stamp > RACY_NS else None


def file_time(path: Path, *, follow: bool = True) -> str:
    """``path``'s modification time as an ISO time (UTC, naive); ``follow=False``: the
    link's own, for a link that is not followed."""
    try:
        stamp = path.stat(follow_symlinks=follow).st_mtime
    except OSError:
        stamp = 0.0
    return (
        datetime.fromtimestamp(stamp, UTC).replace(tzinfo=None).isoformat(timespec="microseconds")
    )


class FolderLog:
    """One conversation's event files: ids and order from the names, bodies on demand.
    ``root``: the folder ohtui was pointed at, as a :func:`~.folder_scan.real_path` (the
    conversation folder itself if omitted); nothing is read through a link that leaves it."""

    def __init__(self, folder: Path, root: str | None = None) -> None:
        self.folder = folder
        #: an event file read must resolve under it
        self.root = real_path(folder) if root is None else root
        self.directory = events_dir(folder, self.root) or folder
        self.files: list[str] = []  # file names in log order (paths are made only to read one)
        self.ids: list[str] = []
        #: (timestamp, kind) of each event once its body was read
        self.info: list[tuple[str, str] | None] = []
        self._listed: set[str] = set()  # every name seen in the directory, event file or not
        self._vetted = True  # events_dir just found the directory under the root
        self._index: dict[str, int] | None = None
        self._stamp: int | None = None
        self.refresh()

    @property
    def index(self) -> dict[str, int]:
        """Event id → log position, built on first use (opening a folder does not need it)."""
        if self._index is None:
            index: dict[str, int] = {}
            for seq, event_id in enumerate(self.ids):
                index.setdefault(event_id, seq)
            self._index = index
        return self._index

    def refresh(self) -> int:
        """Pick up files written since the last look; returns how many are new.

        Cheap when nothing was added: a new file changes the directory's mtime, so an unchanged
        one means no listing (unless the mtime is too recent to trust: a file created in the
        same clock tick as the last listing leaves it unchanged). After a change only names not
        seen before are parsed, in one regular-expression pass over the joined names, so a
        100,000-file folder costs one listing per change, not a parse of every name.

        Log order is the index in the file name. A file that appears later with an index below
        the newest one (never done by the SDK, which numbers under a lock) goes at the end, so
        positions already served never move."""
        if self.directory == self.folder and not self.files:
            # no event yet: the SDK makes events/ with the first one
            found = events_dir(self.folder, self.root)
            if found is not None and found != self.directory:
                self.directory, self._stamp, self._vetted = found, None, True
        try:
            stamp = os.stat(self.directory).st_mtime_ns
            if stamp == self._stamp:
                return 0
            if not self._vetted and leaves(self.directory, self.root):
                return 0  # made a link out of the root since it was found: never listed
            self._vetted = False
            names = os.listdir(self.directory)
        except OSError:
            return 0
        self._stamp = trusted_stamp(stamp)
        unseen = [name for name in names if name not in self._listed] if self._listed else names
        if not unseen:
            return 0
        self._listed.update(unseen)
        unseen.sort()  # for indexes of one width (the usual case) name order is index order
        found = EVENT_FILES.findall("\n".join(unseen))  # (name, index digits, event id)
        if not found:
            return 0
        files, digits, ids = zip(*found)
        if min(map(len, digits)) != max(map(len, digits)):  # 99999 → 100000: order by number
            files, digits, ids = zip(*sorted(found, key=lambda f: int(f[1])))
        start = len(self.files)
        self.files.extend(files)
        self.ids.extend(ids)
        self.info.extend([None] * len(files))
        if self._index is not None:
            for offset, event_id in enumerate(ids):
                self._index.setdefault(event_id, start + offset)
        return len(files)

    def path(self, seq: int) -> Path:
        return self.directory / self.files[seq]

    def file_name(self, seq: int) -> str:
        """The file's path as a string: what reading it needs (a ``Path`` costs ~1 µs more a
        file, a sixth of a filtered count over 50,000 files)."""
        return os.path.join(self.directory, self.files[seq])

    def __len__(self) -> int:
        return len(self.files)
