"""``ohtui download`` and ``ohtui FILE.zip`` as a person runs them, through ``tui.cli.main``
against the reference server's demo: the trajectory zip is written (never over a file it did
not name), opened read-only like a local folder with its events listed, its temporary
folder removed when the app ends; a zip that climbs out of its folder, holds a link, or
would unpack to too much (a zip bomb) is refused in words and leaves nothing behind.

Every test runs with HOME and XDG_* inside ``tmp_path`` and no OHTUI_* variable inherited.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.app_helpers import SIZE, conversations_shown, list_ready, wait_for
from tui.app.app import OhtuiApp
from tui.cli import main
from tui.commands import trajectory_zip
from tui.server import Store, load_demo


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> None:
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)


@pytest.fixture
def demo(make_server) -> Any:
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    yield server, names
    server.stop()
    store.close()


@pytest.fixture
def temp_folders(monkeypatch) -> list[Path]:
    """Every folder a zip was unpacked into."""
    made: list[Path] = []
    real = trajectory_zip.open_zip

    def recording(path: str):
        opened = real(path)
        made.append(opened.folder)
        return opened

    monkeypatch.setattr(trajectory_zip, "open_zip", recording)
    return made


def test_download_writes_the_zip_under_a_free_name_or_where_o_says(demo, capsys) -> None:
    server, names = demo
    cid = names["branches"]  # a paused sandbox: the app server's store answers all the same
    Path(f"ohtui-{cid[:8]}-trajectory.zip").write_text("mine")
    assert main(["download", cid, "--url", server.base_url]) == 0
    second = Path(f"ohtui-{cid[:8]}-trajectory-2.zip").resolve()
    err = capsys.readouterr().err
    assert f"wrote the trajectory of {cid} (" in err and f"to {second}" in err
    assert f"open it read-only: ohtui {second}" in err
    assert Path(f"ohtui-{cid[:8]}-trajectory.zip").read_text() == "mine"
    names_in = zipfile.ZipFile(second).namelist()
    assert f"{cid}/meta.json" in names_in
    assert sum("/events/" in n for n in names_in) == server.store.count_events(cid)
    assert stat.S_IMODE(second.stat().st_mode) == 0o600

    assert main(["download", cid, "--url", server.base_url, "-o", "mine.zip"]) == 0
    # the same files (the server stamps each entry with the time it zips it: not the bytes)
    mine, first = zipfile.ZipFile("mine.zip"), zipfile.ZipFile(second)
    assert [(i.filename, mine.read(i)) for i in mine.infolist()] == [
        (i.filename, first.read(i)) for i in first.infolist()
    ]


def test_download_failures_are_one_sentence(demo, capsys) -> None:
    server, _ = demo
    assert main(["download", "0" * 32, "--url", server.base_url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ohtui download: ") and "Traceback" not in err
    assert not list(Path().iterdir())  # nothing left behind
    assert main(["download"]) == 2
    assert main(["download", "./some/folder"]) == 2
    assert "is a local folder" in capsys.readouterr().err


def run_headless(monkeypatch, seen: dict[str, Any]) -> None:
    """``OhtuiApp.run`` drives the app with Pilot instead of a terminal: the conversations
    listed, the first one opened and its events counted."""

    def run(app: OhtuiApp, *args: Any, **kwargs: Any) -> None:
        async def drive() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(lambda: conversations_shown(app), pilot=pilot)
                table = app.screen.query_one("DataTable")
                await wait_for(lambda: table.row_count > 0, pilot=pilot)
                seen["ids"] = [key.value for key in table.rows]
                seen["local"], seen["readonly"] = app.local, app.readonly
                seen["during"] = [folder.exists() for folder in seen.get("folders", [])]
                screen = app.open_conversation(seen["ids"][0])
                await screen
                await wait_for(lambda: list_ready(app.screen), pilot=pilot)
                seen["events"] = app.screen.window.events  # its rows stand for them all

        asyncio.run(drive())

    monkeypatch.setattr(OhtuiApp, "run", run)


def test_ohtui_zip_opens_the_trajectory_read_only_and_cleans_up(
    demo, monkeypatch, temp_folders
) -> None:
    server, names = demo
    cid = names["hello"]
    assert main(["download", cid, "--url", server.base_url, "-o", "hello.zip"]) == 0
    seen: dict[str, Any] = {"folders": temp_folders}
    run_headless(monkeypatch, seen)
    assert main(["hello.zip"]) == 0
    assert seen["ids"] == [cid]
    assert seen["local"] and seen["readonly"]
    assert seen["during"] == [True]  # unpacked while the app ran
    assert seen["events"] == server.store.count_events(cid)
    (folder,) = temp_folders
    assert not folder.exists() and not folder.parent.exists()  # removed when it ended


def evil_zip(path: Path, entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return path


def a_link(name: str, target: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return (info, target.encode())


EVENT = json.dumps({"id": "e1", "kind": "MessageEvent"}).encode()


@pytest.mark.parametrize(
    ("entries", "said"),
    [
        ([("c1/events/event-00000-e1.json", EVENT), ("../evil", b"x")], "leaves its folder"),
        ([("c1/events/event-00000-e1.json", EVENT), ("c1/../../evil", b"x")], "leaves its folder"),
        ([("/etc/evil", b"x")], "an absolute name"),
        ([a_link("c1/events", "/etc")], "a link"),
        ([("c1\\..\\evil", b"x")], "a backslash"),
        ([("c1/events/event-00000-e1.json", EVENT)] * 2, "twice"),
        ([("notes.txt", b"no conversation here")], "holds no OpenHands conversation"),
    ],
    ids=["dotdot", "dotdot-inside", "absolute", "link", "backslash", "twice", "no-conversation"],
)
def test_a_zip_that_escapes_or_lies_is_refused(
    tmp_path, capsys, temp_folders, entries, said
) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the duplicate name: zipfile warns while writing it
        path = evil_zip(Path("evil.zip"), entries)
    before = set(Path(tempfile.gettempdir()).glob("ohtui-zip-*"))
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ohtui: evil.zip cannot be opened: ") and said in err
    assert not (tmp_path / "evil").exists() and not Path("/etc/evil").exists()
    assert set(Path(tempfile.gettempdir()).glob("ohtui-zip-*")) == before


def test_a_zip_bomb_is_refused_before_and_while_unpacking(capsys, monkeypatch) -> None:
    monkeypatch.setattr(trajectory_zip, "MAX_UNPACKED", 4 * 1024 * 1024)
    zeros = b"\0" * (5 * 1024 * 1024)  # 5 MB of zeros: about 5 KB packed
    path = evil_zip(Path("bomb.zip"), [("c1/events/event-00000-e1.json", zeros)])
    assert path.stat().st_size < 64 * 1024
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert "cannot be opened: it would unpack" in err and "(a zip bomb?)" in err

    # a zip's declared sizes can lie: zipfile stops an entry at its declared size (the CRC
    # then fails, said in words), and the bytes really unpacked are counted besides, so even
    # with the declared total left unchecked the bomb stops at the bound
    monkeypatch.setattr(
        trajectory_zip, "_checked", lambda infos: [(i, trajectory_zip._parts(i)) for i in infos]
    )
    assert main([str(path)]) == 2
    assert "cannot be opened: it would unpack more than" in capsys.readouterr().err


def test_too_many_entries_are_refused(capsys, monkeypatch) -> None:
    monkeypatch.setattr(trajectory_zip, "MAX_ENTRIES", 3)
    entries = [(f"c1/events/event-{n:05d}-e{n}.json", EVENT) for n in range(4)]
    path = evil_zip(Path("many.zip"), entries)
    assert main([str(path)]) == 2
    assert "it holds 4 entries (at most 3 are opened)" in capsys.readouterr().err
