"""A folder of a workspace and its files as a file browser needs them: a folder's subfolders
and the files that can be known to be there, and a file's bytes to show.

Why a folder takes two calls: an agent server lists folders only (``/api/file/search_subdirs``,
paged, hidden ones on request) and has no file listing at all (1.58.2; its
``/api/conversations/{id}/workspace/…`` serves a file or an ``index.html``, never a listing).
The files of a folder that can be known without guessing are those git lists as changed
there (``/api/git/changes``, against the base, relative to the folder): added and updated
ones, not deleted ones (they are gone). Both are asked at once. A server without one of the
routes (an older agent server in a sandbox) still gives what the other says, with a note
saying what is missing; a folder that is not there fails the listing.

A folder named relatively (a sandbox whose workspace is ``"."``, app server 1.11.0's) cannot
be listed at all: ``search_subdirs`` takes absolute paths only. Git still reads it, so its
files are those git lists, and its folders those holding one of them; the listing says so
once, in its note. A file there is read through the conversation's workspace route, and
where a server has none, shown as git's text of it (:func:`view_file`, not exact).
"""

from __future__ import annotations

import asyncio
import posixpath

from tui.models.workspace import (
    FileRead,
    FolderListing,
    GitChange,
    GitChangeStatus,
    SubdirectoryEntry,
    WorkspaceFile,
)

from .errors import HTTPStatusError, TooLarge, Unsupported
from .workspace import Workspace

#: Subfolders read for one folder (pages of 100): past it the listing says there are more.
MAX_FOLDERS = 2000
PAGE = 100
#: What a listing of a relatively named folder says (``{root}``: the working directory).
RELATIVE = (
    "This server names its workspace '{root}', a relative path: its folders cannot be "
    "listed; the files git knows are shown."
)
#: What a file read as git's text says of it.
GIT_TEXT = (
    "git's text of the file, not its bytes (this server serves no file by a relative "
    "path): line ends shown as \\n, no final newline"
)
GIT_NO_TEXT = "git gives no text for it: it is empty, binary or a folder"


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


async def _changed(workspace: Workspace, where: str) -> tuple[list[GitChange], str | None]:
    """The files git lists under ``where`` that are there (not deleted), or why none."""
    try:
        changes = await workspace.changes(where)
    except Unsupported as exc:
        return [], f"{exc}: no file of this folder can be listed"
    except HTTPStatusError as exc:
        said = exc.detail if isinstance(exc.detail, str) and exc.detail else str(exc)
        return [], f"git could not list the changed files: {said}"
    return [change for change in changes if change.status is not GitChangeStatus.DELETED], None


def _join(where: str, name: str) -> str:
    joined = posixpath.join(where, name)
    return joined if posixpath.isabs(where) else posixpath.normpath(joined)


def _files(changes: list[GitChange], where: str) -> list[WorkspaceFile]:
    files = [
        WorkspaceFile(change.path, _join(where, change.path), change.status)
        for change in changes
        if "/" not in change.path
    ]
    return sorted(files, key=lambda f: (f.name.lower(), f.name))


def _holding(changes: list[GitChange], where: str) -> list[SubdirectoryEntry]:
    """The subfolders holding a file git lists (the only ones known where none is listed)."""
    names = {change.path.split("/", 1)[0] for change in changes if "/" in change.path}
    return [
        SubdirectoryEntry(name=name, path=_join(where, name))
        for name in sorted(names, key=lambda name: (name.lower(), name))
    ]


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
    if not posixpath.isabs(where):
        changes, note = await _changed(workspace, where)
        notes = [RELATIVE.format(root=root)] + ([note] if note else [])
        return FolderListing(
            path=where,
            root=root,
            folders=tuple(_holding(changes, where)),
            files=tuple(_files(changes, where)),
            notes=tuple(notes),
            relative=True,
        )
    changed = asyncio.ensure_future(_changed(workspace, where))
    notes = []
    try:
        folders, more = await _folders(workspace, where, include_hidden, max_folders)
    except Unsupported as exc:
        folders, more = [], False
        notes.append(f"{exc}: only the files git lists can be shown")
    except BaseException:
        changed.cancel()
        raise
    changes, note = await changed
    if note:
        notes.append(note)
    return FolderListing(
        path=where,
        root=root,
        folders=tuple(folders),
        files=tuple(_files(changes, where)),
        more_folders=more,
        notes=tuple(notes),
    )


async def view_file(workspace: Workspace, path: str, *, max_bytes: int) -> FileRead:
    """The file ``path``'s bytes, at most ``max_bytes`` of them; where the server has no way
    to a file named relatively, git's text of it instead (``/git/diff``, said not exact)."""
    try:
        return FileRead(await workspace.read_file(path, max_bytes=max_bytes))
    except Unsupported as exc:
        where = await workspace.resolve(path)
        if posixpath.isabs(where):
            raise
        missing = exc
    try:
        diff = await workspace.diff(where)
    except Unsupported:
        raise missing from None
    if diff.modified is None:
        raise Unsupported(f"{missing}; git cannot give it either: it is in no git repository")
    data = diff.modified.encode("utf-8", "surrogateescape")
    if len(data) > max_bytes:
        raise TooLarge("git's text of the file is too large", limit=max_bytes, size=len(data))
    return FileRead(data, exact=False, note=GIT_TEXT if data else GIT_NO_TEXT)


__all__ = ["GIT_NO_TEXT", "GIT_TEXT", "MAX_FOLDERS", "RELATIVE", "folder_listing", "view_file"]
