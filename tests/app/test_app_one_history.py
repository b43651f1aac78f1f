"""One history, whichever way it arrived (issue 14, item 5).

The real app server stores a run's StreamingDeltaEvents and ``full_state`` snapshots in its
searchable history (the reference server does with ``store_transient_events``); a live view
never has them as rows. Reopened, the conversation shows the rows it showed while followed,
with exact counts before anything is walked; ``v`` shows everything stored, and back.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    event_log,
    list_ready,
    make_app,
    push_conversation,
    screen_text,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.store.row_windows import EventQuery, PagedWindow
from tui.app.store.rows import EventRow
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.server import Store, load_demo
from tui.server.real_app_server import real_app_server_options

REAL = json.loads((Path(__file__).parents[1] / "data" / "real_app_history.json").read_text())


def _ids(screen) -> list[str]:
    return [screen.window.row(i).id for i in range(len(screen.window))]


async def _reopen(app, pilot, cid: str) -> ConversationScreen:
    app.pop_screen()
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(cid)
    await wait_for(
        lambda: isinstance(app.screen, ConversationScreen) and app.screen.events.shared is False,
        pilot=pilot,
    )
    screen = app.screen
    await wait_for(lambda: tree_ready(screen), pilot=pilot)
    await event_log(pilot, screen)
    return screen


def _counts_agree(screen) -> int:
    """The list's title, the store's count and the tree's footer: one number."""
    title = str(screen.query_one(EventList).border_title)
    footer = str(screen.query_one(EventTreeView).border_subtitle)
    count = len(screen.events.base)
    assert title.endswith(f" · {count:,} events"), title
    assert footer.startswith(f"{count:,} events"), footer
    assert screen.query_one(EventTreeView).shown_size == count
    return count


async def test_followed_live_and_reopened_show_the_same_rows(live_server):
    server, names = live_server(**real_app_server_options())
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        await event_log(pilot, screen)
        await asyncio.to_thread(server.live.send_message_sync, cid, "[chat] hi")  # streamed
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        stored = [json.loads(r.json) for r in server.store.iter_events(cid)]
        kinds = Counter(e["kind"] for e in stored)
        snapshots = sum(1 for e in stored if e.get("key") == "full_state")
        assert kinds["StreamingDeltaEvent"] > 0 and snapshots > 0  # the server stored them
        shown = len(stored) - kinds["StreamingDeltaEvent"] - snapshots
        await wait_for(lambda: len(screen.window) == shown, pilot=pilot)
        await wait_for(lambda: screen.query_one(EventTreeView).shown_size == shown, pilot=pilot)
        live_ids = _ids(screen)
        _counts_agree(screen)

        screen = await _reopen(app, pilot, cid)
        assert sorted(_ids(screen)) == sorted(live_ids)  # the same rows (stored by timestamp)
        assert _counts_agree(screen) == shown
        assert "streaming" not in screen_text(app) and "full state" not in screen_text(app)

        await pilot.press("V")  # everything the server stored
        await wait_for(lambda: len(screen.window) == len(stored), pilot=pilot)
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        assert _counts_agree(screen) == len(stored)
        assert "raw history" in str(screen.query_one(EventList).border_title)
        await pilot.press("V")
        await wait_for(lambda: len(screen.window) == shown and tree_ready(screen), pilot=pilot)
        assert _counts_agree(screen) == shown


def _real_store() -> tuple[Store, str]:
    """The real app server's stored history of one run (two steps, a follow-up), on a
    conversation whose sandbox is paused (nothing live)."""
    store = Store()
    names = load_demo(store)
    record = store.get_conversation(names["branches"])
    cid = REAL[0]["value"]["id"].replace("-", "")
    record.update(id=cid, title="Fake: Please say hi twice")
    store.put_conversation(record)
    store.append_events(cid, REAL)
    return store, cid


async def test_a_real_app_server_history_is_folded_with_exact_counts(make_server):
    store, cid = _real_store()
    app = make_app(make_server(store).base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        # 34 stored: 5 streaming deltas and 3 full_state snapshots folded away, in the
        # steps view as in the event log
        assert screen.window.events == 26
        await event_log(pilot, screen)
        assert len(screen.window) == 26
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        assert _counts_agree(screen) == 26
        kinds = Counter(screen.window.row(i).kind for i in range(26))
        assert "StreamingDeltaEvent" not in kinds
        assert kinds["ConversationStateUpdateEvent"] == 13  # keyed updates stay


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["default", "80x24"])
def test_folded_real_history_snapshot(snap_compare, make_server, size):
    store, cid = _real_store()
    server = make_server(store)

    async def run_before(pilot):
        app = pilot.app
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(cid)
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: tree_ready(app.screen), pilot=pilot)
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=size)


# --- the window's count, before and while it is walked --------------------------------------


def _row(i: int, kind: str = "MessageEvent", transient: bool = False) -> EventRow:
    return EventRow(
        f"e{i}", f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}", "agent", kind, "", transient=transient
    )


def _log(n: int) -> list[EventRow]:
    """Every 4th event a streaming delta, every 50th a full_state snapshot."""
    out = []
    for i in range(n):
        if i % 4 == 1:
            out.append(_row(i, "StreamingDeltaEvent", transient=True))
        elif i % 50 == 7:
            out.append(_row(i, "ConversationStateUpdateEvent", transient=True))
        else:
            out.append(_row(i))
    return out


def test_the_folded_count_is_exact_before_the_walk_but_for_snapshots_not_yet_seen():
    log = _log(1_000)
    deltas = sum(r.kind == "StreamingDeltaEvent" for r in log)
    shown = [r for r in log if not r.transient]
    window = PagedWindow(EventQuery())
    window.add_head(log[:100], "p1")
    window.set_count(len(log), deltas)
    window.add_tail(log[-100:][::-1], "t1")
    # the deltas are counted up front; of the snapshots only those in pages seen so far
    unseen_snapshots = sum(
        1 for r in log[100:-100] if r.transient and r.kind != "StreamingDeltaEvent"
    )
    assert len(window) == len(shown) + unseen_snapshots
    assert window.row(len(window) - 1).id == shown[-1].id
    at = 100
    while not window.complete:
        window.add_head(log[at : at + 100], f"p{at}")
        at += 100
    assert len(window) == len(shown) and [window.row(i).id for i in range(len(window))] == [
        r.id for r in shown
    ]
    raw = PagedWindow(EventQuery(raw=True))
    raw.set_count(len(log))
    raw.add_head(log, None)
    assert len(raw) == len(log)


def test_a_filter_for_deltas_shows_them():
    assert not EventQuery(kind="StreamingDeltaEvent").folds
    assert EventQuery(kind="ConversationStateUpdateEvent").folds and EventQuery().folds
    assert not EventQuery(raw=True).folds
