"""The reference server reproduces a sandbox whose workspace is named relatively (app server
1.11.0's process sandboxes: ``working_dir: "."``), and serves a workspace's files by relative
path (``/api/conversations/{id}/workspace/{path}``) as agent servers 1.34.0 and 1.58.2 do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.helpers.workspace_helpers import need_git
from tui.server import Store, create_app, load_demo


@pytest.fixture
def relative(make_server) -> Iterator[tuple[Any, httpx.Client, str]]:
    """A demo app server whose sandboxes name their workspace ".", a client with the
    running conversation's sandbox key, and that conversation's id."""
    need_git()
    store = Store()
    names = load_demo(store)
    server = make_server(store, relative_working_dir=True)
    record = httpx.get(f"{server.base_url}/api/v1/app-conversations?ids={names['hello']}").json()
    key = record[0]["session_api_key"]
    with httpx.Client(base_url=server.base_url, headers={"X-Session-API-Key": key}) as http:
        yield server, http, names["hello"]
    server.stop()
    store.close()


def test_the_record_names_the_workspace_relatively_and_git_reads_it(relative) -> None:
    _, http, cid = relative
    assert http.get(f"/api/conversations/{cid}").json()["workspace"] == {
        "working_dir": ".",
        "kind": "LocalWorkspace",
    }
    changes = http.get("/api/git/changes", params={"path": "."}).json()
    assert {"status": "ADDED", "path": "hello.py"} in changes
    assert http.get("/api/git/changes", params={"path": "cli"}).json() == [
        {"status": "UPDATED", "path": "main.py"}
    ]
    assert http.get("/api/git/diff", params={"path": "hello.py"}).json()["modified"] == (
        'print("hello")'
    )
    for route in ("/api/file/search_subdirs", "/api/file/download"):
        answer = http.get(route, params={"path": "."})
        assert (answer.status_code, answer.json()) == (400, {"detail": "Path must be absolute"})


def test_the_workspace_route_serves_files_by_relative_path(relative) -> None:
    server, http, cid = relative
    root = server.store.workspace.root
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text("<p>site</p>")
    base = f"/api/conversations/{cid}/workspace"

    hello = http.get(f"{base}/hello.py")
    assert (hello.status_code, hello.content) == (200, b'print("hello")')  # exact: no newline
    logo = http.get(f"{base}/assets/logo.png")
    assert logo.content == (root / "assets" / "logo.png").read_bytes()
    site = http.get(f"{base}/site")
    assert site.text == "<p>site</p>" and site.headers["content-type"].startswith("text/html")
    said = {
        "cli": (404, "No index.html in directory"),
        "nope.txt": (404, "File not found"),
        "%2E%2E/%2E%2E/etc/passwd": (400, "Path is outside the workspace"),
    }
    for path, (status, detail) in said.items():
        answer = http.get(f"{base}/{path}")
        assert (answer.status_code, answer.json()["detail"]) == (status, detail), path
    assert http.get(base).json() == {"detail": "No index.html in directory"}
    refused = httpx.get(f"{server.base_url}{base}/hello.py")  # the sandbox's key is needed
    assert refused.status_code == 401


def test_only_an_app_servers_sandboxes_name_it_so() -> None:
    with pytest.raises(ValueError, match="app server's sandboxes"):
        create_app(Store(), kind="agent", relative_working_dir=True)
