"""Git over a real folder, answering as ``openhands-agent-server`` 1.58.2's git routes do.

What is copied (checked against the running server): changes are ``git diff --name-status``
against the base plus the untracked files, a rename split into DELETED + ADDED, sorted by
path, relative to the folder asked about, and ``[]`` for a folder in no repository; the
base is the ref asked for (``HEAD`` on a repository without commits: the empty tree) or,
without one, HEAD (a repository with no origin, like the demo's; the empty tree before
the first commit). A diff is the two whole texts, each ``"\\n".join(splitlines())`` (the
final newline gone; a text that is not UTF-8 read as ``""``); over 1 MB it is refused.
The patch (``git-delta``) is ``git diff --binary`` of the whole working tree, untracked
files included, against ``base_ref`` or, without one, the empty tree (no origin to
restore from), made through a scratch index and object folder so that nothing in the
repository is written (a local conversation's workspace is the user's own checkout). Every
git call runs with the user's configuration shut out, without optional locks (no index
refresh written), and with the repository's own programs off (fsmonitor, hooks, external
diffs, text conversions): a repository is read, never made to run something.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MAX_DIFF_FILE = 1024 * 1024
LOG_FORMAT = "%H%x1f%h%x1f%an%x1f%aI%x1f%s"
#: Options of every ``git diff``: no external diff program, no text conversion.
NO_PROGRAMS = ("--no-ext-diff", "--no-textconv")
#: Settings over the repository's own configuration: run none of its programs.
SAFE_CONFIG = {
    "core.fsmonitor": "false",
    "core.hooksPath": os.devnull,
}
#: Environment of every git call: no user or system configuration, no pager, no prompts, no
#: optional index writes, and :data:`SAFE_CONFIG` over the repository's configuration.
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
    "GIT_CONFIG_COUNT": str(len(SAFE_CONFIG)),
    **{f"GIT_CONFIG_KEY_{n}": key for n, key in enumerate(SAFE_CONFIG)},
    **{f"GIT_CONFIG_VALUE_{n}": value for n, value in enumerate(SAFE_CONFIG.values())},
}


class GitFailed(Exception):
    """A git command failed, or a path/ref is unusable: the server's 400, in its words."""


class NotARepository(GitFailed):
    """The folder is in no git repository (the routes answer as the real server then)."""


def git_available() -> bool:
    return shutil.which("git") is not None


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> bytes:
    """Run ``git args`` in ``cwd``; its standard output (GitFailed on failure when ``check``)."""
    if not git_available():
        raise NotARepository(f"Not a git repository: {cwd}")
    result = subprocess.run(
        ["git", "--no-pager", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV, **(env or {})},
        capture_output=True,
        check=False,
    )
    if check and result.returncode != 0:
        raise GitFailed(f"Git command failed: git {' '.join(args)}")
    return result.stdout


def top_level(folder: Path) -> Path:
    """The repository holding ``folder`` (NotARepository when none does)."""
    if not folder.is_dir():
        raise NotARepository(f"Not a git repository: {folder}")
    found = (
        subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=folder,
            env={**os.environ, **GIT_ENV},
            capture_output=True,
            check=False,
        )
        if git_available()
        else None
    )
    if found is None or found.returncode != 0:
        raise NotARepository(f"Not a git repository: {folder}")
    return Path(found.stdout.decode().strip())


def _resolve(repo: Path, ref: str) -> str | None:
    out = git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    return out.decode().strip() or None


def base_commit(repo: Path, ref: str | None) -> str:
    """The base to compare with: ``ref`` resolved, else HEAD; the empty tree where HEAD does
    not resolve yet (no commits). An unknown ``ref`` is a GitFailed, as on the server."""
    if ref is not None and ref != "HEAD":
        found = _resolve(repo, ref)
        if found is None:
            raise GitFailed(
                f"Git command failed: git --no-pager rev-parse --verify '{ref}^{{commit}}'"
            )
        return found
    return _resolve(repo, "HEAD") or EMPTY_TREE


def _name_status(output: bytes) -> list[dict[str, str]]:
    changes = []
    for line in output.decode("utf-8", "surrogateescape").splitlines():
        parts = line.split("\t")
        if len(parts) < 2:
            continue
        code = parts[0][:1]
        status = {"A": "ADDED", "D": "DELETED", "M": "UPDATED", "U": "UPDATED", "T": "UPDATED"}
        if code in ("R", "C") and len(parts) == 3:
            if code == "R":
                changes.append({"status": "DELETED", "path": parts[1]})
            changes.append({"status": "ADDED", "path": parts[2]})
        elif code in status:
            changes.append({"status": status[code], "path": parts[1]})
    return changes


def changes(folder: Path, ref: str | None) -> list[dict[str, str]]:
    """``[{status, path}]`` under ``folder`` against the base; ``[]`` outside a repository."""
    try:
        repo = top_level(folder)
    except NotARepository:
        return []
    base = base_commit(repo, ref)
    listed = _name_status(
        git(folder, "diff", *NO_PROGRAMS, "--name-status", "--no-renames", "--relative", base)
    )
    untracked = git(folder, "ls-files", "--others", "--exclude-standard")
    for path in untracked.decode("utf-8", "surrogateescape").splitlines():
        if path.strip():
            listed.append({"status": "ADDED", "path": path.strip()})
    return sorted(listed, key=lambda change: change["path"])


def _normal(data: bytes) -> str:
    try:
        return "\n".join(data.decode("utf-8").splitlines())
    except UnicodeDecodeError:
        return ""


def _blob(repo: Path, rev: str, relative: str) -> bytes | None:
    spec = f"{rev}:{relative}"
    if git(repo, "cat-file", "-t", spec, check=False).strip() != b"blob":
        return None
    size = int(git(repo, "cat-file", "-s", spec).strip() or b"0")
    if size > MAX_DIFF_FILE:
        raise GitFailed(f"File too large for git diff: {size} bytes (max: {MAX_DIFF_FILE} bytes)")
    return git(repo, "cat-file", "blob", spec)


def diff(file: Path, ref: str | None, commit: str | None = None) -> dict[str, Any]:
    """``{original, modified}`` of one file (both None outside a repository)."""
    parent = file.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    try:
        repo = top_level(parent)
    except NotARepository:
        if not file.exists():
            raise GitFailed(f"File does not exist: {file}") from None
        return {"original": None, "modified": None}
    relative = file.relative_to(repo).as_posix()
    if commit is not None:
        if _resolve(repo, commit) is None:
            raise GitFailed(
                f"Git command failed: git --no-pager rev-parse --verify '{commit}^{{commit}}'"
            )
        has_parent = _resolve(repo, f"{commit}^") is not None
        before = _blob(repo, f"{commit}^", relative) if has_parent else None
        after = _blob(repo, commit, relative)
        return {"original": _normal(before or b""), "modified": _normal(after or b"")}
    base = base_commit(repo, ref)
    if file.is_file() and file.stat().st_size > MAX_DIFF_FILE:
        size = file.stat().st_size
        raise GitFailed(f"File too large for git diff: {size} bytes (max: {MAX_DIFF_FILE} bytes)")
    before = _blob(repo, base, relative) if base != EMPTY_TREE else None
    if not file.exists():
        if before is None:
            raise GitFailed(f"File does not exist: {file}")
        return {"original": _normal(before), "modified": ""}
    return {"original": _normal(before or b""), "modified": _normal(file.read_bytes())}


def commits(folder: Path, limit: int) -> dict[str, Any]:
    """``{commits: [...], has_more}``: the newest ``limit`` commits reachable from HEAD."""
    try:
        repo = top_level(folder)
    except NotARepository:
        return {"commits": [], "has_more": False}
    if _resolve(repo, "HEAD") is None:
        return {"commits": [], "has_more": False}
    out = git(repo, "log", "--no-show-signature", f"--format={LOG_FORMAT}", f"-n{limit + 1}")
    rows = [line.split("\x1f") for line in out.decode("utf-8", "replace").splitlines() if line]
    keys = ("sha", "short_sha", "author", "timestamp", "subject")
    listed = [dict(zip(keys, row, strict=True)) for row in rows if len(row) == 5]
    return {"commits": listed[:limit], "has_more": len(listed) > limit}


def commit_changes(folder: Path, sha: str) -> list[dict[str, str]]:
    """The files one commit changed against its first parent (the empty tree for a root)."""
    try:
        repo = top_level(folder)
    except NotARepository:
        return []
    if _resolve(repo, sha) is None:
        raise GitFailed(f"Git command failed: git --no-pager rev-parse --verify '{sha}^{{commit}}'")
    parent = f"{sha}^" if _resolve(repo, f"{sha}^") is not None else EMPTY_TREE
    listed = _name_status(
        git(repo, "diff", *NO_PROGRAMS, "--name-status", "--no-renames", parent, sha)
    )
    return sorted(listed, key=lambda change: change["path"])


@dataclass(frozen=True)
class Delta:
    """A ``git-delta`` answer: the patch and the headers the real server sends with it."""

    patch: bytes
    headers: dict[str, str]


def delta(folder: Path, base_ref: str | None) -> Delta:
    """The working tree (untracked files included) against ``base_ref`` or the empty tree.

    Read-only: a scratch index holds the base and the untracked files as intended additions
    (``add -N``: no file's content is stored), and the one object git writes for them (the
    empty blob) goes to a scratch object folder; the repository's own index and objects
    are only read."""
    repo = top_level(folder)
    base = EMPTY_TREE if base_ref is None else _resolve(repo, base_ref)
    if base is None:
        raise GitFailed(f"base_ref '{base_ref}' could not be resolved")
    objects = repo / git(repo, "rev-parse", "--git-path", "objects").decode().strip()
    with tempfile.TemporaryDirectory(prefix="ohtui-delta-") as scratch:
        (Path(scratch) / "objects").mkdir()
        env = {
            "GIT_INDEX_FILE": str(Path(scratch) / "index"),
            "GIT_OBJECT_DIRECTORY": str(Path(scratch) / "objects"),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(objects),
        }
        git(repo, "read-tree", base, env=env)
        git(repo, "add", "--intent-to-add", "--all", env=env)
        patch = git(repo, "diff", *NO_PROGRAMS, "--binary", base, env=env)
    headers = {"x-archive-repo-root": quote(str(repo), safe="")}
    head = _resolve(repo, "HEAD")
    if head is not None:
        branch = git(repo, "symbolic-ref", "--short", "-q", "HEAD", check=False).decode().strip()
        if branch:
            headers["x-archive-branch"] = branch
        headers["x-archive-head-commit"] = head
    if base_ref is not None:
        headers["x-archive-base-commit"] = base
        headers["x-archive-base-ref"] = base_ref
    return Delta(patch, headers)


__all__ = [
    "EMPTY_TREE",
    "Delta",
    "GitFailed",
    "NotARepository",
    "changes",
    "commit_changes",
    "commits",
    "delta",
    "diff",
    "git",
    "git_available",
]
