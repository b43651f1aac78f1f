"""Two events with the same id: the list shows both (the second marked), each row's detail
and copy is its own event, and an export from the app holds both.

Before: the list kept one copy, showed N−1 rows and a "… loading row N" placeholder that
never filled, and the detail of the one row shown was whichever copy came last.
"""

from __future__ import annotations

import json

from tests.helpers.app_helpers import (
    SIZE,
    event_log,
    list_ready,
    make_app,
    push_conversation,
    screen_text,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.store.duplicate_rows import MARK, DuplicateRow, is_duplicate
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store
from tui.server.demo import generate_conversation

SECOND = "the SECOND event with this id"


def _store_with_duplicate(size: int = 30, copy_of: int = 4) -> tuple[Store, str, str]:
    store = Store()
    cid = generate_conversation(store, size, seed=5)
    rows = list(store.iter_events(cid))
    first = json.loads(rows[copy_of].json)
    newest = json.loads(rows[-1].json)
    second = {
        "id": first["id"],
        "timestamp": newest["timestamp"][:-6] + "999999",
        "source": "user",
        "kind": "MessageEvent",
        "parent_id": newest["id"],
        "llm_message": {"role": "user", "content": [{"type": "text", "text": SECOND}]},
    }
    store.append_events(cid, [second])
    assert len(rows) >= size
    return store, cid, first["id"]


def _shown_in(app, widget) -> str:
    """What the screen shows inside ``widget``'s region (its drawn lines, nothing else)."""
    region = widget.region
    rows = screen_text(app).splitlines()[region.y : region.bottom]
    return "\n".join(row[region.x : region.right] for row in rows)


async def _open(app, pilot, cid: str) -> ConversationScreen:
    """The conversation in the event log (every event a row: both copies are rows)."""
    screen = await push_conversation(pilot, cid)
    await wait_for(lambda: list_ready(screen), pilot=pilot)
    await event_log(pilot, screen)
    await wait_for(lambda: screen.events.base.complete, pilot=pilot)
    return screen


async def test_both_events_with_one_id_are_rows_and_each_shows_its_own_detail(make_server):
    store, cid, dup_id = _store_with_duplicate()
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, cid)
        window = screen.window
        total = len(list(store.iter_events(cid)))
        assert len(window) == total == len(window.head)  # the count and the rows agree
        rows = [window.row(i) for i in range(len(window))]
        assert all(row is not None for row in rows)
        copies = [i for i, row in enumerate(rows) if row.id == dup_id]
        assert len(copies) == 2
        first, second = (rows[i] for i in copies)
        assert not is_duplicate(first) and isinstance(second, DuplicateRow)
        assert second.summary.startswith(MARK) and SECOND in second.summary
        event_list = screen.query_one(EventList)
        event_list.action_last()
        await settled(pilot)
        assert "loading row" not in screen_text(app)
        assert MARK.strip(" ·") in screen_text(app)
        detail = screen.query_one(EventDetail)
        for index, wanted in ((copies[1], True), (copies[0], False)):
            event_list.cursor = index
            # both rows carry the same id: wait for the detail of this row's own event
            await wait_for(
                lambda wanted=wanted: (
                    detail._event is not None
                    and detail._event.id == dup_id
                    and (detail._note is not None) == wanted
                ),
                pilot=pilot,
            )
            await wait_for(
                lambda wanted=wanted: (SECOND in _shown_in(app, detail)) == wanted, pilot=pilot
            )
            await wait_for(lambda: "parent" in _shown_in(app, detail), pilot=pilot)  # drawn
            assert ("an earlier event has the same id" in _shown_in(app, detail)) == wanted


async def test_export_from_the_app_holds_both_copies(make_server, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store, cid, dup_id = _store_with_duplicate()
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, cid)
        screen.action_export("jsonl", "all")
        target = tmp_path / f"ohtui-{cid[:8]}-conversation.jsonl"
        await wait_for(target.exists, pilot=pilot)
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == len(list(store.iter_events(cid)))
    same = [line for line in lines if line["id"] == dup_id]
    assert len(same) == 2 and SECOND in json.dumps(same[1]) and SECOND not in json.dumps(same[0])


async def test_a_duplicate_on_the_far_side_of_a_large_list_fills_from_either_end(make_server):
    """Walking from the end (End on a list longer than a page) meets the head walk exactly:
    the duplicate is counted once on each side, no row is left loading."""
    store, cid, dup_id = _store_with_duplicate(size=450, copy_of=3)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await event_log(pilot, screen)
        screen.query_one(EventList).action_last()
        await wait_for(lambda: screen.events.base.complete, pilot=pilot)
        window, total = screen.window, len(list(store.iter_events(cid)))
        assert len(window) == total and all(window.row(i) is not None for i in range(total))
        assert sum(1 for i in range(total) if window.row(i).id == dup_id) == 2
