"""The Files screen driven by keys against the reference server's demo (its workspace is a real
git repository): browsing folders, a file shown literally with its colours, a binary and a
too large file as a size and a word, saving without overwriting, a new folder, read-only
refusing it, a paused sandbox and a missing route said in words, the trajectory zip."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    dialog_ready,
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
from tui.app.commands import OhtuiCommands
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.files.files import FOLDERS_ONLY, FilesScreen
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.workspace.file_view import FileView
from tui.server import Store, load_demo

IDS = load_demo(Store())


@pytest.fixture
def demo(make_server) -> Iterator[Any]:
    """A demo server of the test's own: these tests write into its workspace."""
    need_git()
    store = Store()
    load_demo(store)
    server = make_server(store)
    yield server
    server.stop()
    store.close()


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """The working directory saves go to."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def listed(screen: FilesScreen, path: str) -> bool:
    return screen.listing is not None and screen.listing.path == path and bool(rows(screen))


async def open_files(pilot, cid: str = IDS["hello"]) -> FilesScreen:
    await push_conversation(pilot, cid)
    await wait_for(lambda: screen_ready(pilot.app, ConversationScreen), pilot=pilot)
    await pilot.press("F")
    await wait_for(lambda: screen_ready(pilot.app, FilesScreen), pilot=pilot)
    screen = pilot.app.screen
    await wait_for(lambda: listed(screen, "/workspace/project"), pilot=pilot)
    return screen


async def test_files_lists_folders_and_the_files_git_knows_and_moves_between_them(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_files(pilot)
        assert names(screen) == [
            "assets/",
            "cli/",
            "docs/",
            "src/",
            "tests/",
            "hello.py",
            "README.md",
        ]
        text = screen_text(app)
        assert "Files · Write hello.py and run it" in text and "/workspace/project" in text
        assert FOLDERS_ONLY[:60] in text
        assert "5 folders · 2 files" in text
        assert screen.check_action("up", ()) is False  # the workspace's top folder

        await choose(pilot, screen, "d:/workspace/project/src")
        await pilot.press("enter")
        await wait_for(lambda: listed(screen, "/workspace/project/src"), pilot=pilot)
        assert names(screen) == ["../", "payments/"]
        assert "project/src" in screen_text(app)
        await pilot.press("backspace")
        await wait_for(lambda: listed(screen, "/workspace/project"), pilot=pilot)
        assert screen.query_one(FittedTable).current_key == "d:/workspace/project/src"

        await pilot.press("escape")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        palette = [name for name, _, _ in OhtuiCommands(app.screen)._commands()]
        assert "Files" in palette and "Download trajectory zip" in palette


async def test_a_file_is_shown_literally_with_the_themes_colours(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_files(pilot)
        await choose(pilot, screen, "d:/workspace/project/cli")
        await pilot.press("enter")
        await wait_for(lambda: listed(screen, "/workspace/project/cli"), pilot=pilot)
        await choose(pilot, screen, "f:/workspace/project/cli/main.py")
        await pilot.press("enter")
        path = "/workspace/project/cli/main.py"
        await wait_for(lambda: shown(screen, path) and view(screen)._spans, pilot=pilot)
        assert isinstance(app.focused, FileView)
        lines = view(screen).text_lines
        assert lines[0] == "import argparse" and len(lines) == 7
        assert view(screen).border_subtitle == "182 bytes · 7 lines · Python"
        assert "keyword" in {name for _, _, name in view(screen)._spans[0]}
        assert "1 import argparse" in screen_text(app)
        await pilot.press("escape")  # from the text back to the list, then out
        assert app.focused is screen.query_one(FittedTable)


async def test_hostile_text_is_literal_and_secrets_are_masked(demo, workdir):
    root = demo.store.workspace.root
    hostile = "\x1b[31mred\x1b]52;c;aGk=\x07 [bold]not bold[/bold]\ttab\nAPI_KEY=sk-abcdefghijklmnopqrstuvwx1234\n"
    (root / "notes.txt").write_text(hostile, encoding="utf-8")
    (root / "\x1b[2J[bold]evil").mkdir()  # a folder's name is the server's text too
    app = make_app(demo.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_files(pilot)
        assert "␛[2J[bold]evil/" in names(screen)
        await name_path(pilot, "notes.txt")
        path = "/workspace/project/notes.txt"
        await wait_for(lambda: shown(screen, path), pilot=pilot)
        lines = view(screen).text_lines
        assert lines[0] == "␛[31mred␛]52;c;aGk=␇ [bold]not bold[/bold]\ttab".expandtabs(4)
        assert lines[1] == "API_KEY=‹redacted›"
        assert "secret-shaped text masked" in view(screen).border_subtitle
        assert "\x1b" not in screen_text(app) and "sk-abcdef" not in screen_text(app)
        # named, it is listed in its folder from now on
        await wait_for(lambda: f"f:{path}" in rows(screen), pilot=pilot)
        await pilot.press("s")
        await wait_for(lambda: (workdir / "notes.txt").exists(), pilot=pilot)
    assert (workdir / "notes.txt").read_bytes() == hostile.encode()  # saved exactly


async def test_binary_empty_and_too_large_files_are_a_size_and_a_word(demo):
    root = demo.store.workspace.root
    (root / "empty.txt").write_bytes(b"")
    (root / "big.log").write_bytes(b"x" * (3 * 1024 * 1024))
    app = make_app(demo.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_files(pilot)
        await choose(pilot, screen, "d:/workspace/project/assets")
        await pilot.press("enter")
        await wait_for(lambda: listed(screen, "/workspace/project/assets"), pilot=pilot)
        logo = "/workspace/project/assets/logo.png"
        await choose(pilot, screen, f"f:{logo}")
        await wait_for(lambda: shown(screen, logo), pilot=pilot)  # the cursor resting on it
        assert view(screen).text_lines == [
            "A binary file (272 bytes): not shown.",
            "s saves it to the working directory.",
        ]
        await name_path(pilot, "/workspace/project/empty.txt")
        await wait_for(lambda: shown(screen, "/workspace/project/empty.txt"), pilot=pilot)
        assert view(screen).text_lines == ["An empty file (0 bytes)."]
        await name_path(pilot, "../big.log")
        await wait_for(lambda: shown(screen, "/workspace/project/big.log"), pilot=pilot)
        assert view(screen).text_lines[0] == "Too large to show here (3.0 MB, over 2.0 MB)."
        assert "3.0 MB" in screen_text(app)


async def test_save_writes_the_file_under_a_free_name_never_over_one(demo, workdir):
    root = demo.store.workspace.root
    (workdir / "README.md").write_text("mine: never overwritten\n")
    app = make_app(demo.base_url)
    async with app.run_test(size=SIZE) as pilot:
        notes = notes_told(app)
        screen = await open_files(pilot)
        await choose(pilot, screen, "f:/workspace/project/README.md")
        await pilot.press("s")
        await wait_for(lambda: any(n.startswith("Saved README.md") for n in notes), pilot=pilot)
        await pilot.press("s")
        await wait_for(lambda: (workdir / "README-3.md").exists(), pilot=pilot)
    assert (workdir / "README.md").read_text() == "mine: never overwritten\n"
    assert (workdir / "README-2.md").read_bytes() == (root / "README.md").read_bytes()
    assert (workdir / "README-3.md").read_bytes() == (root / "README.md").read_bytes()
    said = next(n for n in notes if n.startswith("Saved README.md"))
    assert said == f"Saved README.md (48 bytes) to {workdir / 'README-2.md'}"
    assert sorted(p.name for p in workdir.iterdir()) == ["README-2.md", "README-3.md", "README.md"]


async def test_a_new_folder_is_made_in_the_workspace_and_listed(demo):
    root = demo.store.workspace.root
    app = make_app(demo.base_url)
    async with app.run_test(size=SIZE) as pilot:
        notes = notes_told(app)
        screen = await open_files(pilot)
        await name_path(pilot, "notes/drafts", key="n")
        await wait_for(
            lambda: screen.query_one(FittedTable).current_key == "d:/workspace/project/notes",
            pilot=pilot,
        )
        assert "Created the folder /workspace/project/notes/drafts" in notes
        await name_path(pilot, "README.md", key="n")  # a file is in the way
        await wait_for(lambda: any(n.startswith("Could not create") for n in notes), pilot=pilot)
    assert (root / "notes" / "drafts").is_dir()
    assert notes[-1] == (
        "Could not create /workspace/project/README.md: "
        "Path exists and is not a directory (HTTP 400)"
    )


async def test_read_only_refuses_a_new_folder_and_says_why(demo_server, monkeypatch):
    monkeypatch.setattr(refusals, "REASON_S", 1e9)
    app = make_app(demo_server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        notes = notes_told(app)
        screen = await open_files(pilot)
        assert screen.check_action("new_folder", ()) is False
        await pilot.press("n")
        await settled(pilot)
        assert app.screen is screen  # no dialog
        assert notes == [
            "Read-only mode: nothing can be changed (--readonly, readonly = true or OHTUI_READONLY)."
        ]
        assert "New folder" not in screen_text(app)  # not offered in the key bar


async def test_a_paused_sandbox_and_a_missing_route_are_said_in_words(demo, workdir):
    for route in (f"/api/conversations/{IDS['hello']}/file/download", "/api/file/download"):
        demo.app.state.faults.add(
            "status", route, times=-1, status=404, body='{"detail": "Not Found"}'
        )
    app = make_app(demo.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await push_conversation(pilot, IDS["branches"])  # its sandbox is paused
        await pilot.press("F")
        await wait_for(lambda: screen_ready(app, FilesScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: screen.error is not None, pilot=pilot)
        said = "The conversation's sandbox is paused: resume it (r on the sandboxes screen)"
        assert view(screen).text_lines[0].startswith(said)
        assert f"Could not list the workspace: {said}" in screen_text(app)
        await pilot.press("T")  # the trajectory needs no sandbox
        zipped = workdir / f"ohtui-{IDS['branches'][:8]}-trajectory.zip"
        await wait_for(zipped.exists, pilot=pilot)
        await pilot.press("escape")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        app.screen.dismiss()

        screen = await open_files(pilot)  # a running one, on a server without downloads
        await choose(pilot, screen, "f:/workspace/project/README.md")
        await wait_for(
            lambda: screen.query_one(FileView).border_subtitle == "not shown", pilot=pilot
        )
        (line,) = view(screen).text_lines
        assert line.startswith(f"The agent server at {demo.base_url}")
        assert line.endswith("has no file downloads (/api/file/download).")
    events = [
        n for n in zipfile.ZipFile(io.BytesIO(zipped.read_bytes())).namelist() if "/events/" in n
    ]
    assert len(events) == demo.store.count_events(IDS["branches"])


async def test_a_file_cut_short_says_what_happened_and_r_reads_it_again(demo):
    """A sandbox's agent server sends its own growing log cut short (the connection closed
    mid-body): the pane says so in words, and r reads it whole."""
    app = make_app(demo.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_files(pilot)
        demo.app.state.faults.add("cut_body", f"/api/conversations/{IDS['hello']}/file/download")
        await choose(pilot, screen, "f:/workspace/project/README.md")
        await wait_for(lambda: view(screen).border_subtitle == "not shown", pilot=pilot)
        said = (
            "The file came cut short: it changed while the server sent it (a file being "
            "written, such as a log) or the connection broke; read it again."
        )
        assert view(screen).text_lines == [said]
        await pilot.press("r")
        await wait_for(lambda: view(screen).border_subtitle != "not shown", pilot=pilot)
        await wait_for(lambda: shown(screen, "/workspace/project/README.md"), pilot=pilot)
        first = (demo.store.workspace.root / "README.md").read_text().splitlines()[0]
        await wait_for(lambda: first in view(screen).text_lines[0], pilot=pilot)


async def test_local_folders_have_no_files_to_browse(demo_server, monkeypatch):
    monkeypatch.setattr(refusals, "REASON_S", 1e9)
    app = make_app(demo_server.base_url, readonly=True, local=True)
    async with app.run_test(size=SIZE) as pilot:
        notes = notes_told(app)
        screen = await push_conversation(pilot, IDS["hello"])
        await pilot.press("F")
        await settled(pilot)
        assert app.screen is screen
        assert notes == ["Local folders have no workspace: ohtui reads only their events."]
        palette = [name for name, _, _ in OhtuiCommands(screen)._commands()]
        assert "Files" not in palette


async def test_a_bare_agent_server_is_browsed_directly(make_server, workdir):
    """No sandbox between: the conversation's agent server is the server itself."""
    from tests.server.test_agent_server_app import agent_app, agent_server

    need_git()
    server = agent_server(make_server)
    app = agent_app(server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_files(pilot)
        assert "hello.py" in names(screen) and "src/" in names(screen)
        await choose(pilot, screen, "f:/workspace/project/hello.py")
        await wait_for(lambda: shown(screen, "/workspace/project/hello.py"), pilot=pilot)
        assert view(screen).text_lines == ['print("hello")']
        await pilot.press("s")
        await wait_for(lambda: (workdir / "hello.py").exists(), pilot=pilot)
    assert (workdir / "hello.py").read_text() == 'print("hello")'


async def test_a_path_typed_in_one_burst_arrives_whole(demo):
    """A paste or a fast typist: the characters and the enter after them come in one read;
    enter answers with everything typed before it."""
    from tests.helpers.app_helpers import send_burst

    root = demo.store.workspace.root
    app = make_app(demo.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_files(pilot)
        await pilot.press("n")
        await wait_for(lambda: dialog_ready(app, PathDialog), pilot=pilot)
        send_burst(app, [(c, c) for c in "notes/today"] + [("enter", "\r")])
        await wait_for(
            lambda: screen.query_one(FittedTable).current_key == "d:/workspace/project/notes",
            pilot=pilot,
        )
    assert (root / "notes" / "today").is_dir()
