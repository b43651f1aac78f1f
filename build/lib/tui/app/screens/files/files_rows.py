"""The rows of a workspace folder as the Files screen lists them: ``../``, the subfolders,
then the files, each with what git says of it, and the columns they sit in.

Why apart from the screen: what a folder holds comes from three places — the server's
folder listing, the files git lists as changed there, the files the user named (``o``) —
and where the workspace is named relatively (no folder of it can be listed) a named file's
folder is known only from the file's path, so it is added here as the file is.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from rich.text import Text

from tui.app.screens.files.files_actions import inside, parent_of
from tui.app.tables.table_columns import ColumnSpec, fit_columns
from tui.app.themes import theme_style
from tui.models.workspace import FolderListing
from tui.text import clean

UP = "up"
GIT_WORDS = {"ADDED": "added", "UPDATED": "changed", "MOVED": "moved", None: "named"}
GIT_STYLES = {"ADDED": "$diff-added", "UPDATED": "$warning", "MOVED": "$primary"}

Row = tuple[str, dict[str, Text]]


def listing_columns(width: int) -> list:
    return fit_columns(
        width,
        [ColumnSpec("Name", "name", 12, flex=True), ColumnSpec("Git", "git", 7, drop=1)],
        floor=10,
        roomy=30,
    )


@dataclass(frozen=True)
class FolderRows:
    """A folder's rows (keys ``up``, ``d:<path>``, ``f:<path>``) and how many of each."""

    rows: list[Row]
    folders: int
    files: int


def _named_folders(listing: FolderListing, named: Iterable[str]) -> dict[str, str]:
    """Subfolders of a relatively named folder holding a file the user named (path → name)."""
    found: dict[str, str] = {}
    here = listing.path
    for path in named:
        if posixpath.isabs(path) or not inside(path, here) or parent_of(path) == here:
            continue
        rest = path if here == "." else path[len(here) + 1 :]
        name = rest.split("/", 1)[0]
        found[posixpath.normpath(posixpath.join(here, name))] = name
    return found


def folder_rows(listing: FolderListing, named: Iterable[str], *, up: bool) -> FolderRows:
    """The rows of ``listing`` with the files in ``named`` that are in it (``up``: a ``../``
    row first)."""
    named = list(named)
    folders = {entry.path: entry.name for entry in listing.folders}
    if listing.relative:
        for path, name in _named_folders(listing, named).items():
            folders.setdefault(path, name)
    files = {entry.path: entry.status for entry in listing.files}
    for path in named:
        if parent_of(path) == listing.path:
            files.setdefault(path, None)
    rows: list[Row] = [(UP, {"name": Text("../"), "git": Text("")})] if up else []
    for path, name in sorted(folders.items(), key=lambda f: (f[1].lower(), f[1])):
        rows.append((f"d:{path}", {"name": Text(clean(name) + "/", style="bold"), "git": Text("")}))
    for path, status in sorted(files.items(), key=lambda f: (f[0].lower(), f[0])):
        state = str(status) if status is not None else None
        style = GIT_STYLES.get(state or "")
        git = Text(GIT_WORDS.get(state, ""), style=theme_style(style) if style else "")
        rows.append((f"f:{path}", {"name": Text(clean(posixpath.basename(path))), "git": git}))
    return FolderRows(rows, len(folders), len(files))


__all__ = ["GIT_STYLES", "GIT_WORDS", "UP", "FolderRows", "folder_rows", "listing_columns"]
