"""Scripts the simulated agent plays: what a real run emits, one step at a time.

Why generators: a run must be pausable and interruptible *between* steps, and a test must be
able to advance it one step at a time. A script is a generator over a
:class:`~tui.server.live.LiveBuilder`; the code between two ``yield`` statements is one step
(it emits events through the builder, the runner publishes them), and what is yielded tells
the runner how to go on:

- ``None`` (a bare ``yield``): a step ended at a safe point, where the agent would call the
  model next; a new user message may take over here;
- :data:`TOOL`: an action is out and its observation comes next step (never switch here);
- :class:`Stream`: stream this text as StreamingDeltaEvents now, then resume the script in
  the same step (it emits the final MessageEvent, whose text the deltas concatenate to);
- :class:`Confirm`: the action just emitted needs the user's confirmation; the run stops in
  ``waiting_for_confirmation`` and resumes (accept) or drops the script (reject);
- :class:`Fail`: the model call fails: ConversationErrorEvent, status ``error``.

Shapes follow the captured agent-server runs (``agent-server-capture/ws``): a PreToolUse
hook before some terminal actions, parallel tool calls sharing ``llm_response_id``, an
unknown tool answered by an AgentErrorEvent with ``classification``, a stats update after
each observation, FinishAction / a final agent message ending the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .events_builder import text

if TYPE_CHECKING:
    from .live import LiveBuilder

WORKDIR = "/workspace/project"


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
    """An ActionEvent (after a PreToolUse hook if ``hook``), then next step its observation."""
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
    yield TOOL
    b.observe(action_id, call_id, name, observation)
    b.stats()
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


# -- scripts ----------------------------------------------------------------------------------


def hello_script(b: LiveBuilder, n: int) -> Script:
    """The captured ``demo`` run."""
    path = f"{WORKDIR}/hello_{n}.py" if n else f"{WORKDIR}/hello.py"
    yield from plan(
        b,
        [
            ("Say hello in the terminal", "in_progress"),
            (f"Write {path.rsplit('/', 1)[-1]}", "todo"),
        ],
        thought="I'll plan the work first.",
    )
    yield from terminal(
        b, "echo hello world", "hello world", hook=True, summary="Print hello world"
    )
    yield from create_file(b, path, "print('hello from hello.py')\n")
    yield from parallel(
        b,
        f"python3 {path}",
        "hello from hello.py",
        "The file exists; after running it I will check an error path.",
    )
    yield from terminal(
        b,
        "ls /nonexistent-dir",
        "ls: cannot access '/nonexistent-dir': No such file or directory",
        2,
        hook=True,
        summary="List a missing dir",
    )
    yield from edit_file(
        b,
        path,
        "print('hello from hello.py')\n",
        "hello from hello.py",
        "hello, edited",
        summary="Edit greeting",
    )
    yield from unknown_tool(b)
    yield from finish(b, f"All done: {path.rsplit('/', 1)[-1]} created and run.")


_REFUNDS = (
    "import time\n\n\n"
    "def idempotency_key(order_id: str, amount_cents: int) -> str:\n"
    '    return f"refund:{order_id}:{amount_cents}:{int(time.time())}"\n'
)


def flaky_script(b: LiveBuilder, n: int) -> Script:
    test = "pytest tests/test_refunds.py -k idempotency -q --count=50"
    yield from terminal(
        b,
        test,
        "..................F.......\nFAILED tests/test_refunds.py::"
        "test_refund_idempotency[19] - AssertionError: gateway.refund called 2 "
        "times, expected 1\n1 failed, 49 passed in 3.87s",
        1,
        summary="Reproduce the flaky test",
    )
    path = f"{WORKDIR}/src/payments/refunds.py"
    yield from view_file(b, path, _REFUNDS)
    completion_log(b)
    yield from think(
        b,
        "The key embeds int(time.time()): two calls straddling a second get "
        "different keys. The key must depend only on the request.",
    )
    yield from edit_file(
        b,
        path,
        _REFUNDS,
        '    return f"refund:{order_id}:{amount_cents}:{int(time.time())}"',
        '    return f"refund:{order_id}:{amount_cents}"',
        summary="Make the idempotency key deterministic",
    )
    yield from terminal(
        b,
        test,
        "..........................\n50 passed in 3.62s",
        summary="Re-run the flaky test",
        hook=True,
    )
    yield from say(
        b,
        "Fixed: the idempotency key included `int(time.time())`, so a retry that "
        "crossed a second boundary made a new key and a second refund. The key is "
        "now derived from the order and amount only; 50/50 runs pass.",
        reasoning="Summarise cause, fix and evidence.",
    )


_CLI = (
    "import argparse\n\n\n"
    "def main(argv=None):\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('url')\n"
    "    args = parser.parse_args(argv)\n"
    "    return fetch(args.url)\n"
)


def verbose_script(b: LiveBuilder, n: int) -> Script:
    path = f"{WORKDIR}/cli/main.py"
    yield from plan(
        b,
        [
            ("Read cli/main.py", "in_progress"),
            ("Add --verbose", "todo"),
            ("Run lint and tests", "todo"),
        ],
    )
    yield from view_file(b, path, _CLI)
    yield from edit_file(
        b,
        path,
        _CLI,
        "    parser.add_argument('url')\n",
        "    parser.add_argument('url')\n"
        "    parser.add_argument('-v', '--verbose', action='store_true')\n",
        summary="Add a --verbose flag",
    )
    yield from terminal(b, "ruff check cli/", "All checks passed!", summary="Lint")
    yield from unknown_tool(b)
    yield from terminal(
        b,
        "pytest -q tests/test_cli.py",
        "....................\n20 passed in 1.84s",
        summary="Run the CLI tests",
        hook=True,
    )
    yield from plan(
        b, [("Read cli/main.py", "done"), ("Add --verbose", "done"), ("Run lint and tests", "done")]
    )
    yield from finish(b, "Added `-v/--verbose`; lint and the 20 CLI tests pass.")


def docs_script(b: LiveBuilder, n: int) -> Script:
    path = f"{WORKDIR}/docs/usage.md"
    yield from create_file(
        b,
        path,
        "# Usage\n\n```console\n$ python -m cli https://example.com\n```\n\n"
        "Pass `--verbose` to log each request.\n",
    )
    yield from terminal(b, "markdownlint docs/usage.md", "", summary="Lint the docs")
    completion_log(b)
    yield from say(b, "docs/usage.md now documents the CLI, including the new `--verbose` flag.")


def chat_script(b: LiveBuilder, n: int) -> Script:
    yield from say(b, "You're welcome! Anything else I can help with?")


def continue_script(b: LiveBuilder, n: int) -> Script:
    yield from terminal(
        b,
        "git status --short",
        " M cli/main.py\n?? docs/usage.md",
        summary="Check the working tree",
    )
    yield from say(
        b,
        "Nothing is left from the last request: the working tree only has the "
        "changes already described.",
    )


def confirm_script(b: LiveBuilder, n: int) -> Script:
    """A HIGH-risk action that waits for the user's confirmation."""
    yield from terminal(
        b, f"du -sh {WORKDIR}/build", f"1.9G\t{WORKDIR}/build", summary="Measure the build dir"
    )
    command = f"rm -rf {WORKDIR}/build"
    action = {"command": command, "is_input": False, "reset": False, "kind": "TerminalAction"}
    action_id, call_id = b.action(
        "terminal",
        action,
        summary="Delete the build dir",
        security_risk="HIGH",
        thought="This deletes 1.9G; asking for confirmation first.",
    )
    yield Confirm(action_id, call_id, "terminal")
    b.observe(action_id, call_id, "terminal", b.terminal_observation(command, "", 0))
    b.stats()
    yield
    yield from finish(b, "Deleted the build directory (1.9G freed).")


def fail_script(b: LiveBuilder, n: int) -> Script:
    yield from terminal(
        b,
        "gh issue list --repo acme/widgets --label bug --limit 5",
        "#812  Crash when the config file is empty        bug  2d\n"
        "#799  Tooltip overlaps the close button          bug, ui  5d",
        summary="List bug issues",
    )
    yield Fail(
        detail="litellm.InternalServerError: InternalServerError: OpenAIException - "
        "scripted upstream failure"
    )


def execute_pending(b: LiveBuilder, event: dict[str, Any]) -> Script:
    """Run an action found waiting for confirmation in a stored log, once accepted."""
    action = event.get("action") or {}
    observation: dict[str, Any] | None = None
    if action.get("kind") == "TerminalAction":
        observation = b.terminal_observation(action.get("command") or "", "", 0)
    elif action.get("kind") == "FileEditorAction":
        observation = {
            "content": [text("Done.")],
            "is_error": False,
            "command": action.get("command") or "view",
            "path": action.get("path"),
            "prev_exist": True,
            "kind": "FileEditorObservation",
        }
    if observation is not None:
        b.observe(
            event["id"], event.get("tool_call_id") or "", event.get("tool_name") or "", observation
        )
        b.stats()
        yield
    yield from say(b, "Done: the confirmed action ran without errors.")


SCRIPTS: dict[str, Callable[[LiveBuilder, int], Script]] = {
    "hello": hello_script,
    "flaky": flaky_script,
    "verbose": verbose_script,
    "docs": docs_script,
    "chat": chat_script,
    "continue": continue_script,
    "confirm": confirm_script,
    "fail": fail_script,
}

#: Work scripts used in turn for ordinary requests.
ROTATION = ("hello", "flaky", "verbose", "docs")

#: What the demo's autoplay asks next, in turn: ``(script, user message)``.
AUTOPLAY = (
    ("flaky", "Next task: `test_refund_idempotency` fails about 1 run in 20 — find out why."),
    ("verbose", "Next task: add a --verbose flag to cli/main.py."),
    ("chat", "Thanks!"),
    ("docs", "Next task: document the CLI in docs/usage.md."),
    ("confirm", "Next task: free some disk space in the project."),
    ("hello", "Next task: say hello, write hello.py and run it."),
    ("fail", "Next task: summarize the open bugs in acme/widgets."),
)

_THANKS = ("thanks", "thank you", "thx", "great", "ok", "cool")


def pick_script(request: str | None, turn: int) -> str:
    """The script answering ``request`` (None: a run without a new message).

    Markers in the message choose a behaviour on purpose (``[fail]``, ``[confirm]``,
    ``[chat]``, or a script name in brackets, e.g. ``[docs]``); a short thank-you gets a
    chat reply; anything else takes the next work script in :data:`ROTATION`.
    """
    if request is None:
        return "continue"
    lowered = request.lower()
    for name in SCRIPTS:
        if f"[{name}]" in lowered:
            return name
    if lowered.strip(" !.") in _THANKS or len(lowered.strip()) <= 3:
        return "chat"
    return ROTATION[turn % len(ROTATION)]
