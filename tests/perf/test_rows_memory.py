"""Rows hold less without saying anything different: timestamps kept as numbers read back
character for character, and the ids a row names share the named row's string."""

from __future__ import annotations

import random

from tests.helpers.samples import iter_events
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.duplicate_rows import DuplicateRow
from tui.app.store.rows import EventRow, make_row, pack_time
from tui.models import parse_event
from tui.text import one_line


def test_every_sample_row_keeps_its_timestamp_exactly():
    seen = 0
    for name, data in iter_events():
        event = parse_event(data)
        row = make_row(event)
        expected = one_line(event.timestamp or "", 80)
        assert row.timestamp == expected, name
        cut = expected.find("T")
        assert row.time == (expected[cut + 1 : cut + 9] if cut >= 0 else expected[:8]), name
        seen += isinstance(pack_time(expected), float)
    assert seen > 100  # the usual form is the one packed


def _row_with(stamp: str) -> EventRow:
    return EventRow("e", stamp, "agent", "MessageEvent", "hi")


def test_any_timestamp_reads_back_as_it_came():
    odd = [
        "",
        "2026-11-20T10:00:00",
        "2026-11-20T10:00:00Z",
        "2026-11-20T10:00:00.123456Z",
        "2026-11-20T10:00:00.123456+00:00",
        "2026-11-20 10:00:00.123456",
        "2026-11-20T24:00:00.000000",
        "2026-02-30T10:00:00.000000",
        "2026-W47-5T10:00:00.123456",
        "0001-01-01T00:00:00.000000",
        "9999-12-31T23:59:59.999999",
        "1969-12-31T23:59:59.999999",
        "2026-11-20T10:00:60.000000",
        "２０２６-11-20T10:00:00.000000",
        "2026-11-20T10:00:00.12345６",
        "not a time at all",
    ]
    rng = random.Random(7)
    usual = [
        f"{rng.randint(1, 9999):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}."
        f"{rng.randint(0, 999_999):06d}"
        for _ in range(2_000)
    ]
    for stamp in odd + usual:
        row = _row_with(stamp)
        assert row.timestamp == stamp
        assert DuplicateRow(row, 2).timestamp == stamp
    assert isinstance(pack_time("2026-11-20T10:00:00.123456"), float)
    assert pack_time("2026-11-20T10:00:00Z") == "2026-11-20T10:00:00Z"


def _log(n: int) -> list[EventRow]:
    """Message, action, its result, in turn; each the child of the one before, the result
    naming its action by id and tool call. Every string is its own copy, as parsed."""
    rows: list[EventRow] = []
    for i in range(n):
        kind = ("MessageEvent", "ActionEvent", "ObservationEvent")[i % 3]
        parent = "".join(["e", str(i - 1)]) if i else None
        call = "".join(["call_", str(i - i % 3)]) if kind != "MessageEvent" else None
        answers = "".join(["e", str(i - 1)]) if kind == "ObservationEvent" else None
        rows.append(
            EventRow(
                f"e{i}",
                "2026-11-20T10:00:00.000000",
                "agent",
                kind,
                "s",
                parent,
                call,
                action_id=answers,
            )
        )
    return rows


def test_rows_share_the_strings_of_the_ids_they_name():
    events = ConversationEvents(None, "c")  # no requests: rows are handed in
    log = _log(30)
    for row in log:
        events.actions.remember(None, row)
    events.base.add_head(log, None)
    events._index_pairs(0)
    rows = events.rows
    for i, row in enumerate(rows[1:], 1):
        assert row.parent_id == f"e{i - 1}" and row.parent_id is rows[i - 1].id
        if row.kind == "ObservationEvent":
            assert row.action_id is rows[i - 1].id
            assert row.tool_call_id is rows[i - 1].tool_call_id
    # a parent further back is found through the tree, when it is built
    far_back = 3
    far = EventRow(
        "far", "2026-11-20T10:00:01.000000", "agent", "MessageEvent", "s", f"e{far_back}"
    )
    events.base.append_live([far])
    events._index_pairs(30)
    assert far.parent_id == "e3" and far.parent_id is not rows[3].id
    tree = events.build_tree()
    assert far.parent_id is rows[3].id
    assert tree.parent[30] == 3 and tree.child_list(3) == [4, 30]


def test_pairs_still_found_with_one_or_many_rows_per_tool_call():
    events = ConversationEvents(None, "c")
    log = _log(9)
    log.append(
        EventRow(
            "err", "2026-11-20T10:00:02.000000", "agent", "AgentErrorEvent", "s", None, "call_6"
        )
    )
    for row in log:
        events.actions.remember(None, row)
    events.base.add_head(log, None)
    events._index_pairs(0)
    assert events._by_tool_call == {}  # not built until a pair needs it
    rows = events.rows
    assert events._with_tool_call("call_0") == [rows[1], rows[2]]
    assert list(events._with_tool_call("call_6")) == rows[7:10]
    assert events._with_tool_call("nothing") == ()
    assert events.pending_actions() == []
    late = EventRow("late", "2026-11-20T10:00:03.000000", "agent", "AgentErrorEvent", "s")
    late.tool_call_id = "call_6"
    events.base.append_live([late])
    events._index_pairs(10)  # kept up to date once built
    assert list(events._with_tool_call("call_6")) == rows[7:11]
