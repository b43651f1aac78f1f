"""The Files screen on a sandbox that names its workspace relatively (``working_dir: "."``, as
app server 1.11.0's process sandboxes do), driven by keys against the reference server
reproducing it: what git lists is browsed in its folders, the one reason folders cannot be
listed is said once and no server refusal is shown raw; files are read and saved exactly
through the workspace route, or shown as git's text (said not exact) where there is none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    make_app,
    notes_told,
    push_conversation,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tests.helpers.files_helpers import choose, name_path, names, rows, shown, view
from tests.helpers.workspace_helpers import need_git
from tui.app import refusals
from tui.app.screens.files.files import FilesScreen
from tui.app.widgets.common.fitted_table import FittedTable
from tui.client.workspace_listing import RELATIVE
from tui.server import Store, load_demo

IDS = load_demo(Store())
NOTE = RELATIVE.format(root=".")


@pytest.fixture
def relative(make_server) -> Iterator[Any]:
    """A demo server whose sandboxes name their workspace "." (this test's own: it is
    written to)."""
    need_git()
    store = Store()
    load_demo(store)
    server = make_server(store, relative_working_dir=True)
    yield server
    server.stop()
    store.close()


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def listed(screen: FilesScreen, path: str) -> bool:
    return screen.listing is not None and screen.listing.path == path


async def open_files(pilot) -> FilesScreen:
    await push_conversation(pilot, IDS["hello"])
    await pilot.press("F")
    await wait_for(lambda: screen_ready(pilot.app, FilesScreen), pilot=pilot)
    screen = pilot.app.screen
    await wait_for(lambda: listed(screen, "."), pilot=pilot)
    return screen


def one_line(text: str) -> str:
    return " ".join(text.split())


async def test_files_browses_what_git_knows_and_says_why_once(relative, workdir, monkeypatch):
    monkeypatch.setattr(refusals, "REASON_S", 1e9)
    app = make_app(relative.base_url)
    async with app.run_test(size=SIZE) as pilot:
        notes = notes_told(app)
        screen = await open_files(pilot)
        assert names(screen) == ["assets/", "cli/", "tests/", "hello.py", "README.md"]
        text = screen_text(app)
        assert one_line(text).count(NOTE) == 1
        assert "must be absolute" not in text and "HTTP 400" not in text
        assert "3 folders · 2 files" in text and "╭─ ./ " in text

        await choose(pilot, screen, "f:hello.py")  # read exactly: no final newline
        await wait_for(lambda: shown(screen, "hello.py"), pilot=pilot)
        assert view(screen).text_lines == ['print("hello")']
        assert view(screen).border_subtitle == "14 bytes · 1 line · Python"
        await pilot.press("s")
        await wait_for(lambda: (workdir / "hello.py").exists(), pilot=pilot)
        assert (workdir / "hello.py").read_bytes() == b'print("hello")'

        await choose(pilot, screen, "d:cli")
        await pilot.press("enter")
        await wait_for(lambda: listed(screen, "cli"), pilot=pilot)
        assert names(screen) == ["../", "main.py"] and "./cli" in screen_text(app)
        await pilot.press("backspace")
        await wait_for(lambda: listed(screen, "."), pilot=pilot)
        assert screen.query_one(FittedTable).current_key == "d:cli"
        assert screen.check_action("up", ()) is False  # the workspace's top folder

        await name_path(pilot, "docs/usage.md")  # unchanged, named: its folder is known now
        await wait_for(lambda: shown(screen, "docs/usage.md"), pilot=pilot)
        assert view(screen).text_lines == ["Run `demo --help`."]
        await wait_for(lambda: "d:docs" in rows(screen), pilot=pilot)
        await name_path(pilot, "src")  # a folder, named without its slash
        await wait_for(lambda: listed(screen, "src"), pilot=pilot)
        assert rows(screen) == ["up"]
        assert view(screen).text_lines[:2] == [
            "Nothing here that can be listed:",
            "no folder, no file git lists as changed.",
        ]

        await pilot.press("n")
        await settled(pilot)
        assert app.screen is screen  # no dialog
    assert notes[-1] == (
        "This server names its workspace '.', a relative path: no folder can be made in it."
    )


async def test_without_the_workspace_route_a_file_is_gits_text(relative, workdir):
    relative.app.state.faults.add(
        "status",
        f"/api/conversations/{IDS['hello']}/workspace/",
        times=-1,
        status=404,
        body='{"detail": "Not Found"}',
    )
    app = make_app(relative.base_url)
    async with app.run_test(size=SIZE) as pilot:
        notes = notes_told(app)
        screen = await open_files(pilot)
        await choose(pilot, screen, "f:hello.py")
        await wait_for(lambda: shown(screen, "hello.py"), pilot=pilot)
        assert view(screen).text_lines == ['print("hello")']
        assert view(screen).border_subtitle == "14 bytes · 1 line · Python · git's text, not exact"
        await choose(pilot, screen, "f:README.md")
        await wait_for(lambda: shown(screen, "README.md"), pilot=pilot)
        await choose(pilot, screen, "d:assets")
        await pilot.press("enter")
        await wait_for(lambda: listed(screen, "assets"), pilot=pilot)
        await choose(pilot, screen, "f:assets/logo.png")
        await wait_for(lambda: shown(screen, "assets/logo.png"), pilot=pilot)
        assert view(screen).text_lines == [
            "Git gives no text for it: it is empty, binary or a folder."
        ]
        await pilot.press("s")
        await wait_for(lambda: any(n.startswith("Could not save") for n in notes), pilot=pilot)
    told = [n for n in notes if n.startswith("Git's text of the file")]
    said = (
        "Git's text of the file, not its bytes (this server serves no file by a relative "
        "path): line ends shown as \\n, no final newline."
    )
    assert told == [said]  # once, for the two files read so
    assert notes[-1] == (
        f"Could not save logo.png: The agent server at {relative.base_url} has no way to read "
        "a file by a relative path (/api/conversations/{id}/workspace/…)."
    )
    assert list(workdir.iterdir()) == []
