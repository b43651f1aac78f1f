"""A workspace named by a relative path (``working_dir: "."``, app server 1.11.0's process
sandboxes), against the reference server reproducing it: no folder listing is asked for (the
server would refuse it: "Path must be absolute"); the files git lists are the listing, in the
folders holding them, with one note saying why; a file is read exactly through the
conversation's workspace route, and where a server has none, as git's text, said not exact."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.workspace_helpers import need_git
from tui.client import NotAFile, OpenHandsClient, Unsupported
from tui.client.workspace_listing import GIT_NO_TEXT, GIT_TEXT, RELATIVE
from tui.server import Store, load_demo

NOTE = RELATIVE.format(root=".")


@pytest.fixture
def relative(make_server) -> Iterator[tuple[Any, str]]:
    need_git()
    store = Store()
    names = load_demo(store)
    server = make_server(store, relative_working_dir=True)
    # a folder listing would be refused: none may be asked for
    server.app.state.faults.add("status", "/api/file/search_subdirs", times=-1, status=500)
    yield server, names["hello"]
    server.stop()
    store.close()


def shape(listing) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    folders = [(entry.name, entry.path) for entry in listing.folders]
    files = [(entry.name, entry.path, str(entry.status)) for entry in listing.files]
    return folders, files


async def test_the_listing_is_what_git_knows_with_one_note(relative) -> None:
    server, cid = relative
    async with OpenHandsClient(server.base_url) as client:
        assert await client.workspace_root(cid) == "."
        top = await client.folder_listing(cid)
        cli = await client.folder_listing(cid, "cli")
        again = await client.folder_listing(cid, "./cli/")
        src = await client.folder_listing(cid, "src")  # nothing changed there
    assert (top.path, top.root, top.relative, top.notes) == (".", ".", True, (NOTE,))
    assert shape(top) == (
        [("assets", "assets"), ("cli", "cli"), ("tests", "tests")],  # docs/: only a deletion
        [("hello.py", "hello.py", "ADDED"), ("README.md", "README.md", "UPDATED")],
    )
    assert shape(cli) == ([], [("main.py", "cli/main.py", "UPDATED")]) and cli.path == "cli"
    assert again == cli
    assert (src.folders, src.files, src.notes) == ((), (), (NOTE,))
    assert server.app.state.faults.hits["status"] == 0


async def test_a_file_is_read_exactly_through_the_workspace_route(relative) -> None:
    server, cid = relative
    root = server.store.workspace.root
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text("<p>site</p>")
    async with OpenHandsClient(server.base_url) as client:
        hello = await client.view_file(cid, "hello.py", max_bytes=1000)
        logo = await client.read_file(cid, "assets/logo.png", max_bytes=10_000)
        page = await client.read_file(cid, "site/index.html", max_bytes=1000)
        for folder in ("cli", "site"):  # a folder's index.html is not the folder's text
            with pytest.raises(NotAFile, match=f"^{folder} is a folder, not a file$"):
                await client.view_file(cid, folder, max_bytes=1000)
        patch = await client.workspace_patch(cid, ref="HEAD")  # no archive of "."
    assert (hello.data, hello.exact, hello.note) == (b'print("hello")', True, None)
    assert logo == (root / "assets" / "logo.png").read_bytes()
    assert page == b"<p>site</p>"
    assert patch.source == "computed" and patch.repo_root == "."
    assert patch.skipped == ("assets/logo.png: binary (the server gives no binary diffs)",)


async def test_without_the_workspace_route_a_file_is_gits_text_said_not_exact(relative) -> None:
    server, cid = relative
    server.app.state.faults.add(
        "status",
        f"/api/conversations/{cid}/workspace/",
        times=-1,
        status=404,
        body='{"detail": "Not Found"}',
    )
    async with OpenHandsClient(server.base_url) as client:
        hello = await client.view_file(cid, "hello.py", max_bytes=1000)
        main = await client.view_file(cid, "cli/main.py", max_bytes=1000)
        logo = await client.view_file(cid, "assets/logo.png", max_bytes=1000)
        with pytest.raises(Unsupported) as missing:
            await client.download_file(cid, "hello.py", lambda chunk: None, max_bytes=1000)
    assert (hello.data, hello.exact, hello.note) == (b'print("hello")', False, GIT_TEXT)
    assert main.data == (server.store.workspace.root / "cli" / "main.py").read_bytes()[:-1]
    assert (logo.data, logo.exact, logo.note) == (b"", False, GIT_NO_TEXT)
    assert str(missing.value) == (
        f"the agent server at {server.base_url} has no way to read a file by a relative "
        "path (/api/conversations/{id}/workspace/…)"
    )
