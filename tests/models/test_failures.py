"""One definition of failure (``tui.models.failure``), and everyone using it alike.

Each failure shape is a named case; then one walk over every sample in ``../shared`` and
every real capture in ``tests/data`` checks, file by file, that the typed, raw and plain
forms of each event are judged the same, that the list marks exactly those rows, that
insights count what the list shows and marks, that the transcript marks as many, and that
the board's "Last error" is the newest of them; the corpus's failures are pinned by shape.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.samples import event_files
from tui.app.board.fold import apply_tail
from tui.app.board.row import BoardRow
from tui.app.store.rows import make_row, summarize
from tui.app.widgets.conversation.event_views import observation_widgets
from tui.export import MarkdownExporter
from tui.insights import compute_insights
from tui.models import RawEvent, failure_of, is_transient, parse_event, parse_event_json
from tui.models.failure import ERROR, FAILED, REJECTED, UNREADABLE, Failure, observation_failure
from tui.text import one_line

DATA = Path(__file__).parents[1] / "data"
_n = 0


def event(kind: str, source: str = "environment", **fields: Any) -> dict[str, Any]:
    global _n
    _n += 1
    return {
        "id": f"ev-{_n}",
        "timestamp": f"2026-11-21T10:00:{_n % 60:02d}.000000",
        "source": source,
        **fields,
        "kind": kind,
    }


def observation(tool: str = "terminal", **obs: Any) -> dict[str, Any]:
    return event(
        "ObservationEvent",
        tool_name=tool,
        tool_call_id="call-1",
        observation={"content": [{"type": "text", "text": "out"}], **obs},
        action_id="action-1",
    )


def terminal(**obs: Any) -> dict[str, Any]:
    return observation(kind="TerminalObservation", command="make", **obs)


def hook(**fields: Any) -> dict[str, Any]:
    return event(
        "HookExecutionEvent",
        "hook",
        hook_event_type="PreToolUse",
        hook_command="./guard.sh",
        tool_name="terminal",
        **fields,
    )


def judged(data: dict[str, Any]) -> Failure | None:
    """The verdict on an event, checked to be the same typed (valid) and as plain fields."""
    typed = parse_event(data)
    assert not isinstance(typed, RawEvent), typed.error
    found = failure_of(typed)
    assert failure_of(data) == found
    return found


# --- each shape, by name -----------------------------------------------------------------------


def test_error_events_are_failures():
    agent = event(
        "AgentErrorEvent", "agent", tool_name="nope", tool_call_id="c", error="Tool 'nope'"
    )
    conversation = event("ConversationErrorEvent", code="LLMServiceUnavailableError", detail="x")
    server = event("ServerErrorEvent", code="InvalidFrame", detail="not JSON")
    assert judged(agent) == Failure(ERROR, "agent error")
    assert judged(conversation) == Failure(ERROR, "conversation error")
    assert judged(server) == Failure(ERROR, "server error")


def test_an_error_result_of_any_tool_is_a_failure():
    edit = observation("file_editor", kind="FileEditorObservation", command="create", is_error=True)
    assert judged(edit) == Failure(FAILED, "tool error")
    assert judged(observation("think", kind="ThinkObservation")) is None


def test_a_command_that_exits_non_zero_is_a_failure_whichever_field_says_so():
    # the SDK writes the code twice, at the top and in metadata; older logs only in metadata
    both = terminal(exit_code=2, metadata={"exit_code": 2})
    metadata_only = terminal(exit_code=None, metadata={"exit_code": 1})
    assert judged(both) == Failure(FAILED, "exit code 2")
    assert judged(metadata_only) == Failure(FAILED, "exit code 1")
    assert judged(terminal(exit_code=137)) == Failure(FAILED, "exit code 137")


def test_exit_zero_and_still_running_are_not_failures():
    assert judged(terminal(exit_code=0)) is None
    # −1: the command hit the soft timeout and is still running (the agent may wait longer)
    assert judged(terminal(exit_code=-1, metadata={"exit_code": -1})) is None
    assert judged(terminal(exit_code=None)) is None  # no code at all: metadata says −1


def test_a_timeout_and_an_error_flag_fail_a_command_too():
    assert judged(terminal(exit_code=-1, timeout=True)) == Failure(FAILED, "timed out")
    # the goal-loop fixture's refused command: no exit code, the error flag says it
    refused = terminal(exit_code=None, is_error=True, metadata={"exit_code": -1})
    assert judged(refused) == Failure(FAILED, "tool error")
    # the terminal's own words first: the exit code says more than the flag
    assert judged(terminal(exit_code=2, is_error=True)) == Failure(FAILED, "exit code 2")


def test_rejected_actions_are_failures_by_whom():
    def rejection(source: str) -> dict[str, Any]:
        return event(
            "UserRejectObservation",
            tool_name="terminal",
            tool_call_id="c",
            rejection_reason="Too risky",
            rejection_source=source,
            action_id="a",
        )

    assert judged(rejection("user")) == Failure(REJECTED, "rejected by the user")
    assert judged(rejection("hook")) == Failure(REJECTED, "rejected by a hook")


def test_a_failed_hook_is_a_failure_a_blocking_one_is_not():
    assert judged(hook(success=True, exit_code=0)) is None
    failed = hook(success=False, exit_code=1, error="guard.sh: not found")
    assert judged(failed) == Failure(FAILED, "hook failed (exit code 1)")
    # a block is the hook doing its job: the action's rejection is the marked event
    assert judged(hook(success=False, blocked=True, exit_code=2, reason="policy")) is None


def test_an_acp_tool_call_that_says_it_failed():
    def call(**fields: Any) -> dict[str, Any]:
        return event("ACPToolCallEvent", "agent", tool_call_id="t", title="Run tests", **fields)

    assert judged(call(status="completed")) is None
    assert judged(call(status="failed")) == Failure(FAILED, "tool call failed")
    assert judged(call(status="completed", is_error=True)) == Failure(FAILED, "tool call failed")


def test_unreadable_events_are_failures_newer_kinds_are_not():
    broken = parse_event_json(b'{"id": "x", "kind": "ActionEvent", "source": "agent"}')
    assert isinstance(broken, RawEvent)
    assert failure_of(broken) == Failure(UNREADABLE, "unreadable: does not match the schema")
    bad_json = parse_event_json(b'{"id": "x", "kind":')
    assert failure_of(bad_json) == Failure(UNREADABLE, "unreadable: invalid JSON")
    newer = parse_event({"id": "n", "kind": "GoalEvent", "source": "agent", "goal": "ship"})
    assert isinstance(newer, RawEvent) and newer.unknown_kind and failure_of(newer) is None
    # the local-folder server's row for a file it could not read: unknown kind, yet a failure
    unreadable = {"id": "f", "kind": "UnreadableEventFile", "error": "not JSON"}
    assert failure_of(parse_event(unreadable)) == Failure(UNREADABLE, "unreadable event file")
    assert failure_of(unreadable) == Failure(UNREADABLE, "unreadable event file")


def test_other_events_and_odd_values_are_not_failures():
    for kind in ("MessageEvent", "ConversationStateUpdateEvent", "PauseEvent", "TokenEvent"):
        assert failure_of({"kind": kind, "is_error": True}) is None
    odd = {"kind": "ObservationEvent", "observation": {"kind": "TerminalObservation"}}
    for code in (True, "2", 2.0, None):
        odd["observation"]["exit_code"] = code
        assert failure_of(odd) is None
    assert failure_of({"kind": "ObservationEvent", "observation": "not an object"}) is None
    assert failure_of({}) is None and failure_of([]) is None and failure_of(None) is None
    assert observation_failure(None) is None


def test_the_list_marks_failures_and_folds_transient_events():
    rows = {
        "exit": make_row(parse_event(terminal(exit_code=2))),
        "ok": make_row(parse_event(terminal(exit_code=0))),
        "raw": make_row(parse_event_json(b"{not json")),
    }
    assert (rows["exit"].flag, rows["ok"].flag, rows["raw"].flag) == ("error", "", "raw")
    delta = parse_event(event("StreamingDeltaEvent", "agent", content="he"))
    snapshot = parse_event(event("ConversationStateUpdateEvent", key="full_state", value={}))
    status = parse_event(event("ConversationStateUpdateEvent", key="execution_status", value="x"))
    assert [is_transient(e) for e in (delta, snapshot, status)] == [True, True, False]
    assert [make_row(e).transient for e in (delta, snapshot, status)] == [True, True, False]


# --- every sample and real capture -------------------------------------------------------------


def captures() -> dict[str, list[Any]]:
    """Every event file in ../shared/samples, then the real servers' captures in tests/data."""
    found: dict[str, list[Any]] = dict(event_files())
    full = (DATA / "agent-server-1.58.2-full.jsonl").read_text().splitlines()
    found["data/agent-server-1.58.2-full.jsonl"] = [json.loads(line) for line in full]
    with gzip.open(DATA / "agent-server-1.58.2-long.jsonl.gz", "rt") as long:
        found["data/agent-server-1.58.2-long.jsonl.gz"] = [json.loads(line) for line in long]
    found["data/real_app_history.json"] = json.loads((DATA / "real_app_history.json").read_text())
    return found


NOW = datetime(2026, 11, 21, 12, 0)


def test_every_sample_and_capture_is_judged_alike_everywhere():
    files = captures()
    assert len(files) > 150 and sum(map(len, files.values())) > 1_000  # nothing went missing
    shapes: Counter[tuple[str, str]] = Counter()
    for name, items in files.items():
        typed = [parse_event(item) for item in items]
        failures = []
        for item, parsed in zip(items, typed, strict=True):
            found = failure_of(parsed)
            # the same verdict typed, as plain fields (insights) and read from the wire
            assert failure_of(item) == found, (name, item.get("id"))
            assert failure_of(parse_event_json(json.dumps(item))) == found, name
            # the list marks exactly these rows
            assert make_row(parsed).is_error == (found is not None), (name, item.get("id"))
            failures.append(found)
            if found is not None:
                shapes[found.what, found.why] += 1
        shown = [f for f, e in zip(failures, typed, strict=True) if not is_transient(e)]
        marked = sum(f is not None for f in shown)
        # insights count what the list shows and marks, read typed or untyped
        for read in (typed, items):
            insights = compute_insights(read)
            assert (insights.events, insights.errors) == (len(shown), marked), name
        # the transcript marks as many
        exporter = MarkdownExporter()
        for parsed in typed:
            exporter.feed(parsed)
        assert exporter.failures == sum(f is not None for f in failures), name
        # the board's last error: the newest failure, in the list's words
        row = BoardRow("here", "c")
        apply_tail(row, typed[::-1], None, NOW)
        newest = next((e for e, f in zip(typed[::-1], failures[::-1]) if f is not None), None)
        assert row.error == (one_line(summarize(newest), 300) if newest is not None else "")
    # the corpus's failures, by shape (each capture counted as often as it is stored)
    assert shapes == {
        (FAILED, "tool error"): 14,
        (FAILED, "exit code 2"): 6,
        (FAILED, "exit code 1"): 1,
        (ERROR, "agent error"): 6,
        (ERROR, "conversation error"): 3,
        (ERROR, "server error"): 1,
        (REJECTED, "rejected by the user"): 3,
    }


@pytest.mark.parametrize("code", [2, 1, 127])
def test_the_transcript_marks_a_failed_command_by_its_exit_code(code):
    action = parse_event(
        event(
            "ActionEvent",
            "agent",
            thought=[],
            action={"kind": "TerminalAction", "command": "make"},
            tool_name="terminal",
            tool_call_id="call-1",
            tool_call={
                "id": "call-1",
                "name": "terminal",
                "arguments": "{}",
                "origin": "completion",
            },
            llm_response_id="r",
        )
    )
    result = parse_event({**terminal(exit_code=code), "action_id": action.id})
    exporter = MarkdownExporter()
    text = exporter.feed(action) + exporter.feed(result) + exporter.finish()
    assert f"**Exit code {code}**" in text
    assert "1 failure, marked as in the list" in text


def test_the_detail_says_a_code_of_minus_one_is_still_running_unless_it_failed():
    def status_line(**obs: Any) -> str:
        return observation_widgets(parse_event(terminal(**obs)))[0].content.plain

    assert status_line(exit_code=-1) == "exit code -1 (still running)"
    assert status_line(exit_code=-1, timeout=True).startswith("exit code -1  (timed out)")
    assert status_line(exit_code=2) == "exit code 2"
