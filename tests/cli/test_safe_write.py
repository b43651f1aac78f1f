"""Output goes where the user said and nowhere else (issue 32): ``ohtui export -o``,
``ohtui insights -o``, ``ohtui config init`` and the app's ``ctrl+s`` all write by
:mod:`tui.safe_output`.

A device, FIFO or socket is written as a stream and stays what it was; a regular file is
replaced whole through an exclusively created temporary file (a link planted at the old
``.part`` name is never followed), keeping its mode; a link the user named is written
through once and said; a dangling link, a loop or a folder is an error in words.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    list_ready,
    make_app,
    push_conversation,
    tree_ready,
    wait_for,
)
from tui.cli import main
from tui.export import write_export
from tui.safe_output import OutputError, destination, open_output, write_text
from tui.server import Store, load_demo

IDS = load_demo(Store())
CID = IDS["hello"]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> None:
    """No config or OHTUI_* variable of the machine's: the server is the one named."""
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))


@pytest.fixture
def folder(tmp_path) -> Path:
    """Where the outputs go, apart from the isolated HOME and XDG folders."""
    made = tmp_path / "out"
    made.mkdir()
    return made


def export(server, *argv: str) -> int:
    return main(["export", CID, "--url", server.base_url, *argv])


def expected_markdown(server, capsys) -> str:
    assert export(server) == 0
    return capsys.readouterr().out


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@contextmanager
def reading(path: Path) -> Iterator[Callable[[], bytes]]:
    """A reader of the FIFO ``path`` in a thread; ``got()`` is everything written to it.

    The test holds a write end of its own until ``got()``, so the reader's open never
    waits, what is written is kept even before the reader comes, and the reader always
    ends (at end of file), whatever the code under test did to the FIFO."""
    keep = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # Linux: a FIFO's both ends at once
    got: list[bytes] = []
    thread = threading.Thread(target=lambda: got.append(path.read_bytes()), daemon=True)
    thread.start()
    closed = False

    def result() -> bytes:
        nonlocal closed
        if not closed:
            os.close(keep)
            closed = True
        thread.join()
        return got[0] if got else b""

    try:
        yield result
    finally:
        result()


# --- devices, FIFOs, sockets: streams, never replaced -------------------------------------


@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_a_device_stays_a_device(demo_server, device, capsys):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    before = os.stat(device)
    code = export(demo_server, "-o", device)
    err = capsys.readouterr().err
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode)  # the same device, not a file in its place
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert not [name for name in os.listdir("/dev") if name.startswith((".null", ".full"))]
    assert "Traceback" not in err
    if device == "/dev/null":
        assert code == 0 and f"to {device}" in err
    else:  # the device says the disk is full: said in words, exit 1
        assert code == 1 and err.startswith(f"ohtui export: cannot write {device}: No space")


def test_a_fifo_gets_the_bytes_as_a_stream(demo_server, folder, capsys):
    text = expected_markdown(demo_server, capsys)
    fifo = folder / "pipe"
    os.mkfifo(fifo)
    with reading(fifo) as got:
        assert export(demo_server, "-o", str(fifo)) == 0
        assert got().decode("utf-8") == text
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert names(folder) == ["pipe"]
    assert f"to {fifo}" in capsys.readouterr().err


def test_insights_into_a_fifo_too(demo_server, folder, capsys):
    fifo = folder / "pipe"
    os.mkfifo(fifo)
    with reading(fifo) as got:
        argv = ["insights", CID, "--url", demo_server.base_url, "-o", str(fifo)]
        assert main(argv) == 0
        assert got().decode("utf-8").startswith("# Insights: ")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_socket_is_connected_to_not_replaced(folder):
    path = folder / "s.sock"
    got: list[bytes] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(1)

        def serve() -> None:
            conn, _ = server.accept()
            with conn, conn.makefile("rb") as stream:
                got.append(stream.read())

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        where = write_text(path, "über\n")
        thread.join()
    assert got == ["über\n".encode()] and where.kind == "stream"
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


# --- regular files: replaced whole, through a temporary file no one can plant ---------------


def test_a_planted_part_link_is_never_followed(demo_server, folder, capsys):
    victim = folder / "victim.txt"
    victim.write_text("precious\n")
    target = folder / "out.md"
    (folder / "out.md.part").symlink_to(victim)
    (folder / "new.md.part").symlink_to(folder / "created-by-the-link")
    assert export(demo_server, "-o", str(target)) == 0
    assert export(demo_server, "-o", str(folder / "new.md")) == 0
    assert victim.read_text() == "precious\n"
    assert os.readlink(folder / "out.md.part") == str(victim)
    assert not os.path.lexists(folder / "created-by-the-link")
    text = expected_markdown(demo_server, capsys)
    assert target.read_text(encoding="utf-8") == text
    assert names(folder) == ["new.md", "new.md.part", "out.md", "out.md.part", "victim.txt"]


def test_a_file_is_replaced_whole_keeping_its_mode(demo_server, folder, capsys):
    target = folder / "out.md"
    target.write_text("old\n")
    target.chmod(0o640)
    os.link(target, folder / "old-copy")  # the old file itself is never written into
    before = target.stat()
    assert export(demo_server, "-o", str(target)) == 0
    after = target.stat()
    assert after.st_ino != before.st_ino and stat.S_IMODE(after.st_mode) == 0o640
    assert (folder / "old-copy").read_text() == "old\n"
    assert target.read_text(encoding="utf-8") == expected_markdown(demo_server, capsys)
    assert names(folder) == ["old-copy", "out.md"]
    fresh = folder / "fresh.jsonl"
    assert export(demo_server, "-o", str(fresh)) == 0
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600  # a conversation is private


def test_a_failed_export_leaves_the_old_file_and_no_debris(demo_server, folder, capsys):
    target = folder / "out.md"
    target.write_text("old\n")
    inode = target.stat().st_ino
    assert main(["export", "0" * 32, "--url", demo_server.base_url, "-o", str(target)]) == 2
    assert "conversation not found" in capsys.readouterr().err
    assert target.read_text() == "old\n" and target.stat().st_ino == inode
    assert names(folder) == ["out.md"]


def test_the_writer_cleans_up_whatever_stops_it(folder):
    target = folder / "out.md"
    target.write_text("old\n")
    for stop in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(stop)), open_output(target) as out:
            out.write("half")
            raise stop
    assert target.read_text() == "old\n" and names(folder) == ["out.md"]


def test_an_exclusive_write_never_takes_a_name_taken_meanwhile(folder):
    target = folder / "new.md"
    with (
        pytest.raises(OutputError, match="already exists"),
        open_output(target, exclusive=True) as out,
    ):
        out.write("mine")
        target.write_text("theirs")  # another program got there first
    assert target.read_text() == "theirs" and names(folder) == ["new.md"]
    with pytest.raises(OutputError, match="already exists"):
        write_text(target, "mine", exclusive=True)
    (folder / "dangling.md").symlink_to(folder / "nowhere")
    with pytest.raises(OutputError, match="already exists"):
        write_export([], folder / "dangling.md", exclusive=True)
    assert not (folder / "nowhere").exists()


# --- links named by the user: resolved once, and said -------------------------------------


def test_a_link_named_is_written_through_once_and_said(demo_server, folder, capsys):
    real = folder / "real"
    real.mkdir()
    (real / "target.md").write_text("old\n")
    link = folder / "link.md"
    link.symlink_to("real/target.md")  # relative: resolved from the link's folder
    assert export(demo_server, "-o", str(link)) == 0
    err = capsys.readouterr().err
    assert f"to {real / 'target.md'} (through the link {link})" in err
    assert link.is_symlink() and os.readlink(link) == "real/target.md"
    assert (real / "target.md").read_text(encoding="utf-8") == expected_markdown(
        demo_server, capsys
    )
    assert names(folder) == ["link.md", "real"] and names(real) == ["target.md"]
    argv = ["insights", CID, "--url", demo_server.base_url, "-f", "json", "-o", str(link)]
    assert main(argv) == 0
    assert "(through the link" in capsys.readouterr().err and link.is_symlink()


def test_config_init_writes_through_a_dotfiles_link(folder, capsys):
    dotfiles = folder / "dotfiles" / "ohtui.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text("# mine\n")
    link = folder / "config.toml"
    link.symlink_to(dotfiles)
    assert main(["--config", str(link), "config", "init"]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["--config", str(link), "config", "init", "--force"]) == 0
    assert f"(through the link {link})" in capsys.readouterr().out
    assert link.is_symlink() and dotfiles.read_text().startswith("# ohtui configuration")
    assert stat.S_IMODE(dotfiles.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p.symlink_to(p.parent / "missing" / "x.md"), "which does not exist"),
        (lambda p: p.symlink_to(p.parent / "nowhere.md"), "which does not exist"),
        (lambda p: p.symlink_to(p), "loop of links"),
        (lambda p: p.mkdir(), "is a folder"),
    ],
)
def test_what_cannot_be_written_is_said_and_left_alone(demo_server, folder, capsys, make, says):
    path = folder / "out.md"
    make(path)
    before = names(folder)
    assert export(demo_server, "-o", str(path)) == 1
    err = capsys.readouterr().err
    assert err.startswith("ohtui export: ") and says in err and "Traceback" not in err
    assert names(folder) == before  # the dangling link's target is never created
    with pytest.raises(OutputError, match=says):
        destination(path)


def test_a_missing_folder_is_said(folder, demo_server, capsys):
    assert export(demo_server, "-o", str(folder / "no" / "out.md")) == 1
    assert "there is no folder" in capsys.readouterr().err
    assert names(folder) == []


# --- the app's ctrl+s: the same writer ------------------------------------------------------


async def test_ctrl_s_never_follows_a_planted_link(demo_server, folder, monkeypatch):
    """The first free name is taken only if nothing has it, not even a dangling link; the
    old ``.part`` attack (a dangling link whose target the write created) does nothing."""
    monkeypatch.chdir(folder)
    stem = f"ohtui-{CID[:8]}-steps"  # ctrl+s: the view shown, its steps
    (folder / f"{stem}.md").symlink_to(folder / "first-target")
    (folder / f"{stem}-2.md.part").symlink_to(folder / "part-target")
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, CID)
        await wait_for(lambda: list_ready(screen) and tree_ready(screen), pilot=pilot)
        await pilot.press("ctrl+s")
        written = folder / f"{stem}-2.md"
        await wait_for(written.exists, pilot=pilot)
        await wait_for(lambda: screen.export_run is None, pilot=pilot)
    assert written.read_text(encoding="utf-8").startswith("# Write hello.py and run it")
    assert not written.is_symlink() and stat.S_IMODE(written.stat().st_mode) == 0o600
    assert not os.path.lexists(folder / "first-target")
    assert not os.path.lexists(folder / "part-target")
    assert names(folder) == sorted([f"{stem}.md", f"{stem}-2.md", f"{stem}-2.md.part"])
