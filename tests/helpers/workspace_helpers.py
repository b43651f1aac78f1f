"""Git at the test's side: a copy of a workspace's base to check that a patch applies."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

#: No user configuration: the tests' git behaves the same on every machine.
ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
IDENTITY = ["-c", "user.email=t@t.invalid", "-c", "user.name=t", "-c", "commit.gpgsign=false"]


def need_git() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *IDENTITY, *args], cwd=cwd, env=ENV, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def base_copy(repo: Path, rev: str, dest: Path) -> Path:
    """A checkout of ``repo`` at ``rev`` (a clone: the repository itself is left alone)."""
    git(dest.parent, "clone", "-q", "--no-checkout", str(repo), dest.name)
    git(dest, "checkout", "-q", rev)
    return dest


def applies(checkout: Path, patch: bytes) -> subprocess.CompletedProcess[str]:
    """``git apply --check`` of ``patch`` in ``checkout`` (its stderr says why not)."""
    path = checkout.parent / f"{checkout.name}.patch"
    path.write_bytes(patch)
    return subprocess.run(
        ["git", "apply", "--check", str(path)],
        cwd=checkout,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )


def apply(checkout: Path, patch: bytes) -> None:
    path = checkout.parent / f"{checkout.name}.patch"
    path.write_bytes(patch)
    git(checkout, "apply", str(path))


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but ``.git``, by relative path."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def status_changes(repo: Path) -> list[tuple[str, str]]:
    """``git status`` as the agent server lists changes against HEAD: ``(STATUS, path)`` by
    path, a rename as a deletion and an addition, every untracked file on its own."""
    out = git(repo, "status", "--porcelain", "--no-renames", "--untracked-files=all")
    found = []
    for line in out.splitlines():
        code, path = line[:2], line[3:]
        if "D" in code:
            found.append(("DELETED", path))
        elif code in ("??", "A ", "AM"):
            found.append(("ADDED", path))
        else:
            found.append(("UPDATED", path))
    return sorted(found, key=lambda change: change[1])
