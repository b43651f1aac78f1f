"""The workspace's changes as one patch ``git apply`` takes: the server's own where it makes
one (``/file/archive?format=git-delta``), else computed here from its changes and diffs.

Why two ways: the server's patch is exact (binaries, modes, line ends), but older servers,
and any workspace named by a relative path (the agent server refuses to archive one), have
none; their changes and whole-file diffs still make a patch of every text file. What such a
patch cannot know is said in its ``notes``: the server's diffs drop each text's final
newline (taken to be there) and ``\\r\\n`` line ends, and give nothing for a binary file
(left out and named) or a file over 1 MB (left out and named).
"""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from tui.models.patch import FilePatch, Side, file_patch
from tui.models.workspace import GitChange, GitChangeStatus, WorkspacePatch

from .errors import BadRequest, OpenHandsError, TooLarge, Unsupported
from .workspace import Workspace

#: Diffs asked for at once while computing a patch.
CONCURRENCY = 8
#: Bytes read of an added file whose text the server left empty, to tell empty from binary.
PROBE_BYTES = 1024 * 1024


class NotARepository(OpenHandsError):
    """The folder holds no git repository: it has no changes to make a patch of."""


async def workspace_patch(
    workspace: Workspace, path: str | None = None, *, ref: str | None = None
) -> WorkspacePatch:
    """The changes of the repository at ``path`` (the working directory when None) against
    ``ref`` (None: the server's base), as a patch: the server's where it has the route and
    can archive the path, computed otherwise."""
    try:
        return await workspace.archive_patch(path, base_ref=ref)
    except Unsupported:
        pass
    except BadRequest as exc:
        words = str(exc.detail or "").lower()
        if "not a git repository" in words:
            where = await workspace.resolve(path)
            raise NotARepository(
                f"{where} is not a git repository (on {workspace.base_url})",
                status=400,
                url=exc.url,
            ) from None
        if "must be absolute" not in words:
            raise
    return await computed_patch(workspace, path, ref=ref)


async def computed_patch(
    workspace: Workspace, path: str | None = None, *, ref: str | None = None
) -> WorkspacePatch:
    """The patch built from ``/git/changes`` and one ``/git/diff`` per file (see the module
    doc for what it cannot hold)."""
    where = await workspace.resolve(path)
    changes = await workspace.changes(path, ref=ref)
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(change: GitChange) -> _Part:
        async with gate:
            # as the workspace takes paths: relative ones are inside its working directory
            return await _file(workspace, posixpath.join(path or "", change.path), change, ref)

    parts = await asyncio.gather(*(one(change) for change in changes))
    written = [part.patch for part in parts if part.patch is not None]
    unsure = [part.path for part in parts if part.unsure]
    notes = [_NOTE]
    if unsure:
        notes.append(
            f"the server gave no text for {_some(unsure)} (empty, or binary): written as empty"
        )
    notes += sorted({patch.note for patch in written if patch.note})
    return WorkspacePatch(
        data="".join(patch.text for patch in written).encode("utf-8", "surrogateescape"),
        source="computed",
        files=len(written),
        repo_root=where,
        base=ref,
        skipped=tuple(part.skipped for part in parts if part.skipped),
        notes=tuple(notes),
    )


_NOTE = (
    "computed from the server's whole-file diffs: every text is taken to end in a newline "
    "and \\r\\n line ends are written as \\n"
)


@dataclass(frozen=True)
class _Part:
    """One file's outcome: its patch, or why it was left out; ``unsure``: the server gave
    no text and the file could not be read to tell empty from binary."""

    path: str
    patch: FilePatch | None = None
    skipped: str = ""
    unsure: bool = False


def _some(paths: Sequence[str], shown: int = 5) -> str:
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more


async def _file(workspace: Workspace, full: str, change: GitChange, ref: str | None) -> _Part:
    name = change.path
    try:
        diff = await workspace.diff(full, ref=ref)
    except BadRequest as exc:
        return _Part(name, skipped=f"{name}: {exc.detail or exc}")
    if diff.original is None and diff.modified is None:
        return _Part(name, skipped=f"{name}: not in a git repository")
    original, modified = diff.original or "", diff.modified or ""
    added = change.status is GitChangeStatus.ADDED
    deleted = change.status is GitChangeStatus.DELETED
    unsure = deleted and not original
    if not deleted and not modified:  # an empty file, or one the server could not read
        kind = await _empty_or_binary(workspace, full)
        if kind == "binary":
            return _Part(name, skipped=f"{name}: binary (the server gives no binary diffs)")
        unsure = kind == "unknown"
    if "\x00" in original[:8000] or "\x00" in modified[:8000]:  # git's own test of binary
        return _Part(name, skipped=f"{name}: binary (the server gives no binary diffs)")
    old = None if added else Side.of(original, assume_newline=True)
    new = None if deleted else Side.of(modified, assume_newline=True)
    patch = file_patch(name, old, new)
    if patch is None:
        return _Part(
            name,
            skipped=f"{name}: changed only in its line ends or final newline, "
            "which the server's diff does not show",
        )
    return _Part(name, patch, unsure=unsure)


async def _empty_or_binary(workspace: Workspace, path: str) -> str:
    """ "empty", "binary" or "unknown" for a file the server's diff gave no text of."""
    try:
        data = await workspace.read_file(path, max_bytes=PROBE_BYTES)
    except TooLarge:
        return "binary"  # a text over the probe would have had a text from the diff
    except OpenHandsError:
        return "unknown"
    if not data:
        return "empty"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "binary"
    return "unknown"


def patch_summary(
    patch: WorkspacePatch, *, written_to: str | None, apply_as: str, ref: str | None
) -> list[str]:
    """What was written (``written_to``: where, None for standard output), against which
    base, where to apply it (``git apply <apply_as>``), what it could not hold, and whether
    it holds a secret's shape (written exactly all the same: a patch must apply). The one
    report of a patch: ``ohtui diff`` and the app's Changes say the same."""
    lines: list[str] = []
    where = f" to {written_to}" if written_to is not None else ""
    base = f"against {patch.base}" if patch.base else "against the server's base"
    if patch.base is None and ref is None:
        base += " (the branch's origin or merge base; without an origin, the empty tree)"
    how = "the server's patch" if patch.source == "git-delta" else "computed by ohtui"
    count = f"{patch.files} file(s)" if patch.files else "no changes"
    lines.append(f"wrote {count}{where}: {how}, {base}")
    if patch.branch or patch.head_commit:
        at = " at ".join(part for part in (patch.branch, (patch.head_commit or "")[:12]) if part)
        lines.append(f"  workspace: {at}")
    if patch.files and patch.repo_root:
        root = patch.repo_root
        if not root.startswith("/"):
            root += " (relative to the agent server's own folder)"
        lines.append(f"  apply it in a checkout of {root}: git apply {apply_as}")
    for note in patch.notes:
        lines.append(f"  note: {note}")
    if patch.skipped:
        lines.append(f"  left out ({len(patch.skipped)}):")
        lines.extend(f"    {why}" for why in patch.skipped)
    if holds_secret_shape(patch):
        lines.append(
            "  note: it holds text shaped like a secret (a key or token); it is written "
            "exactly, unmasked, so that it applies"
        )
    return lines


def holds_secret_shape(patch: WorkspacePatch) -> bool:
    """The patch holds text the secrets policy would mask."""
    from tui.models.redact import redact_text

    text = patch.text
    return redact_text(text) != text


__all__ = [
    "NotARepository",
    "computed_patch",
    "holds_secret_shape",
    "patch_summary",
    "workspace_patch",
]
