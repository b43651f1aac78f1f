"""The scripts the simulated agent plays, and which one answers a user's request.

Each script is a generator of steps (``script_steps.py``); :data:`SCRIPTS` names them,
:func:`pick_script` chooses one for a message (the demo's stories are ``live_demo.py``; its
long session, ``session_script.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .events_builder import WORKDIR, text
from .live_builder import LiveBuilder
from .script_steps import (
    TOOL,
    WRAP_UP,
    Confirm,
    Fail,
    Script,
    Stream,
    completion_log,
    create_file,
    edit_file,
    finish,
    parallel,
    plan,
    say,
    split_chunks,
    terminal,
    think,
    unknown_tool,
    view_file,
)
from .session_script import session_script

__all__ = [
    "ROTATION",
    "SCRIPTS",
    "TOOL",
    "WRAP_UP",
    "Confirm",
    "Fail",
    "Stream",
    "execute_pending",
    "pick_script",
    "split_chunks",
]

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
        "pytest -q tests/cli/test_cli.py",
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


def stuck_script(b: LiveBuilder, n: int) -> Script:
    """The same failing command again and again, until stuck detection stops the run."""
    for _ in range(3):
        yield from terminal(
            b,
            "pytest tests/integration -x -q",
            "E   TimeoutError: the payments sandbox did not answer in 30 s\n1 failed in 31.02s",
            1,
            summary="Run the integration tests",
        )
    b.status("stuck")


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
    "stuck": stuck_script,
    "session": session_script,
}

#: Work scripts used in turn for ordinary requests.
ROTATION = ("hello", "flaky", "verbose", "docs")

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
