"""The Files screen as people see it, at 80×24 and 160×48: a workspace folder with a file
under the cursor shown beside it, and a file's text read with its syntax colours; at 80×24,
a workspace named relatively (the files git knows, and the one note saying why)."""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import conversations_shown, make_app, settled, wait_for
from tests.helpers.workspace_helpers import need_git
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.files.files import FilesScreen
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.workspace.file_view import FileView
from tui.server import Store, load_demo

IDS = load_demo(Store())


def files_shown(folder: str | None, file: str, enter: bool, top: str = "/workspace/project"):
    async def run_before(pilot):
        app = pilot.app
        app.animation_level = "none"
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(IDS["hello"])
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: app.screen.conversation is not None, pilot=pilot)
        await pilot.press("F")
        await wait_for(
            lambda: (
                isinstance(app.screen, FilesScreen)
                and app.screen.listing is not None
                and app.screen.listing.path == top
            ),
            pilot=pilot,
        )
        screen = app.screen
        if folder is not None:
            assert screen.query_one(FittedTable).cursor_to(f"d:{folder}")
            await pilot.press("enter")
            await wait_for(lambda: screen.listing.path == folder, pilot=pilot)
        assert screen.query_one(FittedTable).cursor_to(f"f:{file}")
        if enter:
            await pilot.press("enter")
        await wait_for(
            lambda: screen.shown_path == file and screen.query_one(FileView)._spans, pilot=pilot
        )
        await settled(pilot)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_files_a_folder_and_the_file_under_the_cursor(snap_compare, demo_server, size):
    need_git()
    app = make_app(demo_server.base_url)
    before = files_shown(None, "/workspace/project/README.md", enter=False)
    assert snap_compare(app, run_before=before, terminal_size=size)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_files_a_file_read_with_its_colours(snap_compare, demo_server, size):
    need_git()
    app = make_app(demo_server.base_url)
    before = files_shown("/workspace/project/cli", "/workspace/project/cli/main.py", enter=True)
    assert snap_compare(app, run_before=before, terminal_size=size)


@pytest.fixture
def relative_server(make_server):
    """A demo server whose sandboxes name their workspace ".", as app server 1.11.0's
    process sandboxes do: no folder of it can be listed."""
    need_git()
    store = Store()
    load_demo(store)
    server = make_server(store, relative_working_dir=True)
    yield server
    server.stop()
    store.close()


def test_files_a_workspace_named_relatively(snap_compare, relative_server):
    app = make_app(relative_server.base_url)
    before = files_shown(None, "hello.py", enter=False, top=".")
    assert snap_compare(app, run_before=before, terminal_size=(80, 24))
