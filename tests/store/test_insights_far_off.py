"""Far-off timestamps (hostile testing, issue 32): one event stamped in the year 9999 froze
the insights view and the timeline, stamps from year 1 to 9999 took hundreds of MB, Go's
zero time alone seconds, because the timeline's buckets and the plot's ticks grew with the
span. Such events still count, but time nothing (a note says how many were left out), and
the buckets and ticks are bounded in number whatever the span."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from tests.helpers.insights_events import T0, action, at, result, typed, user
from tui.app.widgets.charts.insight_charts import merged, time_ticks
from tui.cli import main
from tui.insights import InsightsBuilder, compute_insights
from tui.insights.report import to_markdown
from tui.insights.summary import glance
from tui.insights.timeline import MAX_POINTS
from tui.server import Store
from tui.server.views import conversation_info

#: what hostile and broken servers stamp: Go's zero time, a "never", year 1, the Unix epoch
FAR_OFF = (
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999",
    "0001-01-01T00:00:00",
    "1970-01-01T00:00:00Z",
)
MAX_TICKS = 6  # about five ticks across the span, and the one at its start


def _message(event_id: str, timestamp: str) -> dict:
    return {
        "id": event_id,
        "timestamp": timestamp,
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        "kind": "MessageEvent",
    }


def _action_at(event_id: str, timestamp: str):
    event = action(event_id, 0).model_dump(mode="json")
    return typed({**event, "timestamp": timestamp})


def _run() -> list:
    """A two-minute run: a user message, three timed tool calls."""
    events = [user("u0", 0)]
    for n in range(3):
        events += [action(f"a{n}", 10 + 30 * n), result(f"r{n}", 15 + 30 * n, f"a{n}")]
    return events


def _bounded(insights) -> None:
    timeline = insights.timeline
    assert len(timeline.points) <= MAX_POINTS + 1
    ticks, labels = time_ticks(insights)
    assert len(ticks) == len(labels) <= MAX_TICKS
    width, bars = merged(insights, 40)
    assert len(bars) <= 40 and width >= timeline.bucket_s


@pytest.mark.parametrize("stamp", FAR_OFF)
def test_one_far_off_event_counts_and_times_nothing(stamp):
    events = [*_run(), typed(_message("far", stamp))]
    insights = compute_insights(events, "c1")
    plain = compute_insights(_run(), "c1")
    assert insights.events == plain.events + 1 and insights.user_messages == 2
    assert insights.far_off == 1
    # the run's times are the run's: span, buckets, ticks, marks
    assert (insights.span_s, insights.first_timestamp, insights.last_timestamp) == (
        plain.span_s,
        plain.first_timestamp,
        plain.last_timestamp,
    )
    assert insights.timeline == plain.timeline and insights.timeline.bucket_s == 10
    assert time_ticks(insights) == time_ticks(plain)
    _bounded(insights)
    note = next(n for n in insights.notes if "far-off" in n)
    assert note.startswith("1 event with far-off times (such as ")
    assert "left out of the timeline, the span and the durations" in note
    how_long = dict(glance(insights))["How long"]
    assert how_long.endswith("; 1 event with far-off times left out")
    assert "far-off" in to_markdown(insights)


def test_far_off_actions_time_no_tool_call():
    """An action stamped in 9999 whose result came in 2026 is no 8,000-year tool call."""
    events = [
        *_run(),
        _action_at("late", "9999-12-31T23:59:59"),
        result("r-late", 100, "late"),
        _action_at("early", "0001-01-01T00:00:00Z"),
        result("r-early", 110, "early"),
    ]
    insights = compute_insights(events)
    assert insights.far_off == 2
    assert insights.tool_s == pytest.approx(15.0)  # the three timed calls, 5 s each
    assert all(timed.seconds <= 5.0 for timed in insights.slowest)
    assert insights.span_s == pytest.approx(110.0)


def test_only_far_off_stamps_say_so():
    insights = compute_insights([typed(_message(f"f{n}", s)) for n, s in enumerate(FAR_OFF)])
    assert insights.far_off == len(FAR_OFF) and insights.span_s is None
    assert not insights.timeline.points and time_ticks(insights) == ([], [])
    assert dict(glance(insights))["How long"] == "unknown (only 4 events with far-off times)"


def test_a_century_of_stamps_keeps_the_buckets_and_ticks_bounded():
    """Stamps the years agents run in, spread over a century, one a month: the bucket count
    is bounded, not the span; the builder keeps one sparse bucket per distinct ten seconds
    it saw (fewer than the events), never one per bucket of the span."""
    start = datetime(2000, 1, 1)
    builder = InsightsBuilder("c1")
    events = 0
    for month in range(1200):
        builder.feed(_message(f"m{month}", (start + timedelta(days=30.4 * month)).isoformat()))
        events += 1
    builder.feed(_message("last", "2099-12-31T23:59:59"))
    events += 1
    assert len(builder.timeline._grains) <= events
    insights = builder.finish()
    assert insights.far_off == 0 and insights.events == events
    _bounded(insights)
    assert insights.timeline.bucket_s % (7 * 86400) == 0  # whole weeks
    _, labels = time_ticks(insights)
    assert labels[0] == "2000-01-01" and all(len(label) == 10 for label in labels)
    table = [line for line in to_markdown(insights).splitlines() if line.startswith("| 20")]
    assert 0 < len(table) <= MAX_POINTS + 1


def test_ohtui_insights_of_a_served_conversation_with_far_off_stamps(make_server, capsys):
    """Through the reference server and the CLI: the report completes, the far-off events
    counted and said, the timeline the run's own."""
    cid = "fa70ff0000000000000000000000000a"
    store = Store()
    store.put_conversation(
        conversation_info(
            id=cid,
            sandbox_id="sb-far",
            title="far-off stamps",
            created_at=at(0) + "Z",
            updated_at=at(120) + "Z",
            execution_status="finished",
        )
    )
    run = [event.model_dump(mode="json") for event in _run()]
    far = [_message(f"far{n}", stamp) for n, stamp in enumerate(FAR_OFF)]
    store.append_events(cid, [*run[:3], *far, *run[3:]])
    server = make_server(store)
    assert main(["--url", server.base_url, "insights", cid, "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["events"] == len(run) + len(FAR_OFF) and data["far_off"] == len(FAR_OFF)
    assert data["first_timestamp"] == at(0) and data["span_s"] == pytest.approx(75.0)
    assert data["timeline"]["bucket_s"] == 10 and len(data["timeline"]["points"]) <= 8
    assert data["timeline"]["start"] == T0.isoformat()
    assert any("4 events with far-off times" in note for note in data["notes"])
    assert main(["--url", server.base_url, "insights", cid]) == 0
    report = capsys.readouterr().out
    assert "4 events with far-off times left out" in report
