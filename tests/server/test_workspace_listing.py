"""A workspace folder as the Files screen lists it, against the reference server's demo (a real
git repository): its subfolders from ``search_subdirs`` and the files git lists as changed in
it; a server without one of those routes still gives the other, with a note in words."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.workspace_helpers import need_git
from tui.client import NotFound, OpenHandsClient
from tui.server import Store, load_demo


@pytest.fixture
def demo(make_server) -> Iterator[tuple[Any, dict[str, str]]]:
    need_git()
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    yield server, names
    server.stop()
    store.close()


def named(listing) -> tuple[list[str], list[tuple[str, str]]]:
    folders = [entry.name for entry in listing.folders]
    files = [(entry.name, str(entry.status)) for entry in listing.files]
    return folders, files


async def test_a_folder_lists_its_subfolders_and_the_files_git_knows(demo) -> None:
    server, names = demo
    async with OpenHandsClient(server.base_url) as client:
        cid = names["hello"]
        top = await client.folder_listing(cid)
        docs = await client.folder_listing(cid, "docs")
        tests = await client.folder_listing(cid, "/workspace/project/tests")
        assert await client.workspace_root(cid) == "/workspace/project"
        page = await client.subdirectories(cid, "/workspace/project", limit=2)
        home = await client.file_home(cid)
        with pytest.raises(NotFound, match="Directory not found"):
            await client.folder_listing(cid, "nowhere")
    assert (top.path, top.root, top.notes, top.more_folders) == (
        "/workspace/project",
        "/workspace/project",
        (),
        False,
    )
    assert named(top) == (
        ["assets", "cli", "docs", "src", "tests"],
        [("hello.py", "ADDED"), ("README.md", "UPDATED")],
    )
    assert top.files[0].path == "/workspace/project/hello.py"
    assert named(docs) == ([], [])  # old-notes.md is deleted: not there to open
    assert named(tests) == ([], [("test_refunds.py", "ADDED")])
    assert [e.name for e in page.items] == ["assets", "cli"] and page.next_page_id == "docs"
    assert home.home == "/workspace"


async def test_a_server_without_a_folder_listing_still_lists_what_git_knows(demo) -> None:
    server, names = demo
    server.app.state.faults.add(
        "status", "/api/file/search_subdirs", times=-1, status=404, body='{"detail": "Not Found"}'
    )
    async with OpenHandsClient(server.base_url) as client:
        top = await client.folder_listing(names["hello"])
    assert named(top) == ([], [("hello.py", "ADDED"), ("README.md", "UPDATED")])
    (note,) = top.notes
    assert "has no folder listing (/api/file/search_subdirs)" in note
    assert note.endswith("only the files git lists can be shown")


async def test_folders_past_the_bound_are_said_to_be_more(demo) -> None:
    server, names = demo
    root = server.store.workspace.root
    for n in range(7):
        (root / "many" / f"f{n}").mkdir(parents=True)
    from tui.client import workspace_listing

    async with OpenHandsClient(server.base_url) as client:
        workspace = await client.workspace(names["hello"])
        listing = await workspace_listing.folder_listing(workspace, "many", max_folders=5)
    assert [e.name for e in listing.folders] == [f"f{n}" for n in range(5)]
    assert listing.more_folders
