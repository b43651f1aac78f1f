"""What an agent server says of a conversation's workspace: git changes, whole-file diffs,
commits, directory listings, and the patch ohtui writes from them.

Shapes as ``openhands-agent-server`` 1.58.2 answers them (checked against the running
server, not only its OpenAPI): closed like the SDK's own models, since the server declares
them so and drift should be noticed. Two things the server does that a reader must know:

- a rename is listed as DELETED (old path) plus ADDED (new path); MOVED is declared but
  never sent, and a path that is no git repository answers ``[]``, not an error;
- a diff is the two whole texts, each normalised by the server (``"\\n".join(splitlines())``):
  the final newline and ``\\r\\n`` line ends are gone, and a file that is not UTF-8 (a binary)
  comes back as ``""`` on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import Field

from .base import ClosedModel


class GitChangeStatus(StrEnum):
    ADDED = "ADDED"
    UPDATED = "UPDATED"
    DELETED = "DELETED"
    MOVED = "MOVED"


class GitChange(ClosedModel):
    """One changed file; ``path`` is relative to the directory the listing was asked for."""

    status: GitChangeStatus
    path: str = Field(min_length=1)


class GitDiff(ClosedModel):
    """One file's text at the base (``original``) and now (``modified``); both None when
    the path is in no git repository."""

    original: str | None
    modified: str | None


class GitCommit(ClosedModel):
    sha: str
    short_sha: str
    subject: str
    author: str
    timestamp: str  # ISO 8601 author date with its UTC offset (git's %aI)


class GitCommitsPage(ClosedModel):
    """The newest commits reachable from HEAD, newest first; ``has_more``: older ones exist."""

    commits: list[GitCommit]
    has_more: bool


class FileBrowserEntry(ClosedModel):
    label: str
    path: str


class HomeResponse(ClosedModel):
    """``GET /api/file/home``: the server user's home, its top-level folders, the roots."""

    home: str
    favorites: list[FileBrowserEntry] = Field(default_factory=list)
    locations: list[FileBrowserEntry] = Field(default_factory=list)


class SubdirectoryEntry(ClosedModel):
    name: str
    path: str


class SubdirectoryPage(ClosedModel):
    """Immediate subdirectories, by name; ``next_page_id`` is the name the next page starts at."""

    items: list[SubdirectoryEntry]
    next_page_id: str | None = None


@dataclass(frozen=True)
class WorkspaceFile:
    """A file in a folder listing: one git lists as changed (``status``), or one the user
    named (``status`` None). ``path`` is absolute on the server, or relative to the working
    directory where the server names that relatively (``FolderListing.relative``)."""

    name: str
    path: str
    status: GitChangeStatus | None = None


@dataclass(frozen=True)
class FolderListing:
    """One folder of a workspace, as much as the server can list of it.

    An agent server lists folders only (``search_subdirs``): the files are those git lists
    as changed in this folder (against the base), never all of them. ``root`` is the
    conversation's working directory (the folder listed when none is named); ``more_folders``:
    the folder holds more subfolders than were read; ``notes`` say what could not be listed
    and why (a server without a folder listing, git failing), in words.

    ``relative``: the folder is named by a path relative to the server's own working
    directory (a sandbox whose workspace is ``"."``): no server lists such a folder, so its
    folders are only those holding a file git lists, and ``path`` and the files' paths are
    relative (``"."`` for the working directory itself)."""

    path: str
    root: str
    folders: tuple[SubdirectoryEntry, ...] = ()
    files: tuple[WorkspaceFile, ...] = ()
    more_folders: bool = False
    notes: tuple[str, ...] = ()
    relative: bool = False


@dataclass(frozen=True)
class FileRead:
    """A file's bytes as a screen shows them. ``exact`` False: the server gave no way to its
    bytes, only git's text of it (``/git/diff``'s ``modified``: line ends made ``\n``, no
    final newline, nothing for a binary); ``note`` says so in words."""

    data: bytes
    exact: bool = True
    note: str | None = None


class FileUploadResult(ClosedModel):
    success: bool = True
    file_size: int


@dataclass(frozen=True)
class WorkspacePatch:
    """The workspace's changes as a patch ``git apply`` takes, and where it came from.

    ``data`` is the patch's bytes, exact (a file's text need not be UTF-8): written as
    they are, never re-encoded; ``text`` decodes them for a screen.

    ``source`` is ``"git-delta"`` (the server's own patch, exact, binaries included) or
    ``"computed"`` (built here from the changes and diffs); ``skipped`` names the files a
    computed patch could not hold (binary, too large for the server's diff); ``repo_root``
    is where to apply it (the repository's top folder); ``base`` names the commit or ref it
    applies on, when the server said; ``notes`` are caveats worth telling the user."""

    data: bytes
    source: str
    files: int
    repo_root: str | None = None
    branch: str | None = None
    head_commit: str | None = None
    base: str | None = None
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


__all__ = [
    "FileBrowserEntry",
    "FileRead",
    "FileUploadResult",
    "FolderListing",
    "GitChange",
    "GitChangeStatus",
    "GitCommit",
    "GitCommitsPage",
    "GitDiff",
    "HomeResponse",
    "SubdirectoryEntry",
    "SubdirectoryPage",
    "WorkspaceFile",
    "WorkspacePatch",
]
