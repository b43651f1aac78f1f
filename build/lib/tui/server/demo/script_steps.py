"""Scripts the simulated agent plays: what a real run emits, one step at a time.

Why generators: a run must be pausable and interruptible *between* steps, and a test must be
able to advance it one step at a time. A script is a generator over a
:class:`~tui.server.demo.live_builder.LiveBuilder`; the code between two ``yield`` statements is one step
(it emits events through the builder, the runner publishes them), and what is yielded tells
the runner how to go on:

- ``None`` (a bare ``yield``): a step ended at a safe point, where the agent would call the
  model next; a new user message may take over here;
- :data:`TOOL`: an action is out and its observation comes next step (never switch here);
- :class:`Stream`: stream this text as StreamingDeltaEvents now, then resume the script in
  the same step (it emits the final MessageEvent, whose text the deltas concatenate to);
- :class:`Confirm`: the action just emitted needs the user's confirmation; the run stops in
  ``waiting_for_confirmation`` and resumes (accept) or drops the script (reject);
- :class:`Fail`: the model call fails: ConversationErrorEvent, status ``error``;
- :data:`WRAP_UP`: a safe point where the run's last steps begin (the demo's looping
  session starts its next lap there, so a run is always going).

A step may take longer than one pace (``LiveBuilder.paced``: a test suite runs for a while,
the model thinks over a failure); the runner waits ``LiveBuilder.wait`` paces before the next.

Shapes follow the captured agent-server runs (``agent-server-capture/ws``): a PreToolUse
hook before some terminal actions, parallel tool calls sharing ``llm_response_id``, an
unknown tool answered by an AgentErrorEvent with ``classification``, a stats update after
each observation, FinishAction / a final agent message ending the run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .events_builder import text
from .live_builder import LiveBuilder


@dataclass(frozen=True)
class Stream:
    """Stream ``text`` (and first ``reasoning``) as deltas before the final message."""

    text: str
    reasoning: str | None = None


@dataclass(frozen=True)
class Confirm:
    action_id: str
    call_id: str
    tool_name: str


@dataclass(frozen=True)
class Fail:
    code: str = "LLMServiceUnavailableError"
    detail: str = (
        "litellm.InternalServerError: InternalServerError: OpenAIException - upstream returned 500"
    )
    classification: tuple[tuple[str, Any], ...] = (
        ("kind", "transient"),
        ("retryable", True),
        ("user_action", "retry"),
    )


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: Yielded between an action and its observation.
TOOL = _Marker("TOOL")
#: Yielded (as a safe point) where the run's last steps begin.
WRAP_UP = _Marker("WRAP_UP")

Script = Iterator[Any]


def split_chunks(value: str, words: int = 2) -> list[str]:
    """Token-like chunks (every ``words`` words, keeping the spaces) that join to ``value``."""
    parts = value.split(" ")
    chunks = []
    for start in range(0, len(parts), words):
        piece = " ".join(parts[start : start + words])
        if start + words < len(parts):
            piece += " "
        chunks.append(piece)
    return [c for c in chunks if c] or [value]


# -- steps ------------------------------------------------------------------------------------


def say(
    b: LiveBuilder, message: str, *, reasoning: str | None = None, finished: bool = True
) -> Script:
    """A streamed agent message (one step); it ends the run unless ``finished`` is false."""
    yield Stream(message, reasoning)
    b.agent(message, reasoning=reasoning)
    if finished:
        b.status("finished")
    yield


def tool(
    b: LiveBuilder,
    name: str,
    action: dict[str, Any],
    observation: dict[str, Any],
    *,
    summary: str | None = None,
    thought: str = "",
    risk: str = "LOW",
    arguments: dict[str, Any] | None = None,
    hook: bool = False,
) -> Script:
    """An ActionEvent (after a PreToolUse hook if ``hook``), then next step its observation
    (as long after as the tool runs: ``LiveBuilder.paced``)."""
    runs, then = b.take_pacing()
    action_id = b.ids.uuid()
    if hook:
        b.hook("PreToolUse", name, action_id, dict(action, timeout=None))
    action_id, call_id = b.action(
        name,
        action,
        summary=summary,
        thought=thought,
        security_risk=risk,
        arguments=arguments,
        event_id=action_id,
    )
    b.wait = runs
    yield TOOL
    b.observe(action_id, call_id, name, observation)
    b.stats()
    b.wait = then
    yield


def terminal(
    b: LiveBuilder,
    command: str,
    output: str,
    exit_code: int = 0,
    *,
    summary: str | None = None,
    thought: str = "",
    hook: bool = False,
    risk: str = "LOW",
) -> Script:
    action = {"command": command, "is_input": False, "reset": False, "kind": "TerminalAction"}
    yield from tool(
        b,
        "terminal",
        action,
        b.terminal_observation(command, output, exit_code),
        summary=summary or f"Run {command.split()[0]}",
        thought=thought,
        risk=risk,
        hook=hook,
    )


def create_file(b: LiveBuilder, path: str, content: str, *, summary: str | None = None) -> Script:
    action = {"command": "create", "path": path, "file_text": content, "kind": "FileEditorAction"}
    observation = {
        "content": [text(f"File created successfully at: {path}")],
        "is_error": False,
        "command": "create",
        "path": path,
        "prev_exist": False,
        "new_content": content,
        "kind": "FileEditorObservation",
    }
    yield from tool(
        b,
        "file_editor",
        action,
        observation,
        summary=summary or f"Create {path.rsplit('/', 1)[-1]}",
        risk="MEDIUM",
    )


def view_file(b: LiveBuilder, path: str, content: str) -> Script:
    action = {"command": "view", "path": path, "kind": "FileEditorAction"}
    numbered = "\n".join(f"{n:6}\t{line}" for n, line in enumerate(content.splitlines(), 1))
    observation = {
        "content": [text(f"Here's the result of running `cat -n` on {path}:\n{numbered}\n")],
        "is_error": False,
        "command": "view",
        "path": path,
        "prev_exist": True,
        "kind": "FileEditorObservation",
    }
    yield from tool(b, "file_editor", action, observation, summary=f"View {path}")


def edit_file(
    b: LiveBuilder,
    path: str,
    content: str,
    old: str,
    new: str,
    *,
    summary: str | None = None,
    thought: str = "",
) -> Script:
    action = {
        "command": "str_replace",
        "path": path,
        "old_str": old,
        "new_str": new,
        "kind": "FileEditorAction",
    }
    after = content.replace(old, new, 1)
    snippet = "\n".join(f"{n:6}\t{line}" for n, line in enumerate(after.splitlines()[:8], 1))
    observation = {
        "content": [
            text(
                f"The file {path} has been edited. Here's the result of running `cat -n`"
                f" on a snippet of {path}:\n{snippet}\nReview the changes and make sure "
                "they are as expected. Edit the file again if necessary."
            )
        ],
        "is_error": False,
        "command": "str_replace",
        "path": path,
        "prev_exist": True,
        "old_content": content,
        "new_content": after,
        "kind": "FileEditorObservation",
    }
    yield from tool(
        b,
        "file_editor",
        action,
        observation,
        summary=summary or f"Edit {path.rsplit('/', 1)[-1]}",
        thought=thought,
        risk="MEDIUM",
    )


def plan(b: LiveBuilder, tasks: list[tuple[str, str]], *, thought: str = "") -> Script:
    task_list = [{"title": title, "notes": "", "status": status} for title, status in tasks]
    action = {"command": "plan", "task_list": task_list, "kind": "TaskTrackerAction"}
    observation = {
        "content": [text(f"Task list has been updated with {len(task_list)} item(s).")],
        "is_error": False,
        "command": "plan",
        "task_list": task_list,
        "kind": "TaskTrackerObservation",
    }
    yield from tool(
        b, "task_tracker", action, observation, summary="Plan the work", thought=thought
    )


def think(b: LiveBuilder, thought: str) -> Script:
    yield from tool(
        b,
        "think",
        {"thought": thought, "kind": "ThinkAction"},
        {
            "content": [text("Your thought has been logged.")],
            "is_error": False,
            "kind": "ThinkObservation",
        },
        summary=f"think: {thought[:40]}",
        arguments={"thought": thought},
    )


def parallel(b: LiveBuilder, command: str, output: str, thought: str) -> Script:
    """Two tool calls from one model response (terminal + think), as in the capture."""
    response = b.llm_call()
    run = {"command": command, "is_input": False, "reset": False, "kind": "TerminalAction"}
    run_id = b.ids.uuid()
    b.hook("PreToolUse", "terminal", run_id, dict(run, timeout=None))
    run_id, run_call = b.action(
        "terminal", run, summary=f"Run {command.split()[0]}", response_id=response, event_id=run_id
    )
    think_id, think_call = b.action(
        "think",
        {"thought": thought, "kind": "ThinkAction"},
        summary=f"think: {thought[:40]}",
        response_id=response,
        arguments={"thought": thought},
    )
    yield TOOL
    b.observe(run_id, run_call, "terminal", b.terminal_observation(command, output, 0))
    b.observe(
        think_id,
        think_call,
        "think",
        {
            "content": [text("Your thought has been logged.")],
            "is_error": False,
            "kind": "ThinkObservation",
        },
    )
    b.stats()
    yield


def unknown_tool(b: LiveBuilder) -> Script:
    """A call to a tool that does not exist: ActionEvent without ``action`` + AgentErrorEvent."""
    _action_id, call_id = b.action("no_such_tool", None, arguments={"x": 1})
    b.emit(
        "AgentErrorEvent",
        {
            "tool_name": "no_such_tool",
            "tool_call_id": call_id,
            "error": "Tool 'no_such_tool' not found. Available: ['terminal', 'file_editor', "
            "'task_tracker', 'finish', 'think']",
            "classification": {"kind": "agent_action", "retryable": True, "user_action": "retry"},
        },
        source="agent",
    )
    b.stats()
    yield


def completion_log(b: LiveBuilder) -> None:
    """An LLMCompletionLogEvent for the latest model call (not a step of its own)."""
    usage = b.token_usages[-1] if b.token_usages else {}
    log_data = {
        "messages": [{"role": "user", "content": "…"}],
        "response": {
            "id": usage.get("response_id", ""),
            "model": b.model,
            "choices": [{"finish_reason": "tool_calls"}],
        },
        "usage": {
            "prompt_tokens": usage.get("prompt_tokens", 0),
            "completion_tokens": usage.get("completion_tokens", 0),
        },
        "cost": b.costs[-1]["cost"] if b.costs else 0.0,
        "timestamp": b.clock(),
    }
    b.emit(
        "LLMCompletionLogEvent",
        {
            "filename": f"{b.model.replace('/', '__')}-{b.clock():.3f}.json",
            "log_data": json.dumps(log_data),
            "model_name": b.model,
            "usage_id": "agent",
        },
        source="environment",
        move=False,
    )


def finish(b: LiveBuilder, message: str) -> Script:
    """FinishAction + FinishObservation, status ``finished`` (one step, as captured)."""
    action_id, call_id = b.action(
        "finish",
        {"message": message, "kind": "FinishAction"},
        summary=f"finish: {message[:40]}",
        arguments={"message": message},
    )
    b.observe(
        action_id,
        call_id,
        "finish",
        {"content": [text(message)], "is_error": False, "kind": "FinishObservation"},
    )
    b.status("finished")
    b.stats()
    yield
