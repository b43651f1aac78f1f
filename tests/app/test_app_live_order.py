"""Live rows in the history's order, through the app against the reference server (issue 32,
N1).

The reference server sorts a conversation's history by timestamp (the log's position
breaking ties), as openhands-ai 1.11.0 does, while its stream sends the log: a stats update
logged after a step but stamped before it arrived live below that step, and the list read
differently once the conversation was opened again (the first observation above its own
action, two stats rows swapped). The rows a conversation gains live must read as the same
conversation opened afresh: in the event log and the steps view, pairs right, nothing
doubled — also while the steps view is still being walked (its newest page held by the
server while the live rows arrive).
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from tests.app.test_app_live import FIXED, open_live
from tests.client.test_stream_identity import expected_list, message, newest_stamp, publish, stats
from tests.helpers.app_helpers import (
    SIZE,
    event_log,
    make_app,
    settled,
    tree_ready,
    wait_for,
)
from tests.helpers.insights_events import action, result
from tui.app.screens.conversation.reading import READING
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.duplicate_rows import DuplicateRow
from tui.app.store.row_windows import PagedWindow
from tui.app.store.step_rows import StepRow
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, add_live_demo, load_demo


def steps_of(window: PagedWindow) -> list[tuple]:
    """What a steps view shows: each row's event, the result on it, what folded under it."""
    out = []
    for i in range(len(window)):
        row = window.row(i)
        if not isinstance(row, StepRow):
            return [None]  # not loaded: not the same yet
        result_id = row.result.id if row.result is not None else None
        out.append((row.own.id, result_id, sorted(r.id for r in row.folded or ())))
    return out


async def reopened(app, cid: str) -> tuple[ConversationEvents, PagedWindow]:
    """The conversation opened afresh: its event log and its steps view, from pages only."""
    fresh = ConversationEvents(app.client, cid, by_time=True)
    await fresh.load_all(fresh.base)
    steps = await fresh.open_window(READING)
    await fresh.load_all(steps)
    return fresh, steps


def later(server, cid: str, seconds: float) -> str:
    newest = datetime.fromisoformat(newest_stamp(server, cid))
    return (newest + timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def a_step(server, cid: str, n: int) -> list[dict[str, Any]]:
    """One step as the app server's sandbox logs it: the action, a stats update stamped
    before it (and before the newest event already stored), the result, a stats update
    stamped between them; the agent's words after."""
    events = [
        action(f"a{n}", 0.0, f"echo hi {n}"),
        result(f"o{n}", 0.0, f"a{n}", command=f"echo hi {n}"),
    ]
    act, obs = (e.model_dump(mode="json") for e in events)
    act["timestamp"], obs["timestamp"] = later(server, cid, 2), later(server, cid, 3)
    early, between = stats(later(server, cid, -1)), stats(later(server, cid, 2.5))
    early["id"], between["id"] = f"s{n}", f"t{n}"
    return [act, early, obs, between, message(f"said hi {n}", later(server, cid, 4), f"m{n}")]


async def test_live_rows_read_as_the_reopened_conversation_in_both_views(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        assert screen.window.query.steps  # it opens in the steps view
        stored_before = server.store.count_events(cid)
        first = a_step(server, cid, 1)
        await asyncio.to_thread(publish, server, cid, first)
        await asyncio.to_thread(publish, server, cid, a_step(server, cid, 2))
        total = server.store.count_events(cid)
        await wait_for(lambda: len(screen.events.base.head) == total, pilot=pilot)
        fresh, again = await reopened(app, cid)
        await wait_for(lambda: steps_of(screen.window) == steps_of(again), pilot=pilot)
        shown = [(r.id, r.timestamp) for r in screen.events.base.head]
        assert shown == [(r.id, r.timestamp) for r in fresh.base.head]
        assert shown == expected_list(server, cid)  # the server's own order
        assert len({r.id for r in screen.events.base.head}) == total  # nothing twice
        # the stats update stamped before the newest stored event is above it, where the
        # stream's order put it below its action
        ids = [event_id for event_id, _ in shown]
        assert ids.index(first[1]["id"]) < stored_before - 1 < ids.index("a1")
        by_id = {r.id: r for r in screen.events.base.head}
        for n in (1, 2):  # each action with its result, in both views
            paired = await screen.events.paired(by_id[f"a{n}"])
            assert paired is not None and paired.id == f"o{n}"
            step = next(
                r
                for r in (screen.window.row(i) for i in range(len(screen.window)))
                if r.id == f"a{n}"
            )
            assert step.result is not None and step.result.id == f"o{n}"
        assert screen.events.pending_actions() == []
        tree, tree_again = screen.events.build_tree(), fresh.build_tree()
        assert list(tree.ids) == list(tree_again.ids) and tree.parent == tree_again.parent

        await event_log(pilot, screen)  # `v`: the event log reads the same
        assert [screen.window.row(i).id for i in range(len(screen.window))] == [
            event_id for event_id, _ in shown
        ]


async def test_live_rows_while_the_steps_view_is_walked_and_its_newest_page_held(live_server):
    """The steps view has its first page only (a long history); End asks for its newest
    page, which the server holds while live events arrive, stamped before and after the
    newest stored one. When the page comes it brings those events again (stored
    meanwhile): each stays one row, in its place, and the view, walked to its start, reads
    as the conversation opened afresh."""
    server, names = live_server()
    cid = names["live"]
    history = []
    for n in range(150):  # a long history: steps and their stats, every one stamped later
        stamp = later(server, cid, 10 + n) if n else later(server, cid, 10)
        history += [message(f"history {n}", stamp), stats(stamp)]
    await asyncio.to_thread(publish, server, cid, history)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        steps = screen.window
        assert steps.query.steps and not steps.complete
        faults = server.app.state.faults
        hold = faults.add("hold", path=f"/api/v1/conversation/{cid}/events/search")
        try:
            screen.query_one(EventList).action_last()  # End: the newest page is asked for
            await wait_for(lambda: faults.hits["hold"] == 1, pilot=pilot)
            await asyncio.to_thread(publish, server, cid, a_step(server, cid, 1))
            total = server.store.count_events(cid)
            await wait_for(lambda: len(screen.events.base.head) == total, pilot=pilot)
            assert any(r.id == "a1" for r in steps.tail)  # taken live while the page waits
        finally:
            hold.gate.set()
        await wait_for(lambda: len(steps.tail) > 5, pilot=pilot)  # the page came
        loaded = [r for r in steps.tail if isinstance(r, StepRow)]
        assert not any(isinstance(r.own, DuplicateRow) for r in loaded)  # brought again: one row
        assert len({r.id for r in loaded}) == len(loaded)
        stamps = [r.timestamp for r in reversed(steps.tail)]
        assert stamps == sorted(stamps)  # the newest rows read in order meanwhile
        await screen.events.load_all(steps)  # walked to its start (as scrolling up does)
        fresh, again = await reopened(app, cid)
        assert steps_of(steps) == steps_of(again)
        assert [r.id for r in screen.events.base.head] == [r.id for r in fresh.base.head]
        await event_log(pilot, screen)
        assert [screen.window.row(i).id for i in range(len(screen.window))] == [
            r.id for r in fresh.base.head
        ]


async def test_the_cursor_stays_on_its_event_when_a_live_row_goes_in_above_it(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        await event_log(pilot, screen)
        event_list = screen.query_one(EventList)
        event_list.cursor = len(screen.window) - 2  # the row before the newest, read
        await settled(pilot)
        assert not event_list.at_end
        read = screen.window.row(event_list.cursor)
        batch = a_step(server, cid, 1)
        await asyncio.to_thread(publish, server, cid, batch)
        total = server.store.count_events(cid)
        await wait_for(lambda: len(screen.window) == total, pilot=pilot)
        early = next(i for i in range(total) if screen.window.row(i).id == batch[1]["id"])
        assert early < event_list.cursor  # it went in above the row read
        assert screen.window.row(event_list.cursor) is read


def test_live_rows_in_the_event_log_snapshot(snap_compare, make_server):
    """What the finding's reader sees now: the stats update logged after its action but
    stamped before the newest stored event sits above it, the step's rows in time order."""
    store = Store()
    load_demo(store)
    cid = add_live_demo(store, clock=lambda: FIXED)
    server = make_server(store, clock=lambda: FIXED)

    async def run_before(pilot):
        screen = await open_live(pilot.app, pilot, cid)
        await event_log(pilot, screen)
        await asyncio.to_thread(publish, server, cid, a_step(server, cid, 1))
        total = store.count_events(cid)
        await wait_for(lambda: len(screen.window) == total, pilot=pilot)
        # the tree pane walks its outline again (rows moved under it): it shows them all
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        screen.query_one(EventList).action_last()
        await settled(pilot, keep=("live",))

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)
