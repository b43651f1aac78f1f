"""Sandbox keys refuse what cannot work, and a change the server never makes is not awaited forever."""

from __future__ import annotations

from tests.helpers.app_helpers import (
    SIZE,
    RecordingTransport,
    conversations_shown,
    make_app,
    screen_ready,
    settled,
    wait_for,
)
from tui.app.screens.sandboxes import sandboxes as sandboxes_module
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.server import Store, load_demo


async def _sandboxes(app, pilot):
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    await pilot.press("2")
    await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
    screen = app.screen
    table = screen.query_one("DataTable")
    await wait_for(lambda: table.row_count >= 3, pilot=pilot)
    return screen, table


def _select(screen, table, status: str) -> str:
    row = next(
        i for i, key in enumerate(table.rows) if screen._sandboxes[key.value].status == status
    )
    table.move_cursor(row=row)
    return list(table.rows)[row].value


async def test_pause_of_a_sandbox_in_error_is_refused_without_a_request(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store)
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await _sandboxes(app, pilot)
        screen.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        box_id = _select(screen, table, "ERROR")
        await pilot.press("p")
        await settled(pilot)
        assert any("Cannot pause a sandbox that is ERROR" in n for n in notes)
        assert not screen._pending
        assert not [r for r in transport.requests if r.method == "POST"]
        assert store.get_sandbox(box_id)["status"] == "ERROR"
        _select(screen, table, "RUNNING")
        await pilot.press("r")
        await settled(pilot)
        assert any("Cannot resume a sandbox that is RUNNING" in n for n in notes)


async def test_an_unconfirmed_change_is_dropped_with_a_notice(make_server, monkeypatch):
    store = Store()
    load_demo(store)
    server = make_server(store)
    server.app.state.faults.add(
        "status", "/api/v1/sandboxes/", status=200, body='{"success": true}', methods=("POST",)
    )
    monkeypatch.setattr(sandboxes_module, "PENDING_MAX_S", 0.5)
    app = make_app(server.base_url)
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        screen, table = await _sandboxes(app, pilot)
        screen.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        box_id = _select(screen, table, "RUNNING")
        await pilot.press("p")  # the server says yes but never pauses it
        await wait_for(lambda: box_id in screen._pending, pilot=pilot)
        await wait_for(lambda: not screen._pending, pilot=pilot)
        assert any("is still RUNNING" in n for n in notes)
        assert store.get_sandbox(box_id)["status"] == "RUNNING"
