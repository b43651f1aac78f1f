"""Insights over hand-made logs: the user's approval wait is no tool time, rejected actions
are not timed, and the timeline's ten-second buckets read to the second and say what their
event counts leave out."""

from __future__ import annotations

import pytest

from tests.helpers.insights_events import action, at, rejection, result, status, user
from tui.app.widgets.charts.insight_charts import activity_title, time_ticks
from tui.insights import compute_insights
from tui.insights.builder import MAX_WHYS
from tui.insights.report import to_markdown
from tui.insights.timeline import LEFT_OUT
from tui.models import parse_event


def test_an_approved_action_is_timed_from_the_approval():
    events = [
        status("s1", 0, "running"),
        action("a1", 1, "rm -rf build", response="r1"),
        action("a2", 1, "rm -rf dist", response="r1"),  # parallel calls wait together
        status("s2", 1.1, "waiting_for_confirmation"),
        status("s3", 41, "running"),  # the user approved 40 s later
        result("o1", 43, "a1"),
        result("o2", 44, "a2"),
        action("a3", 45, "ls"),  # after the approval: timed from the action, as ever
        result("o3", 46, "a3"),
    ]
    found = compute_insights(events)
    times = {a.event_id: a.seconds for a in found.slowest}
    assert times == {"a1": pytest.approx(2), "a2": pytest.approx(3), "a3": pytest.approx(1)}
    assert found.tool_s == pytest.approx(6)
    (terminal,) = found.tools
    assert (terminal.calls, terminal.timed, terminal.failed) == (3, 3, 0)


def test_a_rejected_action_never_ran_and_is_not_timed():
    events = [
        action("a1", 0, "rm -rf /"),
        status("s1", 0.1, "waiting_for_confirmation"),
        status("s2", 30, "idle"),
        rejection("r1", 30, "a1"),
        action("a2", 31, "rm -rf build"),
        rejection("r2", 32, "a2", source="hook"),  # a hook said no at once
    ]
    found = compute_insights(events)
    (terminal,) = found.tools
    assert (terminal.calls, terminal.failed, terminal.rejected, terminal.timed) == (2, 0, 2, 0)
    assert found.slowest == [] and found.tool_s == 0
    assert found.errors == 2  # as the list marks them, and why
    assert found.failed_by == {"rejected by a hook": 1, "rejected by the user": 1}


def test_an_action_still_waiting_at_the_end_has_no_result():
    events = [action("a1", 0, "make deploy"), status("s1", 0.1, "waiting_for_confirmation")]
    (terminal,) = compute_insights(events).tools
    assert (terminal.no_result, terminal.timed) == (1, 0)


def test_a_result_that_comes_while_still_waiting_is_not_timed():
    # no "running" in between (a log cut short, an odd server): the run time is not known
    events = [
        action("a1", 0, "make"),
        status("s1", 0.1, "waiting_for_confirmation"),
        result("o1", 60, "a1"),
    ]
    found = compute_insights(events)
    assert found.slowest == [] and found.tools[0].timed == 0


def test_ten_second_buckets_read_to_the_second_and_say_what_they_leave_out():
    events = [
        user("u1", 0),
        action("a1", 12, "ls /missing"),
        result("o1", 25, "a1", exit_code=2),
        status("s1", 26, "finished"),  # not activity: left out of the counts, said so
    ]
    found = compute_insights(events)
    assert found.timeline.bucket_s == 10
    markdown = to_markdown(found)
    assert f"Events: all but {LEFT_OUT}." in markdown
    assert "| from | events | failures |" in markdown
    for row in (
        "| 2026-11-21 10:00:00 | 1 |  | 1 |",
        "| 2026-11-21 10:00:10 | 1 |  |  |",
        "| 2026-11-21 10:00:20 | 1 | 1 |  |",
    ):
        assert row in markdown
    ticks, labels = time_ticks(found)
    assert labels[:3] == ["10:00:00", "10:00:15", "10:00:30"] and ticks[1] == 0.25


def test_minute_buckets_keep_minutes_and_the_plot_title_fits():
    events = [user(f"u{n}", n * 60) for n in range(120)]  # two hours: one-minute buckets
    found = compute_insights(events)
    assert found.timeline.bucket_s == 60
    assert "| 2026-11-21 11:59 | 1 |" in to_markdown(found)
    assert time_ticks(found)[1][:2] == ["10:00", "10:30"]
    for room in (200, 100, 76):
        title = activity_title("30 seconds", True, "", room)
        assert len(title) <= room and "state" in title and "failures" in title


def test_the_list_and_insights_agree_on_a_stored_history_with_transient_events():
    """An app server's stored history: deltas and full_state snapshots are folded away."""
    delta = parse_event(
        {
            "id": "d1",
            "timestamp": at(1),
            "source": "agent",
            "content": "hel",
            "kind": "StreamingDeltaEvent",
        }
    )
    snapshot = parse_event(
        {
            "id": "f1",
            "timestamp": at(2),
            "source": "environment",
            "key": "full_state",
            "value": {"execution_status": "finished"},
            "kind": "ConversationStateUpdateEvent",
        }
    )
    found = compute_insights([user("u1", 0), delta, snapshot, status("s1", 3, "finished")])
    assert (found.events, found.folded, found.errors) == (2, 2, 0)


def test_failures_are_counted_by_why_and_endless_kinds_are_other():
    events = []
    for n in range(60):  # sixty different exit codes, three of them twice
        events += [action(f"a{n}", n, "run"), result(f"o{n}", n + 0.5, f"a{n}", exit_code=n + 1)]
    for n in range(3):
        events += [action(f"b{n}", 70 + n, "run"), result(f"p{n}", 70.5 + n, f"b{n}", exit_code=1)]
    found = compute_insights(events)
    assert found.errors == 63 and len(found.failed_by) == MAX_WHYS + 1
    whys = list(found.failed_by.items())
    assert (whys[0], whys[1], whys[-1]) == (("exit code 1", 4), ("exit code 10", 1), ("other", 10))
    assert sum(found.failed_by.values()) == 63
    summary = "63 (as the list marks them): exit code 1 ×4, exit code 10 ×1, exit code 11 ×1, …"
    assert summary in to_markdown(found)
