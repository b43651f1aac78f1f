"""The Files screen as its tests read and drive it: its rows, the file shown, the cursor put
on a row, a path typed into its dialog."""

from __future__ import annotations

from tests.helpers.app_helpers import dialog_ready, wait_for
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.files.files import FilesScreen
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.workspace.file_view import FileView


def rows(screen: FilesScreen) -> list[str]:
    return screen.query_one(FittedTable).keys


def names(screen: FilesScreen) -> list[str]:
    table = screen.query_one(FittedTable)
    return [str(table.get_cell(key, "name")) for key in table.keys]


def view(screen: FilesScreen) -> FileView:
    return screen.query_one(FileView)


def shown(screen: FilesScreen, path: str) -> bool:
    """``path`` is the file shown, loaded (or said why not)."""
    return screen.shown_path == path and view(screen).border_subtitle not in ("loading…", "")


async def choose(pilot, screen: FilesScreen, key: str) -> None:
    """The list's cursor onto the row ``key``."""
    table = screen.query_one(FittedTable)
    table.focus()
    assert table.cursor_to(key), f"no row {key}: {rows(screen)}"
    await wait_for(lambda: table.current_key == key, pilot=pilot)


async def name_path(pilot, text: str, key: str = "o") -> None:
    """Type ``text`` into the path dialog ``key`` opens, and enter it."""
    await pilot.press(key)
    await wait_for(lambda: dialog_ready(pilot.app, PathDialog), pilot=pilot)
    dialog = pilot.app.screen
    field = dialog.query_one("#path-input")
    field.value = text
    await pilot.press("enter")
    await wait_for(lambda: not isinstance(pilot.app.screen, PathDialog), pilot=pilot)
