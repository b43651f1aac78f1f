"""Failures as people meet them, against the reference server: ``e``/``E`` land on failed
commands, insights count the rows and marks the list shows, and the time a user takes to
approve an action is never tool time."""

from __future__ import annotations

import json
import os

import httpx
import pytest

from tests.helpers.app_helpers import (
    SIZE,
    list_ready,
    make_app,
    push_conversation,
    screen_text,
    tree_ready,
    wait_for,
)
from tui.app.screens import insights as insights_screen
from tui.app.screens.insights import InsightsScreen
from tui.app.widgets.conversation.event_list import EventList
from tui.cli import main
from tui.server import Store, load_demo

IDS = load_demo(Store())


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """The CLI reads settings: keep it away from the real home and inherited OHTUI_*."""
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))
    insights_screen.CACHE.clear()
    yield
    insights_screen.CACHE.clear()


async def open_loaded(pilot, cid: str):
    """The conversation with every row of its list loaded (and the tree built)."""
    screen = await push_conversation(pilot, cid)
    await wait_for(lambda: list_ready(screen) and tree_ready(screen), pilot=pilot)
    await screen.events.load_all(screen.window)
    return screen


async def test_e_and_E_land_on_failed_commands(demo_server):
    """The long session's failed test runs (exit code 1) were not errors to the jumps."""
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_loaded(pilot, IDS["long"])
        window = screen.window
        marked = [i for i in range(len(window)) if window.row(i).is_error]
        assert len(marked) == 83
        event_list = screen.query_one(EventList)
        event_list.focus()
        await pilot.press("e")
        await wait_for(lambda: event_list.cursor == marked[0], pilot=pilot)
        first = window.row(marked[0])
        # the steps view: the failed run's result joined its command's row
        assert first.kind == "ActionEvent" and " → exit 1 · " in first.summary
        await pilot.press("e")
        await wait_for(lambda: event_list.cursor == marked[1], pilot=pilot)
        await pilot.press("E", "E")
        await wait_for(lambda: event_list.cursor == marked[-1], pilot=pilot)  # wrapped back
        assert " → exit " in window.row(marked[-1]).summary
        assert screen.find_bar.status == f"row {marked[-1] + 1:,} of {len(window):,} (wrapped)"


@pytest.mark.parametrize("name", ["slow", "confirm", "long"])
async def test_insights_count_the_rows_and_marks_the_list_shows(demo_server, name):
    """``slow`` has streaming deltas the list folds away, ``confirm`` rejections, ``long``
    failed commands: each count is the list's."""
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_loaded(pilot, IDS[name])
        window = screen.window
        rows = [window.row(i) for i in range(len(window))]
        marked = sum(row.is_error for row in rows)
        assert marked  # each of them has failures
        await pilot.press("i")
        await wait_for(
            lambda: isinstance(app.screen, InsightsScreen) and app.screen.insights is not None,
            pilot=pilot,
        )
        found = app.screen.insights
        # the steps the list shows stand for the events the event log shows
        assert (found.events, found.errors) == (window.events, marked)
        stored = demo_server.store.count_events(IDS[name])
        assert found.folded == stored - window.events
        text = screen_text(app)
        assert f"{window.events:,} (as the event log shows them)" in text
        assert f"{marked:,} (as the list marks them)" in text


class Clock:
    """The server's clock, moved by hand: a user who thinks for a minute takes no time."""

    def __init__(self) -> None:
        self.now = 1_795_000_000.0

    def __call__(self) -> float:
        return self.now


def respond(server, cid: str, *, accept: bool) -> None:
    record = httpx.get(
        server.base_url + "/api/v1/app-conversations", params={"ids": cid}, timeout=10
    ).json()[0]
    response = httpx.post(
        f"{server.base_url}/api/conversations/{cid}/events/respond_to_confirmation",
        json={"accept": accept, "reason": "Not now"},
        headers={"X-Session-API-Key": record["session_api_key"]},
        timeout=10,
    )
    assert response.json() == {"success": True}


def insights_json(server, cid: str, capsys) -> dict:
    assert main(["insights", cid, "--url", server.base_url, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_users_approval_wait_is_not_tool_time(live_server, capsys):
    clock = Clock()
    server, names = live_server(clock=clock)
    cid = names["live"]
    live = server.live
    # a risky command waits for the user, who takes 45 s to approve; it then runs for 2 s
    live.send_message_sync(cid, "Clean up the build dir [confirm]")
    live.run_until_idle_sync(cid)
    assert live.status_sync(cid) == "waiting_for_confirmation"
    clock.now += 45
    respond(server, cid, accept=True)
    clock.now += 2
    live.run_until_idle_sync(cid)
    assert live.status_sync(cid) == "finished"
    found = insights_json(server, cid, capsys)
    deleted = next(a for a in found["slowest"] if a["label"].startswith("$ rm -rf"))
    assert deleted["seconds"] == pytest.approx(2.0, abs=0.01)  # from the approval
    assert found["tool_s"] < 3
    terminal = next(t for t in found["tools"] if t["tool"] == "terminal")
    assert (terminal["failed"], terminal["rejected"], terminal["no_result"]) == (0, 0, 0)

    # again, and this time the user says no after 30 s: the action never ran
    live.send_message_sync(cid, "And the cache dir [confirm]")
    live.run_until_idle_sync(cid)
    clock.now += 30
    respond(server, cid, accept=False)
    found = insights_json(server, cid, capsys)
    assert found["tool_s"] < 3
    assert sum(a["label"].startswith("$ rm -rf") for a in found["slowest"]) == 1
    terminal = next(t for t in found["tools"] if t["tool"] == "terminal")
    assert (terminal["failed"], terminal["rejected"]) == (0, 1)
    assert found["errors"] == 1  # the rejection, as the list marks it
