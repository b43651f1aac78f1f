"""Insights computed over hand-made event sequences whose answers are known."""

from __future__ import annotations

import pytest

from tests.helpers.insights_events import (
    action,
    agent_error,
    at,
    completion_log,
    condensation,
    full_state,
    metrics,
    reply,
    result,
    stats,
    user,
)
from tui.insights import InsightsBuilder, compute_insights
from tui.insights import actions as actions_module
from tui.insights.reading import seconds
from tui.insights.seen import SeenIds
from tui.models import parse_event


def test_tool_times_are_action_to_result_with_exact_median():
    events = [
        action("a1", 0, "make"),
        result("o1", 2.0, "a1"),
        action("a2", 3, "make test"),
        result("o2", 4.0, "a2"),
        action("a3", 5, "ls"),
        result("o3", 9.0, "a3"),
    ]
    found = compute_insights(events)
    (terminal,) = found.tools
    assert (terminal.calls, terminal.failed, terminal.timed) == (3, 0, 3)
    assert terminal.total_s == pytest.approx(7.0)
    assert terminal.median_s == pytest.approx(2.0)
    assert terminal.longest_s == pytest.approx(4.0)
    assert [a.event_id for a in found.slowest] == ["a3", "a1", "a2"]
    assert found.slowest[0].label == "$ ls"
    assert found.slowest[0].result_id == "o3"
    assert found.tool_s == pytest.approx(7.0)


def test_results_find_their_action_by_action_id_then_tool_call_id():
    # two actions share a tool_call_id (real servers do not guarantee uniqueness): the
    # action_id decides; an agent error has only the tool_call_id
    events = [
        action("a1", 0, "one", call="same"),
        action("a2", 1, "two", call="same"),
        result("o1", 5, "a1", call="same"),
        result("o2", 2, "a2", call="same"),
        action("bad", 3, tool="nope", call="lonely", runnable=False),
        agent_error("e1", 3.5, "lonely"),
    ]
    found = compute_insights(events)
    times = {a.event_id: a.seconds for a in found.slowest}
    assert times == {"a1": pytest.approx(5), "a2": pytest.approx(1), "bad": pytest.approx(0.5)}
    nope = next(t for t in found.tools if t.tool == "nope")
    assert (nope.calls, nope.failed, nope.error_rate) == (1, 1, 1.0)
    assert next(a for a in found.slowest if a.event_id == "bad").label == "nope (could not run)"


def test_failures_count_errors_exit_codes_and_timeouts_not_rejections():
    events = [
        action("a1", 0, "pytest"),
        result("o1", 1, "a1", exit_code=1),
        action("a2", 2, "pytest"),
        result("o2", 3, "a2", timeout=True, exit_code=-1),
        action("a3", 4, "sleep 100"),
        result("o3", 5, "a3", exit_code=-1),  # still running: not a failure
        action("a4", 6, "ok"),
        result("o4", 7, "a4", is_error=True, exit_code=0),
        action("a5", 8, "ls"),
    ]
    found = compute_insights(events)
    (terminal,) = found.tools
    assert (terminal.calls, terminal.failed, terminal.no_result) == (5, 3, 1)
    assert terminal.error_rate == pytest.approx(3 / 4)
    assert found.errors == 3  # the timeline marks the same failures


def test_repeated_failures_are_the_same_command_or_edit_more_than_twice():
    events = []
    for n in range(4):  # the same edit of one file fails four times
        events += [
            action(
                f"e{n}",
                n * 10,
                "str_replace",
                tool="file_editor",
                kind="FileEditorAction",
                path="/w/a.py",
            ),
            result(
                f"eo{n}",
                n * 10 + 1,
                f"e{n}",
                tool="file_editor",
                is_error=True,
                command="str_replace",
            ),
        ]
    for n in range(2):  # twice is not "again and again"
        events += [
            action(f"p{n}", 50 + n, "pytest -x"),
            result(f"po{n}", 50.5 + n, f"p{n}", exit_code=1),
        ]
    for n in range(3):
        events += [
            action(f"m{n}", 60 + n, "mypy ."),
            result(f"mo{n}", 60.5 + n, f"m{n}", exit_code=1),
        ]
    events += [action("m-ok", 70, "mypy ."), result("mo-ok", 71, "m-ok", exit_code=0)]
    found = compute_insights(events)
    assert [(f.label, f.count, f.first_id, f.last_id) for f in found.failures] == [
        ("str_replace /w/a.py", 4, "e0", "e3"),
        ("$ mypy .", 3, "m0", "m2"),
    ]


def test_cost_and_tokens_are_the_last_stats_and_steps_their_growth():
    # log order as an agent server writes it: the update is logged after the action and
    # its result, stamped (by the response) just before the action
    events = [
        user("u1", 0),
        stats("s1", 1.0, agent=metrics(0.10, 1000, 100)),  # a title: no agent event
        action("a1", 2.001, "ls"),
        result("o1", 3.0, "a1"),
        stats("s2", 2.000, agent=metrics(0.50, 3000, 300)),
        action("a2", 4.001, "make"),
        result("o2", 5.0, "a2"),
        stats("s3", 4.000, agent=metrics(0.60, 4000, 350), condenser=metrics(0.05, 500, 50)),
        reply("r1", 6.001),
        stats("s4", 6.000, agent=metrics(0.90, 6000, 400), condenser=metrics(0.05, 500, 50)),
    ]
    found = compute_insights(events)
    assert found.cost == pytest.approx(0.95)
    assert (found.prompt_tokens, found.completion_tokens, found.tokens) == (6500, 450, 6950)
    assert found.cost_from == "stats updates"
    assert found.stats_updates == 4 and found.steps == 4
    assert found.costly_by == "cost"
    assert [(s.stats_id, s.event_id) for s in found.costly] == [
        ("s2", "a1"),  # $0.40
        ("s4", "r1"),  # $0.30
        ("s3", "a2"),  # $0.15 (agent 0.10 + condenser 0.05)
        ("s1", None),  # $0.10, the title call
    ]
    assert found.costly[0].cost == pytest.approx(0.40)
    assert found.costly[0].tokens == 2200
    assert found.costly[0].label == "$ ls"
    assert found.costly[3].open_id == "s1"  # no event: the stats update itself opens
    models = {m.usage_id: m for m in found.models}
    assert (models["agent"].calls, models["agent"].calls_from) == (4, "stats updates")
    assert models["condenser"].calls == 1
    assert models["agent"].latency is None
    assert any("response times are not in the log" in note for note in found.notes)


def test_steps_in_time_order_take_the_event_after_the_update():
    # an app server's history, sorted by timestamp: the update comes just before its action
    events = [
        user("u1", 0),
        stats("s1", 1.000, agent=metrics(0.10, 100, 10)),
        action("a1", 1.001, "ls"),
        result("o1", 2.0, "a1"),
        stats("s2", 3.000, agent=metrics(0.70, 300, 30)),
        action("a2", 3.001, "make"),
        action("a3", 3.002, "make test", response="resp-a2"),  # parallel calls
        result("o2", 4.0, "a2"),
        result("o3", 4.1, "a3"),
    ]
    found = compute_insights(events)
    assert [(s.stats_id, s.event_id, s.label) for s in found.costly] == [
        ("s2", "a2", "$ make (+1 more)"),
        ("s1", "a1", "$ ls"),
    ]


def test_a_server_that_counts_no_cost_ranks_steps_by_tokens():
    events = [
        stats("s1", 1, agent=metrics(0.0, 100, 10)),
        action("a1", 2, "ls"),
        stats("s2", 3, agent=metrics(0.0, 500, 20)),
        action("a2", 4, "ls"),
    ]
    found = compute_insights(events)
    assert found.cost == 0.0 and found.costly_by == "tokens"
    assert [s.tokens for s in found.costly] == [410, 110]
    assert any("counts no cost" in note for note in found.notes)


def test_without_stats_cost_is_unknown_or_the_records():
    events = [action("a1", 0, "ls"), result("o1", 1, "a1")]
    found = compute_insights(events)
    assert (found.cost, found.tokens, found.cost_from) == (None, None, "nothing")
    assert found.costly == [] and found.steps == 0
    assert any("cannot be known" in note for note in found.notes)
    recorded = compute_insights(events, record_cost=1.25)
    assert (recorded.cost, recorded.cost_from, recorded.tokens) == (
        1.25,
        "conversation record",
        None,
    )


def test_completion_logs_give_calls_latency_and_failed_calls():
    events = [
        completion_log("l1", 1, 2.0, cost=0.01, prompt=100, completion=10),
        completion_log("l2", 5, 4.0, cost=0.02, prompt=200, completion=20),
        completion_log("l3", 9, 9.0, error=True),
    ]
    found = compute_insights(events)
    (model,) = found.models
    assert (model.calls, model.calls_from, model.failed_calls) == (3, "completion logs", 1)
    assert (model.latency.count, model.latency.median, model.latency.longest) == (3, 4.0, 9.0)
    assert found.model_s == pytest.approx(15.0)
    # no stats in the log: cost and tokens summed from the logs, and said so
    assert found.cost == pytest.approx(0.03) and found.cost_from == "completion logs"
    assert (found.prompt_tokens, found.completion_tokens) == (300, 30)


def test_full_metrics_give_calls_and_latency_the_snapshots_do_not():
    full = metrics(0.3, 300, 30)
    full["token_usages"] = [{"response_id": f"r{n}", "prompt_tokens": 100} for n in range(3)]
    full["response_latencies"] = [
        {"model": "m", "latency": value, "response_id": f"r{n}"}
        for n, value in enumerate((1.0, 3.0, 2.0))
    ]
    events = [
        stats("s1", 1, agent=metrics(0.1, 100, 10)),
        stats("s2", 2, agent=metrics(0.2, 200, 20)),
        stats("s3", 3, agent=metrics(0.3, 300, 30)),
        full_state("f1", 4, {"agent": full}),  # the same totals: not a step
    ]
    found = compute_insights(events)
    (model,) = found.models
    assert (model.calls, model.calls_from) == (3, "full metrics")
    assert (model.latency.median, model.latency.p90, model.latency.longest) == (2.0, 3.0, 3.0)
    assert found.steps == 3 and found.stats_updates == 4
    assert found.model_s == pytest.approx(6.0)


def test_timeline_counts_per_bucket_carries_totals_and_leaves_quiet_gaps_out():
    events = [
        user("u1", 0),
        stats("s1", 10, agent=metrics(0.5, 1000, 100)),
        action("a1", 20, "pytest"),
        result("o1", 30, "a1", exit_code=1),
        condensation("c1", 70),
        user("u2", 20 * 60),  # twenty minutes later: one quiet gap of ~19 min
        stats("s2", 20 * 60 + 5, agent=metrics(1.5, 3000, 300)),
    ]
    found = compute_insights(events)
    assert found.span_s == pytest.approx(1205)
    assert found.quiet_gaps == 1 and found.quiet_s == pytest.approx(1200 - 70)
    assert found.active_s == pytest.approx(75)
    timeline = found.timeline
    # 1,205 s in at most 120 buckets: half minutes
    assert timeline.bucket_s == 30 and timeline.start == "2026-11-21T10:00:00"
    by_offset = {round(p.offset_s): p for p in timeline.points}
    assert sorted(by_offset) == [0, 30, 60, 1200]
    first = by_offset[0]
    # activity: the user's message and the action (state updates are not activity)
    assert (first.events, first.errors, first.user_messages) == (2, 0, 1)
    assert (first.cost, first.tokens) == (0.5, 1100)
    failed = by_offset[30]  # the failed result
    assert (failed.events, failed.errors, failed.cost, failed.tokens) == (1, 1, 0.5, 1100)
    assert (by_offset[60].condensations, by_offset[60].cost) == (1, 0.5)  # carried
    last = by_offset[1200]
    assert (last.user_messages, last.cost, last.tokens) == (1, 1.5, 3300)
    assert [m.event_id for m in found.condensations] == ["c1"]
    assert found.condensations[0].offset_s == pytest.approx(70)
    assert found.condensations[0].label == "forgot 3 events"


def test_a_long_conversation_is_bucketed_to_a_bounded_number_of_points():
    events = [user(f"u{n}", n * 3600) for n in range(48)]  # two days, one message an hour
    timeline = compute_insights(events).timeline
    assert timeline.bucket_s == 30 * 60  # 47 hours in at most 120 buckets
    assert len(timeline.points) == 48


def test_duplicates_are_listed_but_time_once_and_unreadable_events_still_count():
    broken = parse_event(
        {
            "id": "raw-1",
            "timestamp": at(3),
            "source": "agent",
            "tool_name": "terminal",
            "tool_call_id": "c9",
            "kind": "ActionEvent",  # no thought, no tool_call, no llm_response_id: invalid
            "action": {"kind": "TerminalAction", "command": "make"},
        }
    )
    events = [
        action("a1", 0, "ls"),
        action("a1", 0, "ls"),
        result("o1", 1, "a1"),
        broken,
        result("o9", 5, "raw-1", call="c9"),
    ]
    found = compute_insights(events)
    # five rows, as the list shows them (the second "a1" too), the unreadable one marked;
    # the figures take the repeated id once
    assert (found.events, found.duplicates, found.unreadable, found.errors) == (5, 1, 1, 1)
    (terminal,) = found.tools
    assert terminal.calls == 2 and terminal.timed == 2
    assert {a.event_id: a.seconds for a in found.slowest} == {"a1": 1.0, "raw-1": 2.0}


def test_actions_waiting_for_results_are_bounded(monkeypatch):
    monkeypatch.setattr(actions_module, "MAX_PENDING", 5)
    builder = InsightsBuilder()
    for n in range(50):
        builder.feed(action(f"a{n}", n, f"cmd {n}"))
    assert len(builder.actions._pending) <= 5
    found = builder.finish()
    (terminal,) = found.tools
    assert (terminal.calls, terminal.no_result, terminal.timed) == (50, 50, 0)


def test_secrets_in_commands_are_masked_in_every_label():
    secret = "sk-ant-api03-" + "A" * 40
    command = f"curl -H 'x-api-key: {secret}' https://example.com"
    events = []
    for n in range(3):
        events += [
            action(f"a{n}", n * 2, command),
            result(f"o{n}", n * 2 + 1, f"a{n}", exit_code=7),
        ]
    events += [stats("s1", 10, agent=metrics(0.1, 10, 1))]
    found = compute_insights(events)
    labels = [a.label for a in found.slowest] + [f.label for f in found.failures]
    labels += [s.label for s in found.costly]
    assert labels and all(secret not in label for label in labels)
    assert secret not in repr(found.to_json())


def test_a_secret_where_a_label_is_cut_is_masked_before_the_cut():
    """Issue 32: labels were cut, then masked; a key cut in two is not known by its shape,
    so its start showed. The conversation's title (written in every report) is masked."""
    key = "sk_live_" + "S3NTabcdefghijklmnop"
    command = "echo " + "x" * 219 + " " + key + " && mysql -uroot -pS3cretPw app"
    events = [action(f"a{n}", n * 2, command) for n in range(3)]
    events += [result(f"o{n}", n * 2 + 1, f"a{n}", exit_code=1) for n in range(3)]
    found = compute_insights(events, title="deploy with token=S3NTtitle")
    labels = [a.label for a in found.slowest] + [f.label for f in found.failures]
    assert labels and all(len(label) <= 240 for label in labels)
    assert labels[0].startswith("$ echo xxx")
    dumped = repr(found.to_json())
    for secret in ("S3NT", "S3cretPw"):
        assert secret not in dumped


def test_control_sequences_and_huge_commands_make_short_labels():
    events = [action("a1", 0, "echo \x1b]52;c;aGk=\x07 " + "x" * 100_000), result("o1", 1, "a1")]
    (slow,) = compute_insights(events).slowest
    assert len(slow.label) <= 240 and "\n" not in slow.label


def test_seen_ids_are_exact_through_growth():
    seen = SeenIds()
    ids = [f"{n:08x}-id" for n in range(20_000)]
    assert all(seen.add(i) for i in ids)
    assert not any(seen.add(i) for i in ids[::7])
    assert seen.count == 20_000 and seen.nbytes <= 32 * 20_000 * 2


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-06-16T05:39:18.809928",
        "2026-06-16T05:39:18",
        "2026-06-16T23:59:59.999999",
        "2026-06-17T00:00:00.5",
        "2026-06-16T05:39:18Z",
        "2026-06-16T05:39:18+02:00",
        "2026-06-16T05:39:18.123+00:00",
    ],
)
def test_fast_timestamps_agree_with_fromisoformat(stamp):
    from datetime import UTC, datetime

    seconds("2026-06-16T00:00:00")  # the day is known: the fast path is taken
    seconds("2026-06-17T00:00:00")
    moment = datetime.fromisoformat(stamp)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    assert seconds(stamp) == pytest.approx(moment.timestamp(), abs=1e-6)


@pytest.mark.parametrize(
    "stamp", ["", "yesterday", "2026-06-16T05:39:1x", "2026-06-16T05:39x18", 5]
)
def test_what_is_not_a_timestamp_has_no_time(stamp):
    seconds("2026-06-16T00:00:00")
    assert seconds(stamp) is None
