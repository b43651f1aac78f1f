"""ohtui's workspace calls against the reference server over loopback: the demo's workspace is
a real git repository, so what the client lists is checked against ``git status`` there, and
every patch it makes against ``git apply`` on a copy of the base."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.workspace_helpers import (
    applies,
    apply,
    base_copy,
    need_git,
    status_changes,
    tree,
)
from tui.client import (
    ApiValidationError,
    BadRequest,
    CutShort,
    NotAFile,
    NotFound,
    OpenHandsClient,
    SandboxNotRunning,
    TooLarge,
    Unsupported,
)
from tui.server import Store, load_demo


@pytest.fixture
def demo(make_server) -> Iterator[Any]:
    """A demo server (an app server) whose workspace is the demo's repository."""
    need_git()
    store = Store()
    load_demo(store)
    server = make_server(store)
    yield server
    server.stop()
    store.close()


def client_for(server: Any) -> OpenHandsClient:
    return OpenHandsClient(server.base_url, backoff=0.01)


async def conversation(client: OpenHandsClient, status: str = "RUNNING") -> str:
    page = await client.search_conversations(limit=100)
    return next(c.id for c in page.items if str(c.sandbox_status) == status)


def changes_of(listed: list[Any]) -> list[tuple[str, str]]:
    return [(str(change.status), change.path) for change in listed]


async def test_changes_are_what_git_status_says(demo) -> None:
    root = demo.store.workspace.root
    async with client_for(demo) as client:
        cid = await conversation(client)
        uncommitted = await client.git_changes(cid, ref="HEAD")
        against_base = await client.git_changes(cid)  # no origin: the base is HEAD
        assert await (await client.workspace(cid)).root() == "/workspace/project"
    assert changes_of(uncommitted) == status_changes(root)
    assert changes_of(against_base) == changes_of(uncommitted)
    assert ("DELETED", "docs/old-notes.md") in changes_of(uncommitted)
    assert ("ADDED", "assets/logo.png") in changes_of(uncommitted)


async def test_commits_their_changes_and_diffs(demo) -> None:
    async with client_for(demo) as client:
        cid = await conversation(client)
        page = await client.git_commits(cid)
        first = await client.git_commits(cid, limit=1)
        root_commit = await client.git_commit_changes(cid, page.commits[-1].short_sha)
        rounded = await client.git_commit_changes(cid, page.commits[0].sha)
        edited = await client.git_diff(cid, "cli/main.py", ref="HEAD")
        in_commit = await client.git_diff(
            cid, "src/payments/refunds.py", commit=page.commits[0].sha
        )
        deleted = await client.git_diff(cid, "docs/old-notes.md")
        with pytest.raises(BadRequest, match="File does not exist"):
            await client.git_diff(cid, "nowhere.txt")
        with pytest.raises(BadRequest, match="could not|failed"):
            await client.git_changes(cid, ref="no-such-branch")
    assert [c.subject for c in page.commits] == ["Refunds: round to cents", "Initial commit"]
    assert not page.has_more and first.has_more and len(first.commits) == 1
    assert page.commits[0].author == "Demo Agent"
    assert page.commits[0].timestamp == "2026-08-18T09:00:00+00:00"
    assert ("ADDED", "cli/main.py") in changes_of(root_commit)
    assert changes_of(rounded) == [("UPDATED", "src/payments/refunds.py")]
    assert edited.original.startswith("import sys") and "argparse" in edited.modified
    assert not edited.modified.endswith("\n")  # normalised, as the real server sends it
    assert "round(" in in_commit.modified and "round(" not in in_commit.original
    assert deleted == type(deleted)(original="Notes nobody reads.", modified="")


async def test_the_servers_patch_applies_on_a_copy_of_the_base(demo, tmp_path: Path) -> None:
    root = demo.store.workspace.root
    async with client_for(demo) as client:
        cid = await conversation(client)
        patch = await client.workspace_patch(cid, ref="HEAD")
        whole = await client.workspace_patch(cid)  # the server's base: the empty tree here
    assert patch.source == "git-delta" and patch.files == 6
    assert patch.repo_root == "/workspace/project" and patch.branch == "main"
    assert patch.base == patch.head_commit
    checkout = base_copy(root, patch.base, tmp_path / "base")
    result = applies(checkout, patch.data)
    assert result.returncode == 0, result.stderr
    apply(checkout, patch.data)
    assert tree(checkout) == tree(root)  # binaries and the missing final newline too

    assert whole.base is None and whole.files == 8
    empty = tmp_path / "empty"
    empty.mkdir()
    apply_here = applies(empty, whole.data)
    assert apply_here.returncode == 0, apply_here.stderr


async def test_a_patch_is_computed_where_the_server_makes_none(demo, tmp_path: Path) -> None:
    root = demo.store.workspace.root
    async with client_for(demo) as client:
        cid = await conversation(client)
        for route in (f"/api/conversations/{cid}/file/archive", "/api/file/archive"):
            demo.app.state.faults.add(
                "status", route, times=-1, status=404, body='{"detail": "Not Found"}'
            )
        with pytest.raises(Unsupported, match=r"has no workspace patches \(/api/file/archive\)"):
            await client.archive_patch(cid)
        patch = await client.workspace_patch(cid, ref="HEAD")
    assert patch.source == "computed" and patch.files == 5
    assert patch.skipped == ("assets/logo.png: binary (the server gives no binary diffs)",)
    assert any("taken to end in a newline" in note for note in patch.notes)
    checkout = base_copy(root, "HEAD", tmp_path / "base")
    result = applies(checkout, patch.data)
    assert result.returncode == 0, result.stderr
    apply(checkout, patch.data)
    made, wanted = tree(checkout), tree(root)
    assert made.pop("hello.py") == b'print("hello")\n'  # the final newline the diff lost
    assert wanted.pop("hello.py") == b'print("hello")'
    wanted.pop("assets/logo.png")
    assert made == wanted


async def test_a_server_without_the_conversation_routes_is_read_server_wide(demo) -> None:
    async with client_for(demo) as client:
        cid = await conversation(client)
        missing = demo.app.state.faults.add(
            "status",
            f"/api/conversations/{cid}/git",
            times=-1,
            status=404,
            body='{"detail": "Not Found"}',
        )
        first = await client.git_changes(cid, ref="HEAD")
        again = await client.git_changes(cid, ref="HEAD")
        commits = await client.git_commits(cid)
    assert first == again and len(first) == 6 and len(commits.commits) == 2
    assert demo.app.state.faults.hits["status"] == 2  # each route's own copy tried once
    assert missing.times == -1


async def test_a_route_no_copy_has_is_unsupported_in_words(make_server) -> None:
    store = Store()
    load_demo(store)
    server = make_server(store, kind="agent")
    try:
        async with client_for(server) as client:
            cid = (await client.search_conversations(limit=1)).items[0].id
            for route in (f"/api/conversations/{cid}/git/commits", "/api/git/commits"):
                server.app.state.faults.add(
                    "status", route, times=-1, status=404, body='{"detail": "Not Found"}'
                )
            with pytest.raises(Unsupported) as caught:
                await client.git_commits(cid)
            listed = await client.git_changes(path="/workspace/project", ref="HEAD")
    finally:
        server.stop()
        store.close()
    assert str(caught.value) == (
        f"the agent server at {server.base_url} (OpenHands Agent Server "
        f"ohtui-reference-{_version()}) has no commit history (/api/git/commits)"
    )
    assert len(listed) == 6  # a bare agent server's files, by absolute path


def _version() -> str:
    from tui import __version__

    return __version__


async def test_a_sandbox_that_is_not_running_is_said_before_any_request(demo) -> None:
    async with client_for(demo) as client:
        paused = await conversation(client, "PAUSED")
        starting = await conversation(client, "STARTING")
        with pytest.raises(SandboxNotRunning) as caught:
            await client.git_changes(paused)
        with pytest.raises(SandboxNotRunning, match="starting: try again when it runs"):
            await client.workspace_patch(starting)
        with pytest.raises(NotFound, match="no conversation"):
            await client.git_changes("0" * 32)
    assert str(caught.value) == (
        "The conversation's sandbox is paused: resume it (r on the sandboxes screen), "
        "then try again."
    )
    assert caught.value.sandbox_status == "PAUSED" and caught.value.status is None


async def test_downloads_are_streamed_and_bounded(demo) -> None:
    root = demo.store.workspace.root
    chunks: list[bytes] = []
    async with client_for(demo) as client:
        cid = await conversation(client)
        got = await client.download_file(cid, "assets/logo.png", chunks.append, max_bytes=10_000)
        text = await client.read_file(cid, "/workspace/project/README.md", max_bytes=1000)
        with pytest.raises(TooLarge, match=r"too large to download here \(272 bytes, over 100"):
            await client.read_file(cid, "assets/logo.png", max_bytes=100)
        with pytest.raises(NotFound, match="File not found"):
            await client.read_file(cid, "nothing-here", max_bytes=100)
        with pytest.raises(NotAFile, match="^/workspace/project/cli is a folder, not a file$"):
            await client.read_file(cid, "cli", max_bytes=100)
        with pytest.raises(ApiValidationError, match="inside the conversation workspace"):
            await client.read_file(cid, "/etc/passwd", max_bytes=100)
    assert b"".join(chunks) == (root / "assets/logo.png").read_bytes()
    assert got.size == 272 and got.headers["content-type"] == "application/octet-stream"
    assert text == (root / "README.md").read_bytes()


async def test_a_directory_is_created_in_the_workspace(demo) -> None:
    root = demo.store.workspace.root
    async with client_for(demo) as client:
        cid = await conversation(client)
        assert await client.create_directory("notes/drafts", conversation_id=cid) == {
            "success": True
        }
        assert await client.create_directory("notes/drafts", conversation_id=cid)  # again: fine
        with pytest.raises(BadRequest, match="exists and is not a directory"):
            await client.create_directory("README.md", conversation_id=cid)
    assert (root / "notes" / "drafts").is_dir()


async def test_the_trajectory_zip_holds_the_conversations_events(demo) -> None:
    body = io.BytesIO()
    async with client_for(demo) as client:
        cid = await conversation(client, "PAUSED")  # the app server's own store: any state
        got = await client.download_trajectory(cid, body.write)
        with pytest.raises(TooLarge):
            await client.download_trajectory(cid, io.BytesIO().write, max_bytes=100)
    names = zipfile.ZipFile(body).namelist()
    assert got.size == len(body.getvalue())
    assert f"{cid}/meta.json" in names
    events = [n for n in names if n.startswith(f"{cid}/events/event-")]
    assert len(events) == demo.store.count_events(cid)


async def test_without_git_the_workspace_is_a_folder_in_no_repository(
    make_server, monkeypatch
) -> None:
    from tui.server import workspace_demo, workspace_git

    monkeypatch.setattr(workspace_git, "git_available", lambda: False)
    monkeypatch.setattr(workspace_demo, "git_available", lambda: False)
    store = Store()
    load_demo(store)
    server = make_server(store)
    try:
        async with client_for(server) as client:
            cid = await conversation(client)
            assert await client.git_changes(cid) == []  # as the real server answers
            assert (await client.git_commits(cid)).commits == []
            diff = await client.git_diff(cid, "README.md")
            with pytest.raises(Exception, match="is not a git repository") as caught:
                await client.workspace_patch(cid)
            text = await client.read_file(cid, "README.md", max_bytes=1000)
        root = store.workspace.root
        assert not (root / ".git").exists()
    finally:
        server.stop()
        store.close()
    assert diff.original is None and diff.modified is None
    assert type(caught.value).__name__ == "NotARepository"
    assert str(caught.value).startswith("/workspace/project is not a git repository")
    assert text == b"# demo\n\nA small payments service, with refunds.\n"


async def test_a_file_cut_short_is_said_as_what_to_do(demo) -> None:
    """A sandbox's agent server sends its own growing log with a length the file no longer
    has and closes the connection mid-body: said as a file that changed, not a raw error."""
    async with client_for(demo) as client:
        cid = await conversation(client)
        whole = await client.view_file(cid, "/workspace/project/cli/main.py", max_bytes=100_000)
        demo.app.state.faults.add("cut_body", f"/api/conversations/{cid}/file/download")
        with pytest.raises(CutShort) as caught:
            await client.view_file(cid, "/workspace/project/cli/main.py", max_bytes=100_000)
        again = await client.view_file(cid, "/workspace/project/cli/main.py", max_bytes=100_000)
    assert demo.app.state.faults.hits["cut_body"] == 1
    assert str(caught.value).startswith("the file came cut short: it changed while the server")
    assert again.data == whole.data and len(whole.data) > 20  # read again: whole
