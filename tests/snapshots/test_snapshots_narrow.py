"""Every screen at 80×24 (the size a new terminal opens at), and the dialogs at the default
size too: what people see, pinned at a fixed clock."""

from __future__ import annotations

from textual.widgets import OptionList

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    make_app,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tests.snapshots.test_snapshots import StalledEvents, _open, _table_ready, open_stalled
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.filter_dialog import FilterDialog
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.errors import ConnectionErrorScreen
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.widgets.conversation.event_list import EventList

NARROW = (80, 24)


def _snap(snap_compare, url: str, run_before, size=NARROW, **options) -> bool:
    return snap_compare(make_app(url, **options), run_before=run_before, terminal_size=size)


def test_conversations_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        await _table_ready(pilot, 7)

    assert _snap(snap_compare, demo_server.base_url, run_before)


def test_conversation_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        await _open(pilot, "hello", select="$ python3")

    assert _snap(snap_compare, demo_server.base_url, run_before)


def test_conversation_tree_focused_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        screen = await _open(pilot, "branches")
        await pilot.press("t", "down", "right")
        await settled(pilot)
        assert screen.focused is screen.query_one("#event-tree")

    assert _snap(snap_compare, demo_server.base_url, run_before)


def test_conversation_loading_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        await open_stalled(pilot)

    assert _snap(snap_compare, demo_server.base_url, run_before, transport=StalledEvents())


async def _filter_dialog(pilot) -> None:
    await _open(pilot, "hello")
    await pilot.press("f")
    app = pilot.app
    await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
    dialog = app.screen
    # every kind and the total counted ("hide plumbing" has no count)
    await wait_for(
        lambda: len(dialog.counts) == dialog.query_one(OptionList).option_count - 1, pilot=pilot
    )
    await settled(pilot)


def test_filter_dialog_80x24(snap_compare, demo_server):
    assert _snap(snap_compare, demo_server.base_url, _filter_dialog)


def test_filter_dialog_default_size(snap_compare, demo_server):
    assert _snap(snap_compare, demo_server.base_url, _filter_dialog, size=SIZE)


def test_filtered_conversation_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        screen = await _open(pilot, "hello")
        screen.filter_kind("ActionEvent")
        await wait_for(
            lambda: (
                screen.window.query.selected_kinds == {"ActionEvent"}
                and screen.window.total is not None
                and screen.query_one(EventList).source is screen.window
            ),
            pilot=pilot,
        )
        await settled(pilot)

    assert _snap(snap_compare, demo_server.base_url, run_before)


def test_find_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        screen = await _open(pilot, "hello")
        await pilot.press("slash", *"hello", "enter", "n", "n")
        status = screen.query_one("#find-status")
        await wait_for(lambda: str(status.content).startswith("hit 3 of"), pilot=pilot)
        await settled(pilot)

    assert _snap(snap_compare, demo_server.base_url, run_before)


def test_help_80x24(snap_compare, demo_server):
    async def run_before(pilot):
        await _open(pilot, "hello")
        await pilot.press("question_mark")
        await settled(pilot)

    assert _snap(snap_compare, demo_server.base_url, run_before)


async def _sandboxes(pilot) -> None:
    app = pilot.app
    await _table_ready(pilot, 7)
    await pilot.press("2")
    await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
    table = app.screen.query_one("DataTable")
    await wait_for(lambda: table.row_count >= 4, pilot=pilot)
    await settled(pilot)


def test_sandboxes_80x24(snap_compare, demo_server):
    assert _snap(snap_compare, demo_server.base_url, _sandboxes)


async def _confirm(pilot) -> None:
    await _sandboxes(pilot)
    await pilot.press("d")
    await wait_for(lambda: isinstance(pilot.app.screen, ConfirmScreen), pilot=pilot)
    await settled(pilot)


def test_confirm_dialog_80x24(snap_compare, demo_server):
    assert _snap(snap_compare, demo_server.base_url, _confirm)


def test_confirm_dialog_default_size(snap_compare, demo_server):
    assert _snap(snap_compare, demo_server.base_url, _confirm, size=SIZE)


async def _new_conversation(pilot) -> None:
    await _table_ready(pilot, 7)
    await pilot.press("n")
    await wait_for(lambda: isinstance(pilot.app.screen, NewConversationScreen), pilot=pilot)
    await settled(pilot)


def test_new_conversation_dialog_80x24(snap_compare, demo_server):
    assert _snap(snap_compare, demo_server.base_url, _new_conversation)


def test_new_conversation_dialog_default_size(snap_compare, demo_server):
    assert _snap(snap_compare, demo_server.base_url, _new_conversation, size=SIZE)


def test_error_screen_80x24(snap_compare):
    async def run_before(pilot):
        app = pilot.app
        await wait_for(
            lambda: isinstance(app.screen, ConnectionErrorScreen), timeout=30, pilot=pilot
        )
        await settled(pilot)

    assert _snap(snap_compare, "http://127.0.0.1:9", run_before)


def test_waiting_for_approval_80x24(snap_compare, make_server):
    from tui.server import Store, load_demo

    store = Store()
    names = load_demo(store)
    server = make_server(store, clock=lambda: 1_795_000_000.0)

    async def run_before(pilot):
        app = pilot.app
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(names["confirm"])
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(
            lambda: (
                screen.events.base.complete
                and screen.live is not None
                and screen.live.waiting_for_confirmation
            ),
            pilot=pilot,
        )
        await wait_for(lambda: "A Approve" in screen_text(app), pilot=pilot)
        detail = screen.query_one("#event-detail")
        await wait_for(lambda: detail._event is not None, pilot=pilot)
        await settled(pilot)

    assert _snap(snap_compare, server.base_url, run_before)
