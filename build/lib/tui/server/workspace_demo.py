"""The demo's workspace: a real git repository in a temporary folder, served as
``/workspace/project`` (where the demo's conversations work).

Why real: the workspace routes answer from git itself (``workspace_git.py``), so what ohtui
shows and the patch it writes are what git says, and ``git apply`` can check them. Made on
first use, not when the demo loads (most tests and runs never ask), with fixed authors and
dates so every run has the same commits; removed with the store. Without git on the
machine the files are written all the same, in no repository: the routes then answer as a
server's do for a folder that is no repository.
"""

from __future__ import annotations

import posixpath
import shutil
import tempfile
import threading
import weakref
from pathlib import Path

from .demo.events_builder import WORKDIR
from .workspace_git import git, git_available

AUTHOR = {
    "GIT_AUTHOR_NAME": "Demo Agent",
    "GIT_AUTHOR_EMAIL": "agent@demo.invalid",
    "GIT_COMMITTER_NAME": "Demo Agent",
    "GIT_COMMITTER_EMAIL": "agent@demo.invalid",
}

REFUNDS = '''"""Refunds for the payments service."""


def refund(amount, fee):
    return amount - fee
'''
REFUNDS_ROUNDED = '''"""Refunds for the payments service."""


def refund(amount, fee):
    """The amount paid back, in cents."""
    return round(amount - fee, 2)
'''
CLI = """import sys


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    print("usage: demo [--verbose]", args)
"""
CLI_EDITED = """import argparse


def main(argv=None):
    parser = argparse.ArgumentParser(prog="demo")
    parser.add_argument("--verbose", action="store_true")
    return parser.parse_args(argv)
"""

#: (message, day of August 2026, files written (None: deleted)) of each commit.
HISTORY: list[tuple[str, int, dict[str, str | None]]] = [
    (
        "Initial commit",
        17,
        {
            "README.md": "# demo\n\nA small payments service.\n",
            "src/payments/__init__.py": "",
            "src/payments/refunds.py": REFUNDS,
            "cli/main.py": CLI,
            "docs/usage.md": "Run `demo --help`.\n",
            "docs/old-notes.md": "Notes nobody reads.\n",
        },
    ),
    ("Refunds: round to cents", 18, {"src/payments/refunds.py": REFUNDS_ROUNDED}),
]
#: What the agent left uncommitted: edits, a deletion, a staged and an untracked file.
WORKING_TREE: dict[str, str | None] = {
    "cli/main.py": CLI_EDITED,
    "README.md": "# demo\n\nA small payments service, with refunds.\n",
    "docs/old-notes.md": None,
    "tests/test_refunds.py": "from payments.refunds import refund\n\n"
    "def test_refund():\n    assert refund(10, 1) == 9\n",
    "hello.py": 'print("hello")',  # no final newline
}
STAGED = ("tests/test_refunds.py",)
#: A binary file the agent added (a git-delta carries it; a computed patch leaves it out).
LOGO = ("assets/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))


def _write(root: Path, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = root / name
        if text is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build_repository(root: Path) -> bool:
    """Write the demo's files (and, with git, their history) into ``root``; True with git."""
    with_git = git_available()
    if with_git:
        git(root, "init", "-q", "-b", "main")
    for message, day, files in HISTORY:
        _write(root, files)
        if with_git:
            when = f"2026-08-{day:02d}T09:00:00+00:00"
            env = {**AUTHOR, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
            git(root, "add", "-A", env=env)
            git(root, "commit", "-q", "--no-gpg-sign", "-m", message, env=env)
    _write(root, WORKING_TREE)
    name, data = LOGO
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_bytes(data)
    if with_git:
        git(root, "add", *STAGED)
    return with_git


class DemoWorkspace:
    """The demo's repository, made on first use: ``virtual`` paths (as the server's clients
    name them, under :data:`WORKDIR`) map to files under a temporary folder."""

    def __init__(self, virtual_root: str = WORKDIR) -> None:
        self.virtual_root = virtual_root.rstrip("/") or "/"
        self._lock = threading.Lock()
        self._temp: Path | None = None
        self._removal: weakref.finalize | None = None
        self.has_git = False
        #: files to write as the repository is made (relative path → text): ``prepare``
        self._prepared: dict[str, str] = {}

    @property
    def root(self) -> Path:
        with self._lock:
            if self._temp is None:
                temp = Path(tempfile.mkdtemp(prefix="ohtui-demo-workspace-"))
                root = temp / "project"
                root.mkdir()
                self.has_git = build_repository(root)
                _write(root, dict(self._prepared))
                self._temp = temp
                # removed with the store, or when this object goes or the process ends
                # without a close (a killed child server's store is never closed)
                self._removal = weakref.finalize(self, shutil.rmtree, temp, ignore_errors=True)
            return self._temp / "project"

    def inside(self, virtual: str) -> bool:
        """Whether an absolute ``virtual`` path lies in the workspace (``..`` resolved)."""
        if not virtual.startswith("/"):
            return False
        normal = posixpath.normpath(virtual)
        return normal == self.virtual_root or normal.startswith(self.virtual_root + "/")

    def _relative(self, virtual: str) -> str | None:
        """The path under the workspace a virtual path names ("" for the workspace itself),
        or None outside it."""
        if not self.inside(virtual):
            return None
        return posixpath.normpath(virtual)[len(self.virtual_root) :].lstrip("/")

    def real(self, virtual: str) -> Path | None:
        """The file a virtual path names, or None outside the workspace."""
        rest = self._relative(virtual)
        if rest is None:
            return None
        return self.root / rest if rest else self.root

    def prepare(self, files: dict[str, str]) -> None:
        """Put ``files`` (virtual path → text, inside the workspace) as they are: now if the
        repository was made, else as it is made (first use stays lazy: no git meanwhile)."""
        with self._lock:
            made = self._temp is not None
            for virtual, text in files.items():
                rest = self._relative(virtual)
                if rest:
                    self._prepared[rest] = text
        if made:
            for virtual, text in files.items():
                self.write(virtual, text)

    def write(self, virtual: str, text: str) -> bool:
        """Write ``text`` to the file a virtual path names, as the simulated agent's editor
        does (parents made); False, writing nothing, outside the workspace or where a link,
        a file or a folder is in the way: nothing outside the temporary folder is written."""
        real = self.real(virtual)
        root = self.root
        if real is None or real == root:
            return False
        here = root
        for part in real.relative_to(root).parts[:-1]:
            here = here / part
            if here.is_symlink() or (here.exists() and not here.is_dir()):
                return False
        if real.is_symlink() or real.is_dir():
            return False
        real.parent.mkdir(parents=True, exist_ok=True)
        real.write_text(text, encoding="utf-8")
        return True

    def virtual(self, text: str) -> str:
        """``text`` (a message, a path) with the temporary folder named as clients see it."""
        if self._temp is None:
            return text
        return text.replace(str(self._temp / "project"), self.virtual_root)

    def close(self) -> None:
        with self._lock:
            if self._removal is not None:
                self._removal()  # once: a finalizer runs at most one time
                self._removal = None
            self._temp = None


__all__ = ["HISTORY", "LOGO", "STAGED", "WORKING_TREE", "DemoWorkspace", "build_repository"]
