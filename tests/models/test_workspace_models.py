"""The workspace models against what agent server 1.58.2 really answered (captured with curl
from a repository with commits, edits, a deletion, a rename, a staged, an untracked and a
binary file), and the patch builder against ``git apply`` itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.helpers.workspace_helpers import applies, apply, git, need_git
from tui.models.patch import NO_NEWLINE, Side, file_patch, hunks, quote_path
from tui.models.textdiff import MAX_ALIGN_CELLS
from tui.models.workspace import (
    GitChange,
    GitChangeStatus,
    GitCommitsPage,
    GitDiff,
    HomeResponse,
    SubdirectoryPage,
)

# GET /api/conversations/{id}/git/changes?path=<repo> (the same with &ref=HEAD there): the
# rename old.txt -> new.txt is DELETED + ADDED; staged, untracked and binary files are ADDED
CHANGES = """[{"status":"ADDED","path":"added.txt"},{"status":"ADDED","path":"bin.dat"},
{"status":"DELETED","path":"del.txt"},{"status":"UPDATED","path":"keep.txt"},
{"status":"ADDED","path":"new.txt"},{"status":"UPDATED","path":"nonl.txt"},
{"status":"DELETED","path":"old.txt"},{"status":"ADDED","path":"untracked.txt"}]"""
# GET …/git/diff?path=<repo>/keep.txt: whole texts, final newline dropped
DIFF = '{"modified":"line1\\nline2 changed again\\nline3\\nline4","original":"line1\\nline2 changed\\nline3"}'
DIFF_DELETED = '{"modified":"","original":"gone"}'
DIFF_BINARY = '{"modified":"","original":""}'  # a file that is not UTF-8
DIFF_NO_REPO = '{"modified":null,"original":null}'
# GET …/git/commits?path=<repo>&limit=1
COMMITS = """{"commits":[{"sha":"56b16b4ccf79d6de04c4c1cea4b8e7ede98f209d","short_sha":"56b16b4",
"subject":"second: edit keep","author":"Ada Tester","timestamp":"2026-12-07T17:35:54+00:00"}],
"has_more":true}"""
NO_COMMITS = '{"commits":[],"has_more":false}'  # a folder in no repository
# GET …/git/commits/ebb6263/changes?path=<repo> (the root commit)
COMMIT_CHANGES = """[{"status":"ADDED","path":"del.txt"},{"status":"ADDED","path":"keep.txt"},
{"status":"ADDED","path":"nonl.txt"},{"status":"ADDED","path":"old.txt"},
{"status":"ADDED","path":"sub/a.py"}]"""
HOME = (
    '{"home":"/tmp/realdirs-ws/agent-server/work/home","favorites":[],'
    '"locations":[{"label":"/","path":"/"}]}'
)
SUBDIRS = """{"items":[{"name":".git","path":"/tmp/realdirs-ws/agent-server/work/files/repo/.git"}],
"next_page_id":"newdir"}"""


def test_changes_as_the_real_server_lists_them() -> None:
    changes = [GitChange.model_validate(item) for item in json.loads(CHANGES)]
    assert [(c.status, c.path) for c in changes][:4] == [
        (GitChangeStatus.ADDED, "added.txt"),
        (GitChangeStatus.ADDED, "bin.dat"),
        (GitChangeStatus.DELETED, "del.txt"),
        (GitChangeStatus.UPDATED, "keep.txt"),
    ]
    commit = [GitChange.model_validate(item) for item in json.loads(COMMIT_CHANGES)]
    assert {c.status for c in commit} == {GitChangeStatus.ADDED}
    assert commit[-1].path == "sub/a.py"


def test_diffs_and_commit_pages() -> None:
    diff = GitDiff.model_validate_json(DIFF)
    assert diff.original == "line1\nline2 changed\nline3"
    assert diff.modified.endswith("line4")
    assert GitDiff.model_validate_json(DIFF_DELETED).modified == ""
    assert GitDiff.model_validate_json(DIFF_BINARY) == GitDiff(original="", modified="")
    assert GitDiff.model_validate_json(DIFF_NO_REPO).original is None
    page = GitCommitsPage.model_validate_json(COMMITS)
    assert page.has_more and page.commits[0].short_sha == "56b16b4"
    assert page.commits[0].timestamp.endswith("+00:00")
    assert GitCommitsPage.model_validate_json(NO_COMMITS).commits == []
    assert HomeResponse.model_validate_json(HOME).locations[0].path == "/"
    assert SubdirectoryPage.model_validate_json(SUBDIRS).next_page_id == "newdir"


@pytest.mark.parametrize(
    "bad",
    [
        '{"status":"COPIED","path":"a"}',  # a status the server does not declare
        '{"status":"ADDED","path":""}',
        '{"status":"ADDED","path":"a","extra":1}',  # closed, like the SDK's model
        '{"status":"ADDED"}',
    ],
)
def test_a_change_of_another_shape_is_refused(bad: str) -> None:
    with pytest.raises(ValidationError):
        GitChange.model_validate_json(bad)


# -- the patch builder -----------------------------------------------------------------------


def test_side_of_a_text() -> None:
    assert Side.of("") == Side([], True)
    assert Side.of("a\nb\n") == Side(["a", "b"], True)
    assert Side.of("a\nb") == Side(["a", "b"], False)
    assert Side.of("a\nb", assume_newline=True) == Side(["a", "b"], True)
    assert Side.of("a\r\nb\n") == Side(["a\r", "b"], True)  # split on \n only, as git does


def test_a_final_newline_is_a_change_of_the_last_line() -> None:
    body, note = hunks(Side(["a", "b"], False), Side(["a", "b"], True))
    assert body == ["@@ -1,2 +1,2 @@", " a", "-b", NO_NEWLINE, "+b"]
    assert note == ""
    body, _ = hunks(Side(["a", "b"], False), Side(["a", "b", "c"], False))
    assert body == ["@@ -1,2 +1,3 @@", " a", "-b", NO_NEWLINE, "+b", "+c", NO_NEWLINE]
    assert hunks(Side(["x"]), Side(["x"])) == ([], "")


def test_paths_are_quoted_as_git_quotes_them() -> None:
    assert quote_path("src/a b.py") == "src/a b.py"
    assert quote_path('na\u00efve\t"q".txt') == '"na\\303\\257ve\\t\\"q\\".txt"'
    assert quote_path("back\\slash") == '"back\\\\slash"'


def test_headers_for_new_deleted_renamed_and_unchanged_files() -> None:
    new = file_patch("n.txt", None, Side(["x"]))
    assert new.text.splitlines()[:4] == [
        "diff --git a/n.txt b/n.txt",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/n.txt",
    ]
    gone = file_patch("d.txt", Side(["x"]), None)
    assert "deleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" in gone.text
    moved = file_patch("b.txt", Side(["x"]), Side(["x"]), old_path="a.txt")
    assert moved.text == (
        "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n"
    )
    assert file_patch("same.txt", Side(["x"]), Side(["x"])) is None
    assert file_patch("empty", None, Side([])).text == (
        "diff --git a/empty b/empty\nnew file mode 100644\n"
    )


def test_a_change_too_large_to_align_is_still_a_correct_patch() -> None:
    size = int(MAX_ALIGN_CELLS**0.5) + 10
    old = Side([f"old {i}" for i in range(size)])
    new = Side([f"new {i}" for i in range(size)])
    body, note = hunks(old, new)
    assert "too large to align" in note
    assert body[0] == f"@@ -1,{size} +1,{size} @@"
    assert body[1:] == [f"-old {i}" for i in range(size)] + [f"+new {i}" for i in range(size)]


@pytest.fixture
def base_repo(tmp_path: Path) -> Path:
    need_git()
    repo = tmp_path / "base"
    repo.mkdir()
    files = {
        "keep.txt": "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n",
        "del.txt": "gone\n",
        "nonl.txt": "no newline",
        "my file.txt": "x\n",
        "old.txt": "r\n",
        "empty_del": "",
    }
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def test_git_applies_the_patch_and_reproduces_the_tree(base_repo: Path, tmp_path: Path) -> None:
    parts = [
        file_patch(
            "keep.txt",
            Side.of("l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"),
            Side.of("l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"),
        ),
        file_patch("del.txt", Side.of("gone\n"), None),
        file_patch("nonl.txt", Side.of("no newline"), Side.of("no newline\nnow\n")),
        file_patch("my file.txt", Side.of("x\n"), Side.of("y")),
        file_patch('na\u00efve\t"q".txt', None, Side.of("new\n")),
        file_patch("new.txt", Side.of("r\n"), Side.of("r\n"), old_path="old.txt"),
        file_patch("empty_new", None, Side.of("")),
        file_patch("empty_del", Side.of(""), None),
    ]
    patch = "".join(p.text for p in parts if p).encode()
    check = applies(base_repo, patch)
    assert check.returncode == 0, check.stderr
    apply(base_repo, patch)
    assert (base_repo / "keep.txt").read_text() == "l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"
    assert (base_repo / "nonl.txt").read_text() == "no newline\nnow\n"
    assert (base_repo / "my file.txt").read_text() == "y"
    assert (base_repo / 'na\u00efve\t"q".txt').read_text() == "new\n"
    assert (base_repo / "new.txt").read_text() == "r\n"
    assert (base_repo / "empty_new").read_bytes() == b""
    for gone in ("del.txt", "old.txt", "empty_del"):
        assert not (base_repo / gone).exists()
