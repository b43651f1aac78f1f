"""Insights of the real samples (agent-server captures, SDK fixtures, CLI trajectories):
known answers, read off the files by hand."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.helpers.samples import SAMPLES, event_files
from tui.insights import compute_insights
from tui.insights import steps as steps_module
from tui.insights.report import to_json, to_markdown
from tui.models import parse_event

CAPTURE = SAMPLES / "agent-server-capture"


def persisted(name: str) -> list:
    (folder,) = CAPTURE.glob(f"persisted/{name}-*")
    return [parse_event(json.loads(p.read_text())) for p in sorted(folder.glob("events/*.json"))]


def frames(name: str) -> list:
    lines = (CAPTURE / "ws" / f"{name}.frames.jsonl").read_text().splitlines()
    return [parse_event(json.loads(line)["frame"]) for line in lines if '"frame"' in line]


def test_the_captured_demo_run():
    found = compute_insights(persisted("demo"), "697ecf519eef41b2bdca3fa62e1da900")
    assert (found.events, found.duplicates, found.unreadable, found.user_messages) == (43, 0, 0, 2)
    # ten stats updates of 120 prompt + 30 completion tokens each, at $0 (a fake model)
    assert (found.stats_updates, found.steps) == (10, 10)
    assert (found.prompt_tokens, found.completion_tokens, found.cost) == (1200, 300, 0.0)
    assert found.costly_by == "tokens"
    # the first response (before the run started: the title) produced no event; the
    # update after the first action (logged after its result, stamped before it) paid for it
    assert (found.costly[0].stats_id, found.costly[0].event_id) == (
        "1bcf7e27-8d59-4619-900b-f9b40cb1e37a",
        None,
    )
    assert (found.costly[1].stats_id, found.costly[1].event_id) == (
        "2817dfc0-bab1-4000-8d48-1ff660622e6f",
        "cc3b93ba-6472-4479-a4d1-898b7e05f46a",
    )
    assert found.costly[4].label == "$ python3 /tmp/ohrun/ws/hello.py (+1 more)"  # parallel
    tools = {t.tool: t for t in found.tools}
    assert (tools["terminal"].calls, tools["terminal"].failed) == (3, 1)  # ls: exit code 2
    assert (tools["file_editor"].calls, tools["file_editor"].failed) == (2, 2)
    assert (tools["no_such_tool"].calls, tools["no_such_tool"].failed) == (1, 1)
    slowest = found.slowest[0]
    assert (slowest.label, slowest.result_id) == (
        "$ echo hello world",
        "99fdb811-4c00-454a-9989-f4aeb3ce70da",
    )
    assert slowest.seconds == pytest.approx(3.577309 - 2.698684)
    assert found.model_s is None and found.models[0].latency is None


def test_the_live_stream_adds_response_times_from_full_state():
    found = compute_insights(frames("demo"))
    (model,) = found.models
    assert (model.calls, model.calls_from) == (10, "full metrics")
    assert model.latency.count == 10
    assert model.latency.longest == pytest.approx(0.021558046340942383)
    assert found.tokens == 1500  # the full_state snapshots repeat the totals: no new steps
    assert found.steps == 10
    slow = compute_insights(frames("slow"))
    # the title's call, then the reply the fake LLM holds back for eight seconds
    latency = slow.models[0].latency
    assert (latency.count, latency.longest) == (2, pytest.approx(8.015415906906128))
    assert latency.median == pytest.approx((0.013680219650268555 + 8.015415906906128) / 2)


def test_the_goal_loop_fixture():
    path = SAMPLES / "sdk-fixtures" / "goal-loop-events.jsonl"
    found = compute_insights(
        [parse_event(json.loads(line)) for line in path.read_text().splitlines()]
    )
    assert (found.prompt_tokens, found.completion_tokens, found.cache_read_tokens) == (
        107458,
        1347,
        68193,
    )
    usages = {m.usage_id: m for m in found.models}
    assert usages["default"].calls == 4 and usages["condenser"].calls == 0
    assert usages["default"].cache_share == pytest.approx(68193 / 107458)
    # one observation's action is not in the fixture: counted, failed, not timed
    (terminal,) = found.tools
    assert (terminal.calls, terminal.failed, terminal.timed) == (3, 3, 2)
    assert found.span_s == pytest.approx(42.365548, abs=1e-3)


def test_cli_trajectories_have_no_stats_and_say_so():
    (folder,) = SAMPLES.glob("cli-trajectories/simple_echo_hello_world")
    events = [parse_event(json.loads(p.read_text())) for p in sorted(folder.glob("*.json"))]
    found = compute_insights(events)
    assert found.cost is None and found.tokens is None and found.costly == []
    assert [t.tool for t in found.tools] == ["terminal"]
    assert any("cost and tokens cannot be known" in n for n in found.notes)


@pytest.mark.parametrize("name", sorted(event_files()))
def test_every_sample_file_makes_insights_and_both_reports(name):
    events = [parse_event(e) for e in event_files()[name]]
    found = compute_insights(events)
    assert found.events + found.folded == len(events)  # the list's rows, and what it folds
    assert json.loads(to_json(found))["events"] == found.events
    assert to_markdown(found).startswith("# Insights")


def test_a_real_agent_server_1_58_run():
    """The `full` scenario of ../shared/real-servers/agent-server/drive.py against agent
    server 1.58.2, read from its event search (tests/data: completion logs' request
    messages and the system prompt cut to keep the file small; nothing else changed).

    In this version an update lands after its action and result, except for a call that
    could not run and the final reply, whose updates land before them; the title's call
    (the second update) takes no event."""
    path = Path(__file__).parents[1] / "data" / "agent-server-1.58.2-full.jsonl"
    found = compute_insights(
        [parse_event(json.loads(line)) for line in path.read_text().splitlines()]
    )
    assert (found.events, found.unreadable, found.stats_updates, found.steps) == (78, 0, 16, 16)
    assert (found.prompt_tokens, found.completion_tokens) == (3630, 320)  # 3,810 + 140
    steps = {s.stats_id[:8]: (s.tokens, s.event_id and s.event_id[:8]) for s in found.costly}
    assert steps["dadec4d4"] == (390, "703a4a79")  # finish
    assert steps["de31aac7"] == (370, "bd74edd6")  # ls of a missing dir
    assert steps["27b1300d"] == (350, "c9b7e92f")  # no_such_tool: its update came first
    assert steps["fd1be72e"] == (260, "629b93a1")  # the reply after the last update
    models = {m.usage_id: m for m in found.models}
    assert (models["agent"].calls, models["agent"].calls_from) == (15, "completion logs")
    assert models["agent"].latency.count == 15
    assert (models["condenser"].calls, models["condenser"].calls_from) == (1, "stats updates")
    assert [m.event_id[:8] for m in found.condensations] == ["9394a81a"]
    tools = {t.tool: (t.calls, t.failed) for t in found.tools}
    assert tools["terminal"] == (5, 1) and tools["no_such_tool"] == (1, 1)


def test_every_step_of_a_real_long_run_finds_its_response(monkeypatch):
    """The `long` scenario (541 events, five condensations) against agent server 1.58.2 on
    a loaded machine, prepared like the `full` run above. Its completion logs name each
    response, and the k-th agent log and the k-th growth of the agent's totals are the same
    response: the truth every step is checked against. Here updates land after their
    response, or before its action, or late (stamped 460 ms after a result, 140 ms before
    the next response)."""
    path = Path(__file__).parents[1] / "data" / "agent-server-1.58.2-long.jsonl.gz"
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    events = [parse_event(json.loads(line)) for line in lines]
    responses = [
        json.loads(e.log_data)["response"]["id"]
        for e in events
        if e.kind == "LLMCompletionLogEvent" and e.usage_id == "agent"
    ]
    first_event = {}
    for e in events:
        response = getattr(e, "llm_response_id", None)
        if response:
            first_event.setdefault(response, e.id)
    truth, seen = {}, 0
    for e in events:
        if e.kind == "ConversationStateUpdateEvent" and e.key == "stats":
            usage = e.value["usage_to_metrics"]["agent"]["accumulated_token_usage"]
            total = usage["prompt_tokens"] + usage["completion_tokens"]
            if total > seen:
                truth[e.id] = first_event.get(responses[len(truth)])  # None: no event (a title)
                seen = total
    monkeypatch.setattr(steps_module, "TOP", 1_000)  # every step, not the ten dearest
    found = compute_insights(events)
    assert (found.events, found.steps, len(found.condensations)) == (541, 137, 5)
    checked = {s.stats_id: s.event_id for s in found.costly if s.stats_id in truth}
    assert len(checked) == len(truth) == 132
    assert checked == truth
