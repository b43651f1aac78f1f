"""``ohtui diff`` as a person runs it, against the reference server's demo (its workspace is a
real git repository): the patch it writes applies with ``git apply`` on a copy of the base,
goes to a pipe byte for byte, and every failure is one sentence with the next step.

Every test runs with HOME and XDG_* inside ``tmp_path`` and no OHTUI_* variable inherited.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.workspace_helpers import applies, apply, base_copy, need_git, tree
from tui.cli import main
from tui.safe_output import destination
from tui.server import Store, load_demo


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> None:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))


@pytest.fixture
def demo(make_server) -> Iterator[tuple[Any, dict[str, str]]]:
    need_git()
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    yield server, names
    server.stop()
    store.close()


def running(server: Any, status: str = "RUNNING") -> str:
    store = server.store
    for cid in store.conversation_ids():
        sandbox = store.get_sandbox(store.get_conversation(cid)["sandbox_id"])
        if sandbox and sandbox["status"] == status:
            return cid
    raise AssertionError(f"no {status} conversation in the demo")


def test_a_device_named_by_o_is_written_to_never_replaced(demo, capsys) -> None:
    server, _ = demo
    before = os.stat("/dev/null")
    code = main(["diff", running(server), "--url", server.base_url, "-o", "/dev/null"])
    assert code == 0, capsys.readouterr().err
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_the_written_patch_applies_on_a_copy_of_the_base(demo, tmp_path: Path, capsys) -> None:
    server, _ = demo
    cid = running(server)
    out = tmp_path / "changes.patch"
    code = main(["diff", cid, "--url", server.base_url, "--ref", "HEAD", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    root = server.store.workspace.root
    head = (root / ".git" / "refs" / "heads" / "main").read_text().strip()
    assert err.splitlines()[:3] == [
        f"wrote 6 file(s) to {out}: the server's patch, against {head}",
        f"  workspace: main at {head[:12]}",
        f"  apply it in a checkout of /workspace/project: git apply {out}",
    ]
    assert sorted(os.listdir(tmp_path)) == ["changes.patch"]  # no temporary file left
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    checkout = base_copy(root, head, tmp_path / "base")
    result = applies(checkout, out.read_bytes())
    assert result.returncode == 0, result.stderr
    apply(checkout, out.read_bytes())
    assert tree(checkout) == tree(root)


def test_a_pipe_gets_the_patch_byte_for_byte(demo, capsysbinary) -> None:
    server, _ = demo
    cid = running(server)
    assert main(["diff", cid, "--url", server.base_url]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out.startswith(b"diff --git a/README.md b/README.md\nnew file mode")
    assert b"GIT binary patch" in captured.out  # the logo, exactly as the server sent it
    err = captured.err.decode()
    assert "wrote 8 file(s): the server's patch, against the server's base" in err
    assert "without an origin, the empty tree" in err
    assert "git apply PATCH" in err


def test_a_computed_patch_says_what_it_left_out(demo, tmp_path: Path, capsys) -> None:
    server, _ = demo
    cid = running(server)
    for route in (f"/api/conversations/{cid}/file/archive", "/api/file/archive"):
        server.app.state.faults.add(
            "status", route, times=-1, status=404, body='{"detail": "Not Found"}'
        )
    out = tmp_path / "computed.patch"
    assert main(["diff", cid, "--url", server.base_url, "--ref", "HEAD", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"wrote 5 file(s) to {out}: computed by ohtui, against HEAD" in err
    assert "  left out (1):\n    assets/logo.png: binary (the server gives no binary diffs)" in err
    assert "every text is taken to end in a newline" in err
    checkout = base_copy(server.store.workspace.root, "HEAD", tmp_path / "base")
    result = applies(checkout, out.read_bytes())
    assert result.returncode == 0, result.stderr


def test_a_paused_sandbox_says_to_resume_it(demo, tmp_path: Path, capsys) -> None:
    server, _ = demo
    out = tmp_path / "never.patch"
    assert main(["diff", running(server, "PAUSED"), "--url", server.base_url, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        "ohtui diff: The conversation's sandbox is paused: resume it (r on the sandboxes "
        "screen), then try again."
    )
    assert not out.exists() and not Path(f"{out}.part").exists()


def test_an_unknown_conversation_and_a_bad_ref(demo, capsys) -> None:
    server, _ = demo
    assert main(["diff", "0" * 32, "--url", server.base_url]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"ohtui diff: conversation not found: {'0' * 32}"
    assert main(["diff", running(server), "--url", server.base_url, "--ref", "nope"]) == 1
    err = capsys.readouterr().err
    assert "400 Bad Request: base_ref 'nope' could not be resolved" in err


def test_a_local_folder_has_no_workspace_server(tmp_path: Path, capsys) -> None:
    assert main(["diff", str(tmp_path)]) == 2
    assert "is a local folder, not a conversation on a server" in capsys.readouterr().err
    assert main(["diff"]) == 2
    assert "name a conversation" in capsys.readouterr().err


def test_a_secret_shaped_text_is_written_exactly_and_said(demo, tmp_path: Path, capsys) -> None:
    server, _ = demo
    token = "sk-" + "a1B2" * 10
    (server.store.workspace.root / ".env").write_text(f"OPENAI_API_KEY={token}\n")
    out = tmp_path / "secret.patch"
    assert main(["diff", running(server), "--url", server.base_url, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"+OPENAI_API_KEY={token}" in out.read_text()
    assert "it holds text shaped like a secret" in err and token not in err


class _Terminal:
    """A standard output that is a terminal (text only, like one)."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_a_terminal_gets_the_patch_cleaned_of_control_sequences(monkeypatch) -> None:
    from tui.commands import diff

    screen = _Terminal()
    monkeypatch.setattr("sys.stdout", screen)
    assert diff._write(b"+echo \x1b]52;c;aGk=\x07 \x1b[2J\n", destination("-")) == 0
    assert screen.text == "+echo \u241b]52;c;aGk=\u2407 \u241b[2J\n"
