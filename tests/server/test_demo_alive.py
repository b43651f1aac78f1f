"""The demo is alive and recent: its long session runs at every moment, lap after lap (each a
fresh conversation, its cost that of one run), its files are real, and what it stores reads
as minutes old, never months.

Laps run at a tiny pace and are watched by predicates; times come from injected clocks."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.helpers.app_helpers import (
    DEMO_ROWS,
    FIXED_NOW,
    conversations_shown,
    make_app,
    poll,
    settled,
    wait_for,
)
from tests.helpers.workspace_helpers import need_git
from tui.app.format import relative_time
from tui.server import Store, load_demo, start_server
from tui.server.demo import build_demo
from tui.server.demo.dataset import RECENT_GAP
from tui.server.demo.live_demo import LOOP_SCRIPT, add_lap, reset_lap
from tui.server.demo.session_script import CURRENCY, LAP_FILES, TITLE
from tui.server.live import autoplay
from tui.server.workspace_demo import DemoWorkspace

CONV = "/api/v1/app-conversations"
NOW = FIXED_NOW.timestamp()


def _naive(value: str) -> datetime:
    return datetime.fromisoformat(value).replace(tzinfo=None)


def _running_sandbox(store: Store) -> str:
    sandboxes, _ = store.search_sandboxes(limit=100)
    return next(s["id"] for s in sandboxes if s["status"] == "RUNNING")


def _events(store: Store, cid: str) -> list[dict]:
    return [json.loads(row.json) for row in store.iter_events(cid)]


def _status_at(events: list[dict], status: str) -> str:
    """When the conversation's status first became ``status`` (its event's timestamp)."""
    return next(
        e["timestamp"]
        for e in events
        if e.get("key") == "execution_status" and e.get("value") == status
    )


# -- recent times -------------------------------------------------------------------------------


def test_the_demo_moved_to_now_is_the_same_demo_minutes_old():
    fixed, moved = build_demo(), build_demo(now=NOW)
    assert [c["id"] for c in moved.conversations] == [c["id"] for c in fixed.conversations]
    newest = max(datetime.fromisoformat(c["updated_at"]) for c in moved.conversations)
    assert newest == FIXED_NOW - RECENT_GAP
    assert relative_time(moved.conversations[-1]["updated_at"], FIXED_NOW) == "3m ago"
    # every time moved by the same amount (local event times, UTC record times)
    local_now = datetime.fromtimestamp(NOW)
    shifts = set()
    for cid, events in moved.events.items():
        for event, before in zip(events, fixed.events[cid], strict=True):
            assert event["id"] == before["id"]
            assert local_now - timedelta(days=1) < _naive(event["timestamp"]) < local_now
            shifts.add(_naive(event["timestamp"]) - _naive(before["timestamp"]))
    assert len(shifts) == 1
    for record in moved.conversations + moved.sandboxes:
        assert FIXED_NOW - timedelta(days=1) < datetime.fromisoformat(record["created_at"])


def test_the_demo_server_stores_times_minutes_before_its_clock():
    from tui.server.embedded import start_demo_server

    url, stop = start_demo_server(clock=lambda: NOW)
    try:
        items = httpx.get(url + CONV + "/search", params={"limit": 100}, timeout=10).json()["items"]
        stored = [c for c in items if not c["title"].startswith("Live:")]
        for conv in stored:  # all of today, the newest top-level one within the hour
            assert FIXED_NOW - timedelta(days=1) < datetime.fromisoformat(conv["created_at"])
        newest = max(datetime.fromisoformat(c["updated_at"]) for c in stored)
        assert FIXED_NOW - timedelta(hours=1) < newest < FIXED_NOW - RECENT_GAP
        sub = build_demo().names["sub"]  # the newest of all, listed under its parent
        (child,) = httpx.get(url + CONV, params={"ids": sub}, timeout=10).json()
        assert relative_time(child["updated_at"], FIXED_NOW) == "3m ago"
        # the long session runs from the start, beside the first short story
        live = {c["title"] for c in items if c["title"].startswith("Live:")}
        assert TITLE in live and len(live) == 2
    finally:
        stop()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_the_demo_as_it_opens(snap_compare, make_server, size):
    """What a newcomer sees first: conversations of the last hours, the newest 3 min old
    (the long session's laps and the stories are left out: they run on the wall clock)."""
    store = Store()
    load_demo(store, now=NOW)
    server = make_server(store)

    async def run_before(pilot):
        app = pilot.app
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= DEMO_ROWS, pilot=pilot)
        await pilot.press("down")  # the sub-conversation, updated 3 min ago
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=size)


# -- the long session ---------------------------------------------------------------------------


def test_the_long_session_runs_at_every_moment_lap_after_lap(monkeypatch):
    """Each lap starts before the one before it ends; old laps go; a lap costs cents."""
    monkeypatch.setattr(autoplay, "KEEP_LAPS", 3)
    ticks = itertools.count()
    store = Store()
    load_demo(store)
    first = add_lap(store, sandbox_id=_running_sandbox(store))
    server = start_server(
        store, agent_pace=0.001, looping=[first], clock=lambda: NOW + next(ticks) / 1000
    )
    seen: set[str] = set()

    def laps() -> list[dict]:
        rows, _ = store.search_conversations(limit=100)
        found = [info for _, _, info in rows if info["title"] == TITLE]
        seen.update(info["id"] for info in found)
        return found

    def laps_made() -> bool:
        now = laps()
        running = [lap for lap in now if lap["execution_status"] == "running"]
        assert running or len(seen) == 1, [lap["execution_status"] for lap in now]
        assert len(now) <= autoplay.KEEP_LAPS + 1  # the old ones are deleted
        finished = [lap for lap in now if lap["execution_status"] == "finished"]
        return len(seen) >= 5 and len(finished) >= 2

    try:
        poll(laps_made)
    finally:
        server.stop()
    try:  # looked at once stopped: no lap deleted meanwhile
        ended = sorted(
            (lap for lap in laps() if lap["execution_status"] == "finished"),
            key=lambda lap: lap["created_at"],
        )
        # a lap may have rolled over between the poll and the stop (the pace is a thousandth
        # of the demo's): the newest laps are kept, of which one at least has ended
        assert ended
        for lap in ended:
            events = _events(store, lap["id"])
            users = [e for e in events if e["kind"] == "MessageEvent" and e["source"] == "user"]
            assert len(users) == 1  # one request per lap: no endless log
            assert lap["metrics"]["accumulated_cost"] < 1.0  # cents, as one real run
            later = next(
                other
                for other in sorted(laps(), key=lambda lap: lap["created_at"])
                if other["created_at"] > lap["created_at"]
            )
            # the next lap was running before this one finished
            assert _status_at(_events(store, later["id"]), "running") < _status_at(
                events, "finished"
            )
    finally:
        store.close()


def test_a_deleted_lap_is_followed_by_a_fresh_one():
    store = Store()
    load_demo(store)
    first = add_lap(store, sandbox_id=_running_sandbox(store))
    server = start_server(store, agent_pace=0.05, looping=[first])
    try:
        poll(lambda: store.get_conversation(first)["execution_status"] == "running")
        answer = httpx.delete(f"{server.base_url}{CONV}/{first}", timeout=10)
        assert answer.json() == {"success": True}

        def another_lap_runs() -> bool:
            rows, _ = store.search_conversations(limit=100)
            return any(
                info["title"] == TITLE and info["execution_status"] == "running"
                for _, cid, info in rows
                if cid != first
            )

        poll(another_lap_runs)
    finally:
        server.stop()
        store.close()


async def test_a_lap_works_like_an_agent_on_the_files_it_finds(live_server):
    """A lap read by hand: commands, tests, edits and failures, in the real workspace."""
    need_git()
    server, _names = live_server()
    store = server.store
    cid = add_lap(store, sandbox_id=_running_sandbox(store))
    reset_lap(store)

    async def start() -> None:
        conv = server.live.require(cid)
        conv.request_script = LOOP_SCRIPT
        await conv.run()

    await asyncio.to_thread(server.live.call, start)
    await asyncio.to_thread(server.live.run_until_idle_sync, cid)
    events = _events(store, cid)
    assert events[-1]["kind"] != "ConversationErrorEvent"
    assert store.get_conversation(cid)["execution_status"] == "finished"
    results = [e["observation"] for e in events if e["kind"] == "ObservationEvent"]
    commands = [o for o in results if o["kind"] == "TerminalObservation"]
    edits = [o for o in results if o.get("command") == "str_replace"]
    views = [o for o in results if o.get("command") == "view"]
    assert len(commands) >= 10 and len(edits) >= 5 and len(views) >= 2
    assert sum(o["exit_code"] != 0 for o in commands) >= 3  # a failing test, lint, a bad try
    assert sum(o["command"].startswith("pytest") for o in commands) >= 4
    # it read what was there, and what it wrote is there
    first_view = next(o for o in views if o["path"] == CURRENCY)
    assert "raise NotImplementedError" in first_view["content"][0]["text"]
    real = store.workspace.real(CURRENCY)
    last_edit = [o for o in edits if o["path"] == CURRENCY][-1]
    assert real.read_text(encoding="utf-8") == last_edit["new_content"]
    reset_lap(store)  # the next lap starts from the same files
    assert real.read_text(encoding="utf-8") == LAP_FILES[CURRENCY]


def test_prepared_files_wait_for_the_workspace_to_be_made():
    workspace = DemoWorkspace()
    try:
        outside = {"/etc/passwd": "never\n", "/workspace/project": "not a file\n"}
        workspace.prepare({CURRENCY: "first\n", **outside})
        assert workspace._temp is None  # nothing made for it: first use stays lazy
        real = workspace.real(CURRENCY)  # made now
        assert real.read_text(encoding="utf-8") == "first\n"
        workspace.prepare({CURRENCY: "again\n"})
        assert real.read_text(encoding="utf-8") == "again\n"
        assert not (workspace.root / "etc").exists()
    finally:
        workspace.close()


def test_times_in_utc_and_local_agree_in_any_time_zone(monkeypatch):
    """A moved dataset's newest record (UTC) and its last event (local, as an agent server
    writes it) name the same moment."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        moved = build_demo(now=NOW)
    finally:
        monkeypatch.undo()
        time.tzset()
    newest = max(moved.conversations, key=lambda c: c["updated_at"])
    last = moved.events[newest["id"]][-1]
    local = datetime.fromisoformat(last["timestamp"]).replace(tzinfo=ZoneInfo("Asia/Kolkata"))
    assert abs(local - datetime.fromisoformat(newest["updated_at"])) < timedelta(seconds=1)
    assert datetime.fromisoformat(newest["updated_at"]) == FIXED_NOW - RECENT_GAP
