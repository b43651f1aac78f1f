"""``ohtui``'s bundled demo server in a child process (``tui/server/demo_process.py``): it
serves the demo (its live run included) once it says it is ready, says why when it cannot
start, and is gone, port and process, when stopped."""

from __future__ import annotations

import httpx
import pytest

from tests.app_helpers import poll
from tests.test_folder_process import _alive, refused
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
