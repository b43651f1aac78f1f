"""A folder of a workspace as a file browser needs it: its subfolders and the files that can
be known to be there.

Why it takes two calls: an agent server lists folders only (``/api/file/search_subdirs``,
paged, hidden ones on request) and has no file listing at all (1.58.2; its
``/api/conversations/{id}/workspace/…`` serves a file or an ``index.html``, never a listing).
The files of a folder that can be known without guessing are those git lists as changed
there (``/api/git/changes``, against the base, relative to the folder): added and updated
ones, not deleted ones (they are gone). Both are asked at once. A server without one of the
routes (an older agent server in a sandbox) still gives what the other says, with a note
saying what is missing; a folder that is not there fails the listing.
"""

from __future__ import annotations

import asyncio
import posixpath

from tui.models.workspace import (
    FolderListing,
    GitChangeStatus,
    SubdirectoryEntry,
    WorkspaceFile,
)

from .errors import HTTPStatusError, Unsupported
from .workspace import Workspace

#: Subfolders read for one folder (pages of 100): past it the listing says there are more.
MAX_FOLDERS = 2000
PAGE = 100


async def _folders(
    workspace: Workspace, where: str, include_hidden: bool, limit: int
) -> tuple[list[SubdirectoryEntry], bool]:
    items: list[SubdirectoryEntry] = []
    page_id: str | None = None
    while True:
        got = await workspace.subdirectories(
            where, page_id=page_id, limit=PAGE, include_hidden=include_hidden
        )
        items += got.items
        page_id = got.next_page_id
        if not page_id or len(items) >= limit:
            return items[:limit], bool(page_id) or len(items) > limit


async def _files(workspace: Workspace, where: str) -> tuple[list[WorkspaceFile], str | None]:
    try:
        changes = await workspace.changes(where)
    except Unsupported as exc:
        return [], f"{exc}: no file of this folder can be listed"
    except HTTPStatusError as exc:
        said = exc.detail if isinstance(exc.detail, str) and exc.detail else str(exc)
        return [], f"git could not list the changed files: {said}"
    files = [
        WorkspaceFile(change.path, posixpath.join(where, change.path), change.status)
        for change in changes
        if "/" not in change.path and change.status is not GitChangeStatus.DELETED
    ]
    return sorted(files, key=lambda f: (f.name.lower(), f.name)), None


async def folder_listing(
    workspace: Workspace,
    path: str | None = None,
    *,
    include_hidden: bool = False,
    max_folders: int = MAX_FOLDERS,
) -> FolderListing:
    """The folder ``path`` (the working directory when None; relative: inside it)."""
    where = await workspace.resolve(path)
    root = await workspace.root() if workspace.conversation is not None else where
    files = asyncio.ensure_future(_files(workspace, where))
    notes: list[str] = []
    try:
        folders, more = await _folders(workspace, where, include_hidden, max_folders)
    except Unsupported as exc:
        folders, more = [], False
        notes.append(f"{exc}: only the files git lists can be shown")
    except BaseException:
        files.cancel()
        raise
    found, note = await files
    if note:
        notes.append(note)
    return FolderListing(
        path=where,
        root=root,
        folders=tuple(folders),
        files=tuple(found),
        more_folders=more,
        notes=tuple(notes),
    )


__all__ = ["MAX_FOLDERS", "folder_listing"]
