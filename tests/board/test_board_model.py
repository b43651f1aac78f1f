"""The board's data without a screen: folding records, pages and streams into rows, the
order (needing a human first), filters, rates, what a confirmation would run."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tui.app.board.fold import apply_record, apply_stream, apply_tail, pending_actions
from tui.app.board.model import BoardModel, board_columns
from tui.app.board.options import BoardOptions
from tui.app.board.row import BoardRow, RateMeter
from tui.app.widgets.board.board_cells import duration
from tui.client import StreamEvent, StreamState, StreamStatus
from tui.config.board import BoardSettings
from tui.failures import Failure
from tui.models import AppConversation, parse_event

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def conv(status: str | None, **fields) -> AppConversation:
    return AppConversation(
        id=fields.pop("id", "c1"),
        sandbox_id="s1",
        title=fields.pop("title", "Fix the build"),
        execution_status=status,
        sandbox_status="RUNNING",
        created_at="2026-11-21T11:00:00Z",
        updated_at=fields.pop("updated_at", "2026-11-21T11:59:00Z"),
        **fields,
    )


def event(kind: str, n: int, **body) -> object:
    base = {"id": f"e{n}", "timestamp": f"2026-11-21T11:{n:02d}:00", "source": "agent"}
    if kind == "ActionEvent":
        base.update(
            tool_name="terminal",
            tool_call_id=f"call{n}",
            tool_call={
                "id": f"call{n}",
                "name": "terminal",
                "arguments": "{}",
                "origin": "completion",
            },
            llm_response_id="r",
            thought=[],
            action={
                "command": body.pop("command", f"pytest -k {n}"),
                "is_input": False,
                "reset": False,
                "kind": "TerminalAction",
            },
        )
    elif kind == "ObservationEvent":
        base.update(
            source="environment",
            tool_name="terminal",
            tool_call_id=body.pop("call"),
            action_id=body.pop("action"),
            observation={"content": [], "kind": "ThinkObservation"},
        )
    elif kind == "state":
        kind = "ConversationStateUpdateEvent"
        base.update(source="environment", key=body.pop("key"), value=body.pop("value"))
    elif kind == "ConversationErrorEvent":
        base.update(
            source="environment",
            code="LLMError",
            detail=body.pop("detail"),
            classification={"kind": "transient", "retryable": True},
        )
    elif kind == "user":
        kind = "MessageEvent"
        base.update(
            source="user", llm_message={"role": "user", "content": [{"type": "text", "text": "hi"}]}
        )
    base.update(body)
    base["kind"] = kind
    return parse_event(base)


def test_a_record_sets_the_row_and_says_when_the_status_changed():
    row = BoardRow("ref", "c1")
    assert apply_record(row, conv("running"), NOW, 0.0) == (None, "running")
    assert row.status_since is None  # first sight: how long is not known yet
    assert apply_record(row, conv("running"), NOW, 1.0) is None
    assert apply_record(row, conv("paused"), NOW, 2.0) == ("running", "paused")
    assert row.status_since == NOW and row.title == "Fix the build"


def test_the_stream_speaks_for_a_followed_row():
    row = BoardRow("ref", "c1")
    apply_record(row, conv("running"), NOW, 0.0)
    state = StreamState()
    changed, change = apply_stream(row, state, [StreamStatus("live")], NOW, 1.0)
    assert changed and row.followed and change is None
    # the listing lags: it says running while the stream already said paused
    status = event("state", 5, key="execution_status", value="paused")
    changed, change = apply_stream(row, state, [StreamEvent(status)], NOW, 2.0)
    assert change == ("running", "paused")
    assert apply_record(row, conv("running"), NOW, 3.0) is None and row.status == "paused"


def test_actions_are_counted_once_whatever_a_reconnect_replays():
    row = BoardRow("ref", "c1")
    apply_record(row, conv("running"), NOW, 0.0)
    tail = [event("ActionEvent", 3, command="make"), event("ActionEvent", 2)]
    apply_tail(row, tail, 2, NOW)
    assert (row.steps, row.step) == (2, "$ make")
    state = StreamState()
    replay = [StreamEvent(event("ActionEvent", 3, command="make"))]
    fresh = [StreamEvent(event("ActionEvent", 4, command="ruff check"))]
    apply_stream(row, state, replay + fresh, NOW, 1.0)
    apply_stream(row, state, fresh, NOW, 2.0)  # the same again
    assert (row.steps, row.step) == (3, "$ ruff check")


def test_a_gap_fill_starts_from_the_tail_by_id_and_leaves_the_count_to_a_re_read():
    """A followed row's stream fills its gaps from the events the row read (by id, never
    from their newest stamp); the actions a fill brings may be counted already, so the feed
    reads the count again instead of adding them (``feed.py``)."""
    row = BoardRow("ref", "c1")
    apply_record(row, conv("running"), NOW, 0.0)
    tail = [event("ActionEvent", 3, command="make"), event("ActionEvent", 2)]
    apply_tail(row, tail, 7, NOW)
    assert row.tail_ids == {e.id for e in tail}
    state = StreamState()
    filled = StreamEvent(event("ActionEvent", 4, command="pytest"), filled=True)
    apply_stream(row, state, [filled], NOW, 1.0)
    assert (row.steps, row.step) == (7, "$ pytest")  # the step shown, the count left alone
    apply_stream(row, state, [StreamEvent(event("ActionEvent", 5, command="ls"))], NOW, 2.0)
    assert (row.steps, row.step) == (8, "$ ls")


def test_the_tail_gives_step_error_and_how_long_in_the_status():
    row = BoardRow("ref", "c1")
    apply_record(row, conv("error"), NOW, 0.0)
    tail = [
        event("state", 9, key="execution_status", value="error"),
        event("ConversationErrorEvent", 8, detail="upstream 503"),
        event("ActionEvent", 7),
        event("state", 2, key="execution_status", value="running"),
    ]
    apply_tail(row, tail, 4, NOW)
    assert row.error == "LLMError: upstream 503" and row.step == "$ pytest -k 7"
    assert row.status_since == datetime(2026, 11, 21, 11, 9, tzinfo=UTC)
    later = BoardRow("ref", "c2")  # a newer change to another status: not this one's start
    apply_record(later, conv("running"), NOW, 0.0)
    apply_tail(later, tail, 4, NOW)
    assert later.status_since is None


def test_pending_actions_are_those_without_a_result_since_the_users_message():
    events = [
        event("ActionEvent", 6, command="rm -rf build"),
        event("ObservationEvent", 5, call="call4", action="e4"),
        event("ActionEvent", 4),
        event("user", 3),
        event("ActionEvent", 2, command="old"),
    ]
    assert [e.id for e in pending_actions(events)] == ["e6"]


def test_order_puts_rows_needing_a_human_first_then_the_sort():
    model = BoardModel(clock=lambda: 100.0)
    rows = {}
    for name, status, cost in (
        ("a", "running", 0.5),
        ("b", "waiting_for_confirmation", 0.1),
        ("c", "paused", 2.0),
        ("d", "error", 0.0),
        ("e", "running", 1.0),
    ):
        row = rows[name] = BoardRow("ref", name)
        row.title, row.status, row.cost = name, status, cost
        model.add(row)
    broken = BoardRow.failed("down", Failure("cannot reach the server", "refused", "check"))
    model.add(broken)
    assert [r.conversation_id for r in model.shown()] == ["", "b", "d", "a", "e", "c"]
    model.sort_by("cost")  # biggest first
    assert [r.conversation_id for r in model.shown()] == ["", "b", "d", "c", "e", "a"]
    model.sort_by("cost")  # again: reversed
    assert [r.conversation_id for r in model.shown()] == ["", "d", "b", "a", "e", "c"]
    model.set_filter("status:run")
    assert [r.conversation_id for r in model.shown()] == ["", "a", "e"]
    model.set_filter("")
    assert model.next_status_filter() == "attention"
    assert [r.conversation_id for r in model.shown()] == ["", "d", "b"]  # cheapest first
    rows["d"].leaving_at = 5.0  # it left the board's statuses: no longer pressing
    model.touch()
    assert [r.conversation_id for r in model.shown()] == ["", "b"]


def test_marks_skip_failure_rows_and_follow_the_order():
    model = BoardModel(clock=lambda: 0.0)
    a, b = BoardRow("ref", "a"), BoardRow("ref", "b")
    a.title, b.title = "a", "b"
    broken = BoardRow.failed("x", Failure("t", "d", ""))
    for row in (b, a, broken):
        model.add(row)
    assert model.toggle_mark(b) and model.toggle_mark(a) and not model.toggle_mark(broken)
    assert model.marked() == [a, b]
    assert not model.toggle_mark(a) and model.marked() == [b]


def test_rate_meter_is_the_recent_pace():
    meter = RateMeter()
    meter.add(0.0, 1.0, 1000)
    assert meter.per_minute(5.0) is None  # not long enough yet
    meter.add(30.0, 1.5, 4000)
    cost, tokens = meter.per_minute(30.0)
    assert cost == pytest.approx(1.0) and tokens == pytest.approx(6000)
    meter.add(60.0, 0.1, 100)  # a total that went down: counting afresh
    assert meter.per_minute(60.0) is None


def test_columns_fit_and_the_server_column_comes_with_several_servers():
    narrow = [c.key for c in board_columns(77, servers=False)]
    assert narrow == ["title", "status", "step", "cost"]
    wide = [c.key for c in board_columns(157, servers=True)]
    assert wide[:3] == ["server", "title", "status"] and "error" in wide
    for width in (40, 77, 120, 157, 300):
        columns = board_columns(width, servers=True)
        assert all(column.width > 0 for column in columns)


def test_durations_fit_six_cells():
    assert [duration(s) for s in (0, 59, 60, 3599, 3600, 3660, 86399, 86400 * 3)] == [
        "0s",
        "59s",
        "1m",
        "59m",
        "1h00m",
        "1h01m",
        "23h59m",
        "3d",
    ]
    assert duration(None) == ""


def test_options_come_from_the_config_section():
    settings = BoardSettings(statuses=["running"], sockets=5, all_profiles=True)
    options = BoardOptions.from_settings(settings)
    assert options.statuses == frozenset({"running"}) and options.sockets == 5
    assert options.all_profiles
    assert not BoardOptions.from_settings(settings, all_profiles=False).all_profiles
    with pytest.raises(ValueError):
        BoardSettings(sockets=-1)


def test_a_board_row_is_plain_data():
    row = BoardRow("ref", "c1")
    row.status = "stuck"
    assert row.needs_human and not row.followed and "stuck" in repr(row)
    assert row.saw_action("a") and not row.saw_action("a")


def test_notices_go_a_few_at_a_time_and_the_rest_are_summed_up():
    from tui.app.board.notices import NoticeGate

    now = [0.0]
    gate = NoticeGate(lambda old, new: new in ("finished", "error"), clock=lambda: now[0])
    changes = [(f"row{i}", "running", "finished") for i in range(5)]
    changes.append(("bad", "running", "error"))
    changes.append(("calm", "running", "paused"))  # not news: passed on, costs nothing
    passed, summary = gate.admit(changes)
    assert [c[0] for c in passed][:1] == ["bad"]  # needing a human first
    assert len([c for c in passed if c[2] != "paused"]) == 3 and summary is None
    now[0] = 11.0  # the window moved on: the held ones, summed up, in one line
    passed, summary = gate.admit([])
    assert passed == [] and summary == "3 more agents: 3 finished"
    passed, summary = gate.admit([("x", "running", "error")])
    assert [c[0] for c in passed] == ["x"] and summary is None
