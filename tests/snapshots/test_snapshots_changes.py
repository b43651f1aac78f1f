"""The Changes view as people see it, on the demo's running conversation (its workspace is a
real git repository): the files at 80×24, a unified diff there, and at 160×48 the lists
beside a side-by-side diff, and the same diff unified."""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import (
    first_rows_shown,
    make_app,
    push_conversation,
    settled,
    wait_for,
)
from tests.helpers.workspace_helpers import need_git
from tui.app.screens.changes import ChangesScreen
from tui.app.widgets.workspace.changes_tables import FilesTable
from tui.app.widgets.workspace.diff_view import DiffView
from tui.server import Store, load_demo


@pytest.fixture
def demo(make_server):
    need_git()
    store = Store()
    names = load_demo(store)
    return make_server(store), names


def shown(cid: str, path: str | None = None, keys: tuple[str, ...] = ()):
    async def run_before(pilot):
        app = pilot.app
        app.animation_level = "none"
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: first_rows_shown(screen) and screen.live is not None, pilot=pilot)
        await pilot.press("w")
        await wait_for(lambda: isinstance(app.screen, ChangesScreen), pilot=pilot)
        changes = app.screen
        await wait_for(lambda: changes.changes is not None, pilot=pilot)
        await settled(pilot)
        if path is not None:
            table = changes.query_one("#changes-files", FilesTable)
            table.focus()
            table.move_cursor(row=table.keys.index(path))
            await pilot.press("enter")
            await wait_for(
                lambda: changes.shown_path == path and changes.query_one(DiffView).diff is not None,
                pilot=pilot,
            )
        await pilot.press(*keys)
        await settled(pilot)

    return run_before


def test_changes_at_80x24(snap_compare, demo):
    server, names = demo
    app = make_app(server.base_url)
    assert snap_compare(app, run_before=shown(names["hello"]), terminal_size=(80, 24))


def test_a_unified_diff_at_80x24(snap_compare, demo):
    server, names = demo
    app = make_app(server.base_url)
    run = shown(names["hello"], "cli/main.py")
    assert snap_compare(app, run_before=run, terminal_size=(80, 24))


def test_changes_side_by_side_at_160x48(snap_compare, demo):
    server, names = demo
    app = make_app(server.base_url)
    run = shown(names["hello"], "cli/main.py")
    assert snap_compare(app, run_before=run, terminal_size=(160, 48))


def test_changes_unified_at_160x48(snap_compare, demo):
    server, names = demo
    app = make_app(server.base_url)
    run = shown(names["hello"], "cli/main.py", ("s",))
    assert snap_compare(app, run_before=run, terminal_size=(160, 48))
