"""The demo's simulated agent really edits its workspace: a file_editor observation changes the
file in the demo's git repository before the event is stored or sent, so ``git status`` (and
the workspace routes, and so Changes) show the edit as soon as the event is seen."""

from __future__ import annotations

import asyncio

import httpx

from tests.helpers.workspace_helpers import git, need_git, status_changes
from tui.server.live.file_edits import edited_files

CONV = "/api/v1/app-conversations"


def send(server, cid: str, text: str) -> None:
    body = {"role": "user", "content": [{"type": "text", "text": text}], "run": True}
    answer = httpx.post(f"{server.base_url}{CONV}/{cid}/send-message", json=body, timeout=10)
    assert answer.json()["success"] is True


async def step_until(server, cid: str, seen) -> dict:
    """Step the run until a frame satisfies ``seen``; that frame."""
    while True:
        got = await asyncio.to_thread(server.live.step_sync, cid)
        assert got, "the run ended first"
        found = [frame for frame in got if seen(frame)]
        if found:
            return found[0]


def edit_of(path: str | None):
    """An editor's observation that changed ``path`` (None: any file)."""
    return lambda frame: (
        frame.get("kind") == "ObservationEvent"
        and frame.get("tool_name") == "file_editor"
        and path in (None, frame["observation"].get("path"))
        and frame["observation"].get("command") in ("create", "str_replace")
    )


async def test_a_demo_run_edits_the_workspace_as_its_events_say(live_server):
    need_git()
    server, names = live_server()
    cid = names["hello"]
    root = server.store.workspace.root
    assert ("UPDATED", "docs/usage.md") not in status_changes(root)  # committed, unchanged
    send(server, cid, "Please document the CLI [docs]")
    observation = await step_until(server, cid, edit_of("/workspace/project/docs/usage.md"))
    stored = [row.json for row in server.store.iter_events(cid)]
    assert any(observation["id"] in text for text in stored)
    # when the event is out, the repository already holds the edit
    assert ("UPDATED", "docs/usage.md") in status_changes(root)
    written = (root / "docs" / "usage.md").read_text(encoding="utf-8")
    assert written == observation["observation"]["new_content"]
    assert "+Pass `--verbose` to log each request." in git(root, "diff", "--", "docs/usage.md")
    async with httpx.AsyncClient(base_url=server.base_url) as client:  # what Changes asks
        listed = await client.get(
            "/api/git/changes", params={"path": "/workspace/project", "ref": "HEAD"}
        )
    assert {"status": "UPDATED", "path": "docs/usage.md"} in listed.json()


async def test_a_create_then_an_edit_leave_the_last_text(live_server):
    need_git()
    server, names = live_server()
    cid = names["hello"]
    root = server.store.workspace.root
    send(server, cid, "Write hello.py and run it [hello]")
    created = await step_until(server, cid, edit_of(None))
    path = created["observation"]["path"]
    name = path.removeprefix("/workspace/project/")
    assert created["observation"]["command"] == "create" and name.startswith("hello")
    assert (root / name).read_text(encoding="utf-8") == "print('hello from hello.py')\n"
    assert ("ADDED", name) in status_changes(root)
    edited = await step_until(server, cid, edit_of(path))
    assert edited["observation"]["command"] == "str_replace"
    assert (root / name).read_text(encoding="utf-8") == "print('hello, edited')\n"


def test_only_successful_edits_inside_the_workspace_are_written(tmp_path) -> None:
    from tui.server.workspace_demo import DemoWorkspace

    def observed(command: str, path: str, text: str | None, error: bool = False) -> dict:
        return {
            "kind": "ObservationEvent",
            "tool_name": "file_editor",
            "observation": {
                "kind": "FileEditorObservation",
                "command": command,
                "path": path,
                "new_content": text,
                "is_error": error,
            },
        }

    events = [
        observed("view", "/workspace/project/README.md", None),
        observed("create", "/workspace/project/new.txt", "new\n"),
        observed("str_replace", "/workspace/project/x.txt", "x", error=True),
        observed("create", "/etc/evil", "nope"),
        observed("create", "/workspace/project/../evil", "nope"),
    ]
    assert edited_files(events)[0] == ("/workspace/project/new.txt", "new\n")
    workspace = DemoWorkspace()
    try:
        (workspace.root.parent / "outside").mkdir()
        (workspace.root / "linked").symlink_to(workspace.root.parent / "outside")
        wrote = [workspace.write(path, text) for path, text in edited_files(events)]
        assert wrote == [True, False, False]
        assert not workspace.write("/workspace/project/linked/f.txt", "through a link")
        assert not workspace.write("/workspace/project/README.md/f.txt", "under a file")
        assert (workspace.root / "new.txt").read_text() == "new\n"
        assert not (workspace.root.parent / "outside" / "f.txt").exists()
        assert not (workspace.root.parent / "evil").exists()
    finally:
        workspace.close()
