"""What an agent changed, read by ohtui from the real agent server: a scripted run creates,
edits, deletes, renames and commits files in a git repository (made by the test in the
server's files area, where the fake LLM's commands work); ohtui's change list is exactly
what ``git status`` says there, and its patch applies with ``git apply`` on a copy of the
base and reproduces the working tree."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.helpers.workspace_helpers import (
    applies,
    apply,
    base_copy,
    git,
    need_git,
    status_changes,
    tree,
)
from tests.integration.conftest import conversation_request
from tests.integration.fake_llm import Step, create_file, terminal
from tests.integration.fake_llm import finish as finish_call
from tests.integration.waiting import status_in
from tui.client.workspace_patch import computed_patch

pytestmark = pytest.mark.xdist_group("agent-server")


def make_repository(root: Path) -> str:
    """A repository with two commits; returns the first commit's sha."""
    root.mkdir(parents=True)
    (root / "keep.txt").write_text("one\ntwo\nthree\n")
    (root / "gone.txt").write_text("delete me\n")
    (root / "old_name.txt").write_text("move me\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('v1')\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "src" / "app.py").write_text("print('v2')\n")
    git(root, "commit", "-qam", "second")
    return first


def agent_work(repo: Path) -> list[Step]:
    """The run: a commit of its own, then uncommitted edits of every kind."""
    at = f"cd {repo} && "
    who = "git -c user.email=agent@test.invalid -c user.name=Agent -c commit.gpgsign=false"
    return [
        Step(
            "Commit a fix.",
            [
                terminal(
                    at
                    + f"printf 'one\\n2\\nthree\\n' > keep.txt && {who} commit -qam 'agent: fix keep'"
                )
            ],
        ),
        Step("Edit.", [terminal(at + "printf 'one\\n2\\nthree\\nfour\\n' > keep.txt")]),
        Step("Delete.", [terminal(at + "git rm -q gone.txt")]),
        Step("Rename.", [terminal(at + "git mv old_name.txt new_name.txt")]),
        Step(
            "Stage a file.",
            [terminal(at + "printf 'staged\\n' > staged.txt && git add staged.txt")],
        ),
        Step(
            "Create one.",
            [create_file(str(repo / "notes.md"), "# Notes\n\nby the agent\n")],
        ),
        Step("", [finish_call("Done.")]),
    ]


async def test_changes_and_patch_match_git_in_the_workspace(
    client, agent, agent_server, fake_llm, tmp_path
) -> None:
    need_git()
    repo = Path(agent_server.files) / f"ws-{uuid.uuid4().hex[:8]}"
    first = make_repository(repo)
    script = fake_llm.add(agent_work(repo))
    cid = uuid.uuid4().hex
    body = conversation_request(agent_server, fake_llm, cid)
    body["workspace"] = {"working_dir": str(repo)}
    r = await agent.http.post("/api/conversations", json=body, timeout=60)
    assert r.status_code in (200, 201), r.text
    await agent.send(cid, f"{script.tag} Change the files.")
    assert await status_in(agent, cid, {"finished", "error", "stuck"}) == "finished"

    uncommitted = await client.git_changes(cid, ref="HEAD")
    assert [(str(c.status), c.path) for c in uncommitted] == status_changes(repo)
    done = status_changes(repo)  # the run really did its work, with both tools
    assert {("DELETED", "old_name.txt"), ("ADDED", "notes.md")} <= set(done), script.tool_results()
    commits = await client.git_commits(cid)
    assert [c.subject for c in commits.commits] == ["agent: fix keep", "second", "base"]
    since_first = await client.git_changes(cid, ref=first)
    assert ("UPDATED", "src/app.py") in [(str(c.status), c.path) for c in since_first]

    for ref, name in (("HEAD", "head"), (first, "first")):
        patch = await client.workspace_patch(cid, ref=ref)
        assert patch.source == "git-delta" and patch.repo_root == str(repo)
        checkout = base_copy(repo, ref, tmp_path / name)
        result = applies(checkout, patch.data)
        assert result.returncode == 0, result.stderr
        apply(checkout, patch.data)
        assert tree(checkout) == tree(repo)

    computed = await computed_patch(await client.workspace(cid), ref="HEAD")
    assert computed.source == "computed" and not computed.skipped
    checkout = base_copy(repo, "HEAD", tmp_path / "computed")
    result = applies(checkout, computed.data)
    assert result.returncode == 0, result.stderr
    apply(checkout, computed.data)
    assert tree(checkout) == tree(repo)  # every text here ends in a newline

    assert await client.create_directory("made/by/ohtui", conversation_id=cid) == {"success": True}
    assert (repo / "made" / "by" / "ohtui").is_dir()
    notes = await client.read_file(cid, "notes.md", max_bytes=1000)
    assert notes == (repo / "notes.md").read_bytes()


async def test_a_workspace_named_relatively_gets_a_computed_patch(
    client, agent, agent_server, fake_llm, tmp_path
) -> None:
    """The agent server takes no relative path on its conversation routes and archives none
    (ohtui's own default workspace is ``workspace/project``): ohtui reads such a workspace
    server-wide and computes the patch."""
    need_git()
    name = f"project-{uuid.uuid4().hex[:8]}"
    # the server runs in the folder that holds workspace/conversations
    repo = Path(agent_server.conversations).parent / name
    make_repository(repo)
    (repo / "keep.txt").write_text("one\ntwo\nthree\nfour\n")
    (repo / "added.txt").write_text("added\n")
    (repo / "gone.txt").unlink()
    cid = uuid.uuid4().hex
    body = conversation_request(agent_server, fake_llm, cid)
    body["workspace"] = {"working_dir": f"workspace/{name}"}
    r = await agent.http.post("/api/conversations", json=body, timeout=60)
    assert r.status_code in (200, 201), r.text

    listed = await client.git_changes(cid, ref="HEAD")
    assert [(str(c.status), c.path) for c in listed] == status_changes(repo)
    patch = await client.workspace_patch(cid, ref="HEAD")
    assert patch.source == "computed" and patch.files == 3 and not patch.skipped
    assert patch.repo_root == f"workspace/{name}"
    checkout = base_copy(repo, "HEAD", tmp_path / "base")
    apply(checkout, patch.data)
    assert tree(checkout) == tree(repo)
