"""The lists stay fresh and keep their place (issue 16 item 9, issue 14 item 7 list half).

Statuses changed elsewhere and conversations started elsewhere show without ctrl+r; the
cursor stays on its row by id across refreshes, reorderings and a return from another
screen; sub-conversations sit under their parents; times tick; counts say "1 sandbox";
whole ids are reachable (the detail line, ``c``); ``g``/``G``/``home``/``end`` in tables.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.helpers.app_helpers import (
    DEMO_ROWS,
    FIXED_NOW,
    SIZE,
    conversations_shown,
    make_app,
    screen_text,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversations import conversations as conversations_module
from tui.app.screens.sandboxes import sandboxes_poll
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.widgets.common.fitted_table import FittedTable
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation


@pytest.fixture
def fast_polls(monkeypatch):
    """Polls every 50 ms, so a test waits on what it shows, not on the clock."""
    monkeypatch.setattr(conversations_module, "POLL_S", 0.05)
    monkeypatch.setattr(sandboxes_poll, "IDLE_POLL_S", 0.05)


def keys(table: FittedTable) -> list[str]:
    return table.keys


def detail_text(app) -> str:
    return str(app.screen.query_one("#conversations-detail").render())


async def _listed(app, pilot, rows: int = DEMO_ROWS) -> FittedTable:
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    table = app.screen.query_one(FittedTable)
    await wait_for(lambda: table.row_count == rows, pilot=pilot)
    return table


async def test_a_status_changed_elsewhere_shows_and_the_cursor_stays(make_server, fast_polls):
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        table = await _listed(app, pilot)
        table.cursor_to(names["payments"])
        record = store.get_conversation(names["payments"])
        sandbox = record["sandbox_id"]
        before = store.get_sandbox(sandbox)["status"]
        target = "PAUSED" if before != "PAUSED" else "RUNNING"
        (server.lifecycle.pause_sandbox if target == "PAUSED" else server.lifecycle.resume_sandbox)(
            sandbox
        )
        screen = app.screen
        await wait_for(
            lambda: str(getattr(screen._rows[names["payments"]], "sandbox_status", "")).endswith(
                target
            ),
            pilot=pilot,
        )
        assert table.current_key == names["payments"]


async def test_a_conversation_started_elsewhere_comes_on_top(make_server, fast_polls):
    store = Store()
    load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        table = await _listed(app, pilot)
        await pilot.press("down", "down")
        chosen = table.current_key
        fresh = generate_conversation(store, 2, seed=77, title="started elsewhere")
        await wait_for(lambda: keys(table)[:1] == [fresh], pilot=pilot)
        assert table.current_key == chosen  # the cursor followed its row down
        assert table.row_count == DEMO_ROWS + 1
        assert "started elsewhere" in screen_text(app)


async def test_the_cursor_is_kept_by_id_through_refresh_and_a_return(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        table = await _listed(app, pilot)
        await pilot.press("down", "down", "down")
        chosen = table.current_key
        await pilot.press("ctrl+r")  # reloads the list from scratch
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)
        await wait_for(lambda: table.current_key == chosen, pilot=pilot)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        assert app.screen.query_one(FittedTable).current_key == chosen


async def test_the_sub_conversation_is_listed_under_its_parent(demo_server):
    names = load_demo(Store())
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        table = await _listed(app, pilot)
        screen = app.screen
        sub = screen._rows[names["sub"]]
        parent = sub.parent_conversation_id
        assert parent in screen._rows
        order = keys(table)
        assert order.index(names["sub"]) == order.index(parent) + 1
        title = table.get_cell(names["sub"], "title")
        assert title.plain.startswith("└ ")
        table.cursor_to(names["sub"])
        await settled(pilot)
        assert f"sub-conversation of {parent}" in detail_text(app)
        await pilot.press("enter")
        await wait_for(
            lambda: (
                isinstance(app.screen, ConversationScreen)
                and app.screen.conversation_id == names["sub"]
            ),
            pilot=pilot,
        )
        status = str(screen.query_one("#conversations-status").render())
        assert status.startswith("7 conversations + 1 sub-conversation")


async def test_relative_times_tick(make_server, fast_polls):
    store = Store()
    load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    now = [FIXED_NOW]
    app.clock = lambda: now[0]
    async with app.run_test(size=SIZE) as pilot:
        table = await _listed(app, pilot)
        first = keys(table)[0]
        before = table.get_cell(first, "updated").plain
        now[0] = FIXED_NOW + timedelta(days=400)
        await wait_for(lambda: table.get_cell(first, "updated").plain != before, pilot=pilot)
        assert table.get_cell(first, "updated").plain.endswith("y ago")


async def test_whole_ids_are_reachable_and_copied(demo_server):
    app = make_app(demo_server.base_url)
    copied: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        table = await _listed(app, pilot)
        await pilot.press("down")
        chosen = table.current_key
        await settled(pilot)
        assert detail_text(app).startswith(chosen)
        await pilot.press("c")
        assert copied == [chosen]
        conv = app.screen._rows[chosen]
        await pilot.press("i")  # the sandbox column names the sandbox
        await wait_for(
            lambda: conv.sandbox_id[:8] in table.get_cell(chosen, "sandbox").plain, pilot=pilot
        )
        assert table.current_key == chosen


async def test_plurals_and_table_keys_on_sandboxes(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await _listed(app, pilot)
        await pilot.press("2")
        await wait_for(lambda: isinstance(app.screen, SandboxesScreen), pilot=pilot)
        screen = app.screen
        table = screen.query_one(FittedTable)
        await wait_for(lambda: table.row_count >= 4, pilot=pilot)
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("j", "j")
        chosen = table.current_key
        await settled(pilot)
        assert str(screen.query_one("#sandboxes-detail").render()).startswith(chosen)
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("2")  # the same screen again: the cursor where it was
        await wait_for(lambda: isinstance(app.screen, SandboxesScreen), pilot=pilot)
        assert app.screen is screen and table.current_key == chosen
        for box in list(store.search_sandboxes(limit=50)[0])[1:]:
            server.lifecycle.delete_sandbox(box["id"])
        await pilot.press("ctrl+r")
        await wait_for(lambda: table.row_count == 1, pilot=pilot)
        assert str(screen.query_one("#sandboxes-status").render()).startswith("1 sandbox ·")


async def test_sandbox_ids_are_cut_in_the_middle_at_80_columns(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await _listed(app, pilot)
        await pilot.press("2")
        await wait_for(lambda: isinstance(app.screen, SandboxesScreen), pilot=pilot)
        table = app.screen.query_one(FittedTable)
        await wait_for(lambda: table.row_count >= 4, pilot=pilot)
        await settled(pilot)
        shown = [table.get_row(key)[0].plain for key in table.keys]
        assert all("…" in cell for cell in shown)
        assert len(set(shown)) == len(shown)  # each tells its sandbox apart
        for key, cell in zip(table.keys, shown):
            assert cell.endswith(key[-8:])


async def test_statuses_are_polled_only_while_the_list_is_shown(make_server):
    from tests.helpers.app_helpers import RecordingTransport

    store = Store()
    names = load_demo(store)
    server = make_server(store)
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        await _listed(app, pilot)
        listing = app.screen
        app.open_conversation(names["hello"])
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: not listing._polling, pilot=pilot)
        count = len(transport.queries("/app-conversations/search"))
        for _ in range(3):
            await listing.poll_statuses()  # what its timer does while a conversation is open
        await settled(pilot)
        assert not listing._polling
        assert len(transport.queries("/app-conversations/search")) == count
