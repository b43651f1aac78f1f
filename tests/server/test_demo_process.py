"""``ohtui``'s bundled demo server in a child process (``tui/server/demo_process.py``): it
serves the demo (its live run included) once it says it is ready, says why when it cannot
start, and is gone, port and process, when stopped."""

from __future__ import annotations

import httpx
import pytest

from tests.helpers.app_helpers import poll
from tests.server.test_folder_process import _alive, refused
from tui.server.demo_process import start_demo_process
from tui.server.server_process import spawn_server

SEARCH = "/api/v1/app-conversations/search"


def test_the_child_serves_the_demo_with_its_live_run_until_stopped():
    demo = start_demo_process()
    try:
        demo.wait_ready()
        items = httpx.get(demo.base_url + SEARCH, params={"limit": 100}, timeout=30).json()["items"]
        assert len(items) > 5
        assert any(item["execution_status"] == "running" for item in items)  # the live run
        # loopback names only, as the in-process demo did
        other = httpx.get(demo.base_url + SEARCH, headers={"host": "example.com"}, timeout=30)
        assert other.status_code >= 400
    finally:
        demo.stop()
    assert demo.process.returncode is not None and not _alive(demo.process.pid)
    poll(lambda: refused(demo.base_url))


def test_a_child_that_cannot_serve_says_so_instead_of_hanging(tmp_path):
    # the folder server's child, told of a folder with no conversations, exits at once
    child = spawn_server(
        "tui.server.folder_process", str(tmp_path / "none"), session_key="k", tell_ready=True
    )
    try:
        with pytest.raises(RuntimeError, match="exited with status 3"):
            child.wait_ready()
    finally:
        child.stop()


async def test_the_childs_temporary_workspace_goes_with_it(tmp_path, monkeypatch):
    from tui.client import OpenHandsClient

    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the child makes its workspace here
    demo = start_demo_process()
    try:
        demo.wait_ready()
        async with OpenHandsClient(demo.base_url) as client:
            page = await client.search_conversations(limit=100)
            cid = next(c.id for c in page.items if str(c.sandbox_status) == "RUNNING")
            await client.git_changes(cid)  # the workspace is made on first use
        assert [p.name[:21] for p in tmp_path.iterdir()] == ["ohtui-demo-workspace-"]
    finally:
        demo.stop()
    assert not _alive(demo.process.pid)
    assert list(tmp_path.iterdir()) == []  # os._exit skips clean-ups: it was removed before
