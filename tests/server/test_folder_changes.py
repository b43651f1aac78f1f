"""Changes over local conversation folders (issue 29 item 5): the folder server reads the
workspace a conversation's stored state names with git, in place, and writes nothing there;
where that folder is not on this machine or is no repository, the view says so (pinned at
80×24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app.test_app_changes import choose, diff_text, files, open_changes
from tests.helpers.app_helpers import (
    SIZE,
    first_rows_shown,
    make_app,
    push_conversation,
    settled,
    wait_for,
)
from tests.helpers.folder_helpers import tree_digest, write_folder
from tests.helpers.workspace_helpers import applies, base_copy, git, need_git
from tui.app.screens.changes import ChangesScreen
from tui.client import OpenHandsClient
from tui.server import Store
from tui.server.demo import generate_conversation
from tui.server.folders import FolderStore

APP_BEFORE = "def main():\n    return 1\n"
APP_AFTER = "def main():\n    return 2  # changed by the agent\n"


def repository(where: Path) -> Path:
    """A real checkout with one commit, one edited file and one new file."""
    need_git()
    where.mkdir()
    git(where, "init", "-q", "-b", "main")
    (where / "src").mkdir()
    (where / "src" / "app.py").write_text(APP_BEFORE)
    (where / "README.md").write_text("# project\n")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "Initial commit")
    (where / "src" / "app.py").write_text(APP_AFTER)
    (where / "notes.txt").write_text("new notes\n")
    return where


def conversation(root: Path, working_dir: str) -> str:
    """A conversation folder under ``root`` whose base_state.json names ``working_dir``."""
    sqlite = Store()
    cid = generate_conversation(sqlite, 6, seed=3)
    events = [json.loads(row.json) for row in sqlite.iter_events(cid)]
    state = {"id": cid, "workspace": {"working_dir": working_dir, "kind": "LocalWorkspace"}}
    write_folder(root, cid, events, state=state)
    sqlite.close()
    return cid


@pytest.fixture
def folders(tmp_path):
    root = tmp_path / "conversations"
    root.mkdir()
    return root


async def test_changes_read_the_workspace_in_place(make_server, folders, tmp_path):
    work = repository(tmp_path / "checkout")
    cid = conversation(folders, str(work))
    before = tree_digest(work)
    server = make_server(FolderStore(folders))
    app = make_app(server.base_url, readonly=True, local=True)
    async with app.run_test(size=SIZE) as pilot:
        changes = await open_changes(pilot, cid)
        assert changes.list_error == ""
        assert files(changes).keys == ["notes.txt", "src/app.py"]
        assert changes.root == str(work)
        await choose(pilot, changes, "src/app.py")
        shown = diff_text(changes)
        assert "return 2  # changed by the agent" in shown and "return 1" in shown
        await wait_for(lambda: changes.counted.get("src/app.py") == (1, 1), pilot=pilot)
        await pilot.press("c")  # the commits pane: the checkout's own history
        await wait_for(lambda: changes.commits_page is not None, pilot=pilot)
        assert [c.subject for c in changes.commits_page.commits] == ["Initial commit"]
        await settled(pilot)
    assert tree_digest(work) == before  # read, never written (no index refresh, no objects)


async def test_the_patch_of_a_local_workspace_applies_and_writes_nothing(
    make_server, folders, tmp_path
):
    work = repository(tmp_path / "checkout")
    cid = conversation(folders, str(work))
    head = git(work, "rev-parse", "HEAD").strip()
    before = tree_digest(work)
    folder = make_server(FolderStore(folders))
    async with OpenHandsClient(folder.base_url) as client:
        patch = await client.workspace_patch(cid, ref="HEAD")
    assert patch.source == "git-delta" and patch.files == 2
    assert tree_digest(work) == before
    done = applies(base_copy(work, head, tmp_path / "base"), patch.data)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda tmp: str(tmp / "gone" / "checkout"), "is not on this machine"),
        (lambda tmp: str((tmp / "plain").mkdir() or tmp / "plain"), "is not a git repository"),
    ],
    ids=["missing", "not-a-repository"],
)
async def test_a_workspace_that_cannot_be_read_is_said(make_server, folders, tmp_path, make, words):
    need_git()
    where = make(tmp_path)
    cid = conversation(folders, where)
    server = make_server(FolderStore(folders))
    app = make_app(server.base_url, readonly=True, local=True)
    async with app.run_test(size=SIZE) as pilot:
        changes = await open_changes(pilot, cid)
        assert changes.list_error.startswith(f"The workspace {where} {words}")
        note = str(changes.query_one("#changes-note").render())
        assert f"The workspace {where} {words}" in " ".join(note.split())


def test_snapshot_of_a_workspace_not_on_this_machine(snap_compare, make_server, folders):
    cid = conversation(folders, "/nonexistent/elsewhere/project")
    server = make_server(FolderStore(folders))

    async def run_before(pilot):
        app = pilot.app
        app.animation_level = "none"
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: first_rows_shown(screen), pilot=pilot)
        await pilot.press("w")
        await wait_for(lambda: isinstance(app.screen, ChangesScreen), pilot=pilot)
        changes = app.screen
        await wait_for(lambda: changes.list_error and changes.commits_error, pilot=pilot)
        await settled(pilot)

    app = make_app(server.base_url, readonly=True, local=True)
    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))
