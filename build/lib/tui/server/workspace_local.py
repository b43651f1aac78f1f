"""A local conversation's workspace: the folder its stored state names, read with git in
place, for the folder server (``ohtui PATH``).

Why in place: the OpenHands CLI works in the user's own checkout, so what the agent changed
is what git says there now. The workspace routes (``routes_workspace.py``) serve it as they
serve the demo's repository, with paths as they are on this machine; it is only read: the
patch (``git-delta``) is made through a scratch index and a scratch object folder outside
the repository, so nothing in it is written (the folder server refuses every write).

Where it cannot be read, every route of the conversation says why in words the Changes
view shows: the folder is not on this machine (the run was elsewhere, or the folder moved
or went), it is in no git repository, or git is not installed here.
"""

from __future__ import annotations

import posixpath
import threading
from pathlib import Path
from typing import Any

from .workspace_git import NotARepository, git_available, top_level

#: HTTP status of each reason a local workspace cannot be read.
MISSING_STATUS = 409
NOT_GIT_STATUS = 400


def stored_working_dir(*records: Any) -> str | None:
    """``workspace.working_dir`` of the first record (``base_state.json``, ``meta.json``)
    that names one as an absolute path."""
    for record in records:
        workspace = record.get("workspace") if isinstance(record, dict) else None
        found = workspace.get("working_dir") if isinstance(workspace, dict) else None
        if isinstance(found, str) and found.startswith("/") and "\x00" not in found:
            return posixpath.normpath(found)[:4096]
    return None


class LocalWorkspace:
    """The folder ``working_dir`` on this machine, named by its own path (``virtual`` and
    ``real`` agree: the routes see the paths the stored state holds)."""

    def __init__(self, working_dir: str) -> None:
        self.virtual_root = working_dir.rstrip("/") or "/"
        self._lock = threading.Lock()
        self._readable = False  # once git read it, it is not asked again

    @property
    def root(self) -> Path:
        return Path(self.virtual_root)

    @property
    def has_git(self) -> bool:
        return self._readable

    def problem(self) -> tuple[int, str] | None:
        """Why the workspace cannot be read here (a status and a sentence), or None."""
        with self._lock:
            if self._readable:
                return None
            where = self.virtual_root
            if not self.root.is_dir():
                return MISSING_STATUS, (
                    f"The workspace {where} is not on this machine (the run was elsewhere, "
                    "or the folder was moved or removed): there are no changes to read."
                )
            if not git_available():
                return NOT_GIT_STATUS, (
                    f"git is not installed on this machine: Changes reads the workspace {where} "
                    "with git."
                )
            try:
                top_level(self.root)
            except NotARepository:
                return NOT_GIT_STATUS, (
                    f"The workspace {where} is not a git repository: Changes shows what git "
                    "says changed."
                )
            self._readable = True
            return None

    def inside(self, virtual: str) -> bool:
        """Whether an absolute path lies in the workspace (``..`` resolved)."""
        if not virtual.startswith("/"):
            return False
        normal = posixpath.normpath(virtual)
        root = self.virtual_root
        return normal == root or normal.startswith(root.rstrip("/") + "/")

    def real(self, virtual: str) -> Path | None:
        """The file a path names, or None outside the workspace, a link leading out of it
        included (nothing outside it is read)."""
        if not self.inside(virtual):
            return None
        path = Path(posixpath.normpath(virtual))
        try:
            resolved = path.resolve()
            root = self.root.resolve()
        except (OSError, RuntimeError):
            return None
        return path if resolved == root or resolved.is_relative_to(root) else None

    def virtual(self, text: str) -> str:
        return text  # paths are named as they are on this machine

    def close(self) -> None:
        """Nothing to remove: the folder is the user's."""


__all__ = ["LocalWorkspace", "stored_working_dir"]
