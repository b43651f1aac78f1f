"""The demo dataset and generated logs for tests and benchmarks.

Why deterministic: screenshots, snapshot tests and bug reports must see the same data on
every run, so everything comes from one seeded ``random.Random`` and a fixed base time
(never the wall clock). Contents imitate the real captures in
``shared/samples/openhands`` (not read at runtime: the server works without them).

The dataset (:func:`load_demo`): 8 conversations on 5 sandboxes (RUNNING ×2, PAUSED,
ERROR, STARTING) and 3 sandbox specs. Together they contain all 19 event kinds; one has
real branches (user messages re-parented onto earlier events, as after ``/navigate``) and
one has ~1,500 events. StreamingDeltaEvent is transient and normally never stored; three
are stored in one conversation (``slow``) so the client's handling of them can be seen.
Their ``parent_id`` is the current head (real deltas carry none).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from tui.models import ROOT_PARENT, parse_event

from .events_builder import ConversationBuilder, SeededIds, text
from .store import Store
from .times import utc_from_clock, utc_text
from .views import conversation_info

DEMO_SEED = 20260820
BASE_TIME = datetime(2026, 8, 20, 9, 0, 0)
WORKDIR = "/workspace/project"

SPECS: list[dict[str, Any]] = [
    {
        "id": "ghcr.io/openhands/agent-server:1.43.1-python",
        "command": ["--port", "8000"],
        "created_at": "2026-08-18T12:00:00.000000Z",
        "initial_env": {
            "OPENVSCODE_SERVER_ROOT": "/openhands/.openvscode-server",
            "OH_ENABLE_VNC": "0",
            "LOG_JSON": "true",
            "OH_CONVERSATIONS_PATH": "/workspace/conversations",
            "OH_BASH_EVENTS_DIR": "/workspace/bash_events",
            "PYTHONUNBUFFERED": "1",
            "ENV_LOG_LEVEL": "20",
        },
        "working_dir": WORKDIR,
    },
    {
        "id": "ghcr.io/openhands/agent-server:1.43.1-nodejs",
        "command": ["--port", "8000"],
        "created_at": "2026-08-18T12:00:00.000000Z",
        "initial_env": {
            "OPENVSCODE_SERVER_ROOT": "/openhands/.openvscode-server",
            "OH_CONVERSATIONS_PATH": "/workspace/conversations",
            "NODE_ENV": "development",
            "NPM_CONFIG_UPDATE_NOTIFIER": "false",
        },
        "working_dir": WORKDIR,
    },
    {
        "id": "registry.example.com/acme/agent-sandbox:2026.08-custom",
        "command": ["/usr/local/bin/start-agent", "--port", "8000", "--workers", "2"],
        "created_at": "2026-08-19T08:30:00.000000Z",
        "initial_env": {"OH_CONVERSATIONS_PATH": "/data/conversations", "ACME_REGION": "eu-west-1"},
        "working_dir": "/home/openhands/workspace",
    },
]

PROFILES: dict[str, dict[str, Any]] = {
    "default": {
        "model": "litellm_proxy/claude-sonnet-4-5",
        "base_url": None,
        "api_key": "sk-demo-0000000000",
    },
    "gpt": {
        "model": "openai/gpt-5.5",
        "base_url": "https://api.openai.com/v1",
        "api_key": "sk-demo-1111111111",
    },
    "broken": {"model": "claude-sonnet", "base_url": "localhost:4000", "api_key": "short"},
}

HOOK_CONFIG = {
    "pre_tool_use": [
        {
            "matcher": "terminal",
            "hooks": [
                {
                    "type": "command",
                    "command": "echo pre-hook-ok",
                    "tools": [],
                    "timeout": 60,
                    "max_iterations": 3,
                    "async_": False,
                }
            ],
        }
    ],
    "post_tool_use": [],
    "user_prompt_submit": [],
    "session_start": [],
    "session_end": [],
    "stop": [],
}


@dataclass
class DemoDataset:
    specs: list[dict[str, Any]]
    sandboxes: list[dict[str, Any]]
    conversations: list[dict[str, Any]]  # AppConversationInfo records, oldest first
    events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # short name -> conversation id


# -- conversation scripts ---------------------------------------------------------------------


def _hello(b: ConversationBuilder) -> None:
    """The captured ``demo`` run: plan, hooks, terminal (incl. exit 2), create + edit, parallel
    calls, an unknown tool with AgentErrorEvent, finish, a follow-up."""
    b.emit(
        "ConversationStateUpdateEvent",
        {"key": "hook_config", "value": HOOK_CONFIG},
        source="environment",
        parent=ROOT_PARENT,
        move=False,
    )
    b.system_prompt()
    b.user("Please say hello, write hello.py and run it.")
    b.stats()
    b.plan(
        [("Say hello in the terminal", "echo", "in_progress"), ("Write hello.py", "", "todo")],
        thought="I'll plan the work first.",
    )
    b.terminal("echo hello world", "hello world", hook=True, summary="Print hello world")
    path = f"{WORKDIR}/hello.py"
    b.file_create(path, "print('hello from hello.py')\n", summary="Create hello.py")
    # two parallel tool calls from one model response
    response = b.llm_call()
    run = {
        "command": f"python3 {path}",
        "is_input": False,
        "reset": False,
        "kind": "TerminalAction",
    }
    run_id = b.ids.uuid()
    b.hook("PreToolUse", "terminal", run_id, run)
    run_id, run_call = b.action(
        "terminal",
        run,
        summary="Run hello.py",
        response_id=response,
        thought="Running the script and noting progress.",
        event_id=run_id,
    )
    think = "The file exists; after running it I will check an error path."
    think_id, think_call = b.action(
        "think",
        {"thought": think, "kind": "ThinkAction"},
        summary="think: check an error path",
        response_id=response,
        arguments={"thought": think},
    )
    b.observe(
        run_id,
        run_call,
        "terminal",
        b.terminal_observation(f"python3 {path}", "hello from hello.py", 0),
    )
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
    b.terminal(
        "ls /nonexistent-dir",
        "ls: cannot access '/nonexistent-dir': No such file or directory",
        2,
        hook=True,
        summary="List a missing dir",
    )
    b.file_replace(
        path,
        "print('hello from hello.py')\n",
        "hello from hello.py",
        "hello, edited",
        summary="Edit greeting",
    )
    b.terminal(f"python3 {path}", "hello, edited", summary="Run hello.py again")
    _bad_id, bad_call = b.action("no_such_tool", None, arguments={"x": 1})
    b.emit(
        "AgentErrorEvent",
        {
            "tool_name": "no_such_tool",
            "tool_call_id": bad_call,
            "error": "Tool 'no_such_tool' not found. Available: ['terminal', 'file_editor', "
            "'task_tracker', 'finish', 'think']",
            "classification": {"kind": "agent_action", "retryable": True, "user_action": "retry"},
        },
        source="agent",
    )
    b.stats()
    b.finish("All done: hello.py created and run.")
    b.status("idle")
    b.user("Thanks!")
    b.agent("You're welcome! Anything else?")
    b.status("finished")


_REFUNDS_OLD = (
    "import time\n\n\n"
    "def idempotency_key(order_id: str, amount_cents: int) -> str:\n"
    "    # one key per refund request\n"
    '    return f"refund:{order_id}:{amount_cents}:{int(time.time())}"\n\n\n'
    "def refund(gateway, order_id: str, amount_cents: int) -> str:\n"
    "    key = idempotency_key(order_id, amount_cents)\n"
    "    return gateway.refund(order_id, amount_cents, idempotency_key=key)\n"
)


def _payments(b: ConversationBuilder) -> None:
    """Reasoning content, thinking + redacted thinking, token ids, completion logs, condensation."""
    b.system_prompt(dynamic_context="Repository: acme/payments (branch fix/flaky-refund-test)")
    b.user(
        "`test_refund_idempotency` in [bold]payments[/bold] fails about 1 run in 20. "
        "Find out why and fix it — don't just add a retry."
    )
    b.stats()
    test = "pytest tests/test_refunds.py -k idempotency -q -p no:randomly --count=50"
    first_action, first_obs = b.terminal(
        test,
        "..................F.........................F.....\n"
        "FAILED tests/test_refunds.py::test_refund_idempotency[31] - AssertionError: "
        "gateway.refund called 2 times, expected 1\n"
        "FAILED tests/test_refunds.py::test_refund_idempotency[46] - AssertionError: "
        "gateway.refund called 2 times, expected 1\n2 failed, 48 passed in 3.87s",
        1,
        summary="Reproduce the flaky test",
        reasoning="Run the test many times first to confirm the flake rate.",
        thinking="A 1-in-20 failure smells like a time boundary. Let me reproduce with repeats "
        "before reading the code.",
    )
    path = f"{WORKDIR}/src/payments/refunds.py"
    b.file_view(path, _REFUNDS_OLD)
    b.think(
        "The key embeds int(time.time()): two calls that straddle a second boundary get "
        "different keys, so the gateway sees two refunds. The key must depend only on the "
        "request, not on the clock."
    )
    b.emit(
        "TokenEvent",
        {
            "prompt_token_ids": [151644, 872, 198, 785, 1273, 374],
            "response_token_ids": [785, 1376, 5711, 882, 1665, 151645],
        },
        source="agent",
        move=False,
    )
    log_data = {
        "messages": [{"role": "user", "content": "…"}],
        "response": {
            "id": b.ids.response_id(),
            "model": b.model,
            "choices": [{"finish_reason": "tool_calls"}],
        },
        "usage": {"prompt_tokens": 5120, "completion_tokens": 212},
        "cost": 0.018541,
        "timestamp": 1755680403.25,
    }
    b.emit(
        "LLMCompletionLogEvent",
        {
            "filename": "litellm_proxy__claude-sonnet-4-5-1755680403.250.json",
            "log_data": json.dumps(log_data),
            "model_name": b.model,
            "usage_id": "agent",
        },
        source="environment",
        move=False,
    )
    b.file_replace(
        path,
        _REFUNDS_OLD,
        '    return f"refund:{order_id}:{amount_cents}:{int(time.time())}"',
        '    return f"refund:{order_id}:{amount_cents}"',
        summary="Make the idempotency key deterministic",
        thought="Drop the timestamp from the key.",
    )
    b.terminal(
        test,
        "..................................................\n50 passed in 3.62s",
        summary="Re-run the flaky test 50 times",
    )
    b.emit("CondensationRequest", source="environment", move=False)
    b.emit(
        "Condensation",
        {
            "forgotten_event_ids": [first_action, first_obs],
            "summary": "Reproduced the flake (2/50 failures): idempotency keys embedded "
            "int(time.time()) and changed across a second boundary.",
            "summary_offset": 1,
            "llm_response_id": b.llm_call(600, 80),
        },
        source="environment",
    )
    b.emit(
        "CondensationSummaryEvent",
        {
            "summary": "User asked to fix a flaky refund test; the cause was a time-based idempotency key.",
        },
        source="environment",
    )
    b.agent(
        "Fixed. `idempotency_key()` appended `int(time.time())`, so a retry that crossed a "
        "second boundary produced a **new** key and a second refund. The key is now derived "
        "from the order and amount only; 50/50 runs pass.",
        reasoning="Summarise cause, fix and evidence.",
        thinking="The user asked for no retries; the fix removes the nondeterminism.",
        redacted="EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
    )
    b.status("idle")


_SETTINGS = (
    "import os\n\n\n"
    "class Config:\n"
    "    def __init__(self):\n"
    "        self.url = os.environ.get('OHTUI_URL', 'http://127.0.0.1:8000')\n"
    "        self.timeout = float(os.environ.get('OHTUI_TIMEOUT', '30'))\n"
)


def _branches(b: ConversationBuilder) -> None:
    """Three branches: two alternative first requests, then a retry from mid-way."""
    system = b.system_prompt()
    path = f"{WORKDIR}/ohtui/settings.py"
    b.user("Refactor the config loader in settings.py to use dataclasses.")
    b.plan(
        [
            ("Read settings.py", "", "in_progress"),
            ("Convert Config to a dataclass", "", "todo"),
            ("Run the tests", "", "todo"),
        ]
    )
    b.file_view(path, _SETTINGS)
    b.file_replace(
        path,
        _SETTINGS,
        "class Config:\n    def __init__(self):",
        "@dataclass\nclass Config:\n    def __post_init__(self):",
        summary="Turn Config into a dataclass",
    )
    b.terminal(
        "pytest -q tests/test_settings.py",
        "......\n6 passed in 0.41s",
        summary="Run settings tests",
    )
    b.agent("Done: `Config` is a dataclass now and the 6 settings tests pass.")
    b.status("finished")
    # the user navigated back to the system prompt and asked for something else
    b.user(
        "Refactor the config loader in settings.py to use pydantic-settings instead.", parent=system
    )
    b.terminal(
        "pip install 'pydantic-settings>=2.4'",
        "Successfully installed pydantic-settings-2.6.1",
        summary="Install pydantic-settings",
    )
    edited = b.file_replace(
        path,
        _SETTINGS,
        "class Config:",
        "class Config(BaseSettings):",
        summary="Subclass BaseSettings",
    )
    b.terminal(
        "pytest -q tests/test_settings.py",
        "..F...\nFAILED tests/test_settings.py::test_env_prefix - KeyError: 'OHTUI_URL'\n"
        "1 failed, 5 passed in 0.57s",
        1,
        summary="Run settings tests",
    )
    b.agent(
        "One test fails: pydantic-settings reads `URL`, not `OHTUI_URL`, without an env prefix."
    )
    b.status("finished")
    # ... and then went back to just after the edit to steer the retry
    b.user("Keep the OHTUI_ env prefix and try again.", parent=edited)
    b.file_replace(
        path,
        _SETTINGS.replace("class Config:", "class Config(BaseSettings):"),
        "class Config(BaseSettings):",
        "class Config(BaseSettings):\n    model_config = SettingsConfigDict(env_prefix='OHTUI_')",
        summary="Add the env prefix",
    )
    b.terminal(
        "pytest -q tests/test_settings.py",
        "......\n6 passed in 0.49s",
        summary="Run settings tests",
    )
    b.finish("Config now uses pydantic-settings with the OHTUI_ prefix; all 6 tests pass.")


def _confirm(b: ConversationBuilder) -> None:
    """Confirmation mode: a user rejection, a hook block, and a pending confirmation."""
    b.system_prompt()
    b.user("Clean up the scratch dir and the old build artifacts.")
    rm = {
        "command": f"rm -rf {WORKDIR}/scratch",
        "is_input": False,
        "reset": False,
        "kind": "TerminalAction",
    }
    action_id, call_id = b.action(
        "terminal", rm, summary="Delete scratch dir", security_risk="HIGH"
    )
    b.status("waiting_for_confirmation")
    b.stats()
    b.status("idle")
    b.emit(
        "UserRejectObservation",
        {
            "tool_name": "terminal",
            "tool_call_id": call_id,
            "rejection_reason": "Too risky",
            "rejection_source": "user",
            "action_id": action_id,
        },
        source="environment",
    )
    b.user("OK — first show me what would be deleted.")
    b.terminal(
        f"du -sh {WORKDIR}/scratch {WORKDIR}/build",
        f"412M\t{WORKDIR}/scratch\n1.9G\t{WORKDIR}/build",
        summary="Measure the directories",
    )
    blocked = {
        "command": f"rm -rf {WORKDIR}/build",
        "is_input": False,
        "reset": False,
        "kind": "TerminalAction",
    }
    blocked_id = b.ids.uuid()
    reason = "Blocked by policy: recursive delete outside /tmp needs approval"
    b.hook(
        "PreToolUse",
        "terminal",
        blocked_id,
        blocked,
        command="./.openhands/hooks/guard-rm.sh",
        blocked=True,
        reason=reason,
    )
    blocked_id, blocked_call = b.action(
        "terminal", blocked, summary="Delete build dir", security_risk="HIGH", event_id=blocked_id
    )
    b.emit(
        "UserRejectObservation",
        {
            "tool_name": "terminal",
            "tool_call_id": blocked_call,
            "rejection_reason": reason,
            "rejection_source": "hook",
            "action_id": blocked_id,
        },
        source="environment",
    )
    b.stats()
    pending = {
        "command": f"find {WORKDIR}/scratch -name 'tmp-*' -delete",
        "is_input": False,
        "reset": False,
        "kind": "TerminalAction",
    }
    b.action(
        "terminal",
        pending,
        summary="Delete only tmp-* files in scratch",
        security_risk="MEDIUM",
        thought="Deleting only the temporary files is safer; asking for confirmation.",
    )
    b.status("waiting_for_confirmation")


def _fail(b: ConversationBuilder) -> None:
    """A server-level error and a conversation-level error that stops the run."""
    b.system_prompt()
    b.user("Summarize the open issues labelled `bug` in acme/widgets.")
    b.stats()
    b.emit(
        "ServerErrorEvent",
        {
            "code": "MCPConnectionError",
            "detail": "Failed to connect to MCP server 'github' at http://127.0.0.1:8931/mcp: "
            "Connection refused",
        },
        source="environment",
        move=False,
    )
    b.terminal(
        "gh issue list --repo acme/widgets --label bug --limit 5",
        "#812  Crash when the config file is empty        bug  2d\n"
        "#799  Tooltip overlaps the close button          bug, ui  5d\n"
        "#774  Import fails on Windows paths with spaces  bug  9d",
        summary="List bug issues",
    )
    b.status("error")
    b.emit(
        "ConversationErrorEvent",
        {
            "code": "LLMServiceUnavailableError",
            "detail": "litellm.InternalServerError: InternalServerError: OpenAIException - "
            "upstream returned 500",
            "classification": {"kind": "transient", "retryable": True, "user_action": "retry"},
        },
        source="environment",
    )


def _slow(b: ConversationBuilder) -> None:
    """ACP tool calls, an interrupt, streamed deltas, a pause."""
    b.system_prompt()
    b.user("Review the README and suggest improvements. Take your time.")
    b.emit(
        "ACPToolCallEvent",
        {
            "tool_call_id": "acp-call-1",
            "title": "Read README.md",
            "status": "completed",
            "tool_kind": "read",
            "raw_input": {"path": "README.md"},
            "raw_output": {"lines": 42},
            "content": [
                {"type": "content", "content": {"type": "text", "text": "# widgets\n\nA small …"}}
            ],
            "is_error": False,
        },
        source="agent",
    )
    b.emit(
        "ACPToolCallEvent",
        {
            "tool_call_id": "acp-call-2",
            "title": "Run `make docs`",
            "status": "failed",
            "tool_kind": "execute",
            "raw_input": {"command": "make docs"},
            "raw_output": {
                "exit_code": 2,
                "stderr": "make: *** No rule to make target 'docs'.  Stop.",
            },
            "is_error": True,
        },
        source="agent",
    )
    b.status("paused")
    b.emit("InterruptEvent", source="user")
    b.user("Try again please, and keep it short.")
    head = b.head
    for piece in ("Three ", "suggestions: ", "add a quick start, "):
        b.emit("StreamingDeltaEvent", {"content": piece}, source="agent", parent=head, move=False)
    b.agent(
        "Three suggestions: add a quick start, document the config file, and link the changelog."
    )
    b.status("finished")
    b.emit("PauseEvent", source="user")
    b.status("paused")


_ASYNC_FILES = {
    "cli/transport.py": (
        "import requests\nimport time\n\n\n"
        "def fetch(url, retries=3):\n"
        "    for attempt in range(retries):\n"
        "        try:\n"
        "            return requests.get(url, timeout=10).content\n"
        "        except requests.Timeout:\n"
        "            time.sleep(2 ** attempt)\n"
        "    raise TimeoutError(url)\n"
    ),
    "cli/main.py": (
        "import sys\n\nfrom .transport import fetch\n\n\n"
        "def main(argv=None):\n"
        "    url = (argv or sys.argv[1:])[0]\n"
        "    sys.stdout.buffer.write(fetch(url))\n"
        "    return 0\n"
    ),
}
_ASYNC_EDITS = [
    ("cli/transport.py", "import requests\nimport time", "import asyncio\n\nimport httpx"),
    ("cli/transport.py", "def fetch(url, retries=3):", "async def fetch(client, url, retries=3):"),
    (
        "cli/transport.py",
        "return requests.get(url, timeout=10).content",
        "return (await client.get(url, timeout=10)).content",
    ),
    ("cli/transport.py", "except requests.Timeout:", "except httpx.TimeoutException:"),
    ("cli/transport.py", "time.sleep(2 ** attempt)", "await asyncio.sleep(2 ** attempt)"),
    ("cli/main.py", "import sys\n", "import asyncio\nimport sys\n\nimport httpx\n"),
    (
        "cli/main.py",
        "    sys.stdout.buffer.write(fetch(url))",
        "    sys.stdout.buffer.write(asyncio.run(_fetch(url)))",
    ),
]
_COMMANDS = [
    ("pytest -q tests/test_cli.py", "....................\n20 passed in 1.84s", 0),
    (
        "pytest -q tests/test_transport.py -x",
        (
            "..F\n______ test_retry_on_timeout ______\n    assert calls == 3\nE   assert 1 == 3\n"
            "FAILED tests/test_transport.py::test_retry_on_timeout - assert 1 == 3\n"
            "1 failed, 2 passed in 0.92s"
        ),
        1,
    ),
    ("ruff check cli/ tests/", "All checks passed!", 0),
    ("git status --short", " M cli/main.py\n M cli/transport.py\n?? tests/test_aio.py", 0),
    (
        "grep -rn 'requests\\.' cli/ | head -5",
        "cli/transport.py:8:            return requests.get(url, timeout=10).content",
        0,
    ),
    (
        "mypy cli/",
        (
            'cli/main.py:9: error: Argument 1 to "write" has incompatible type '
            '"Coroutine[Any, Any, bytes]"; expected "bytes"  [arg-type]\n'
            "Found 1 error in 1 file (checked 4 source files)"
        ),
        1,
    ),
    (
        "python -m cli https://example.com | head -c 60",
        "<!doctype html>\n<html>\n<head>\n    <title>Example Domain</title>",
        0,
    ),
    (
        "timeout 5 python -m cli http://10.255.255.1/",
        "Traceback (most recent call last):\n  ...\nTimeoutError: http://10.255.255.1/",
        1,
    ),
    (
        "ls cli tests",
        "cli:\n__init__.py\n__main__.py\nmain.py\ntransport.py\n\ntests:\ntest_cli.py\ntest_transport.py",
        0,
    ),
]
_THOUGHTS = [
    "httpx.AsyncClient should be created once in main() and passed down, not per request.",
    "The retry test patches time.sleep; it needs to patch asyncio.sleep now.",
    "Keep the sync entry point: main() wraps the coroutine with asyncio.run().",
    "mypy is right: fetch() returns a coroutine now, the caller must await it.",
]
_FOLLOW_UPS = [
    "Looks good. Can you also make the retry delay configurable?",
    "Please keep the public function names unchanged.",
    "Add a test for the timeout path.",
    "What happens on Windows with the Proactor event loop?",
    "Make sure `python -m cli --help` still works.",
]


def _long(b: ConversationBuilder, target: int = 1500) -> None:
    """A long working session (~``target`` events) porting a small CLI to asyncio."""
    rng = b.rng
    b.system_prompt()
    b.user("Port the CLI in cli/ from requests to httpx + asyncio, keeping behaviour the same.")
    b.stats()
    files = dict(_ASYNC_FILES)
    edit_index = 0
    round_no = 0
    condensed = False
    while len(b.events) < target - 12:
        round_no += 1
        roll = rng.random()
        if roll < 0.45:
            command, output, code = rng.choice(_COMMANDS)
            b.terminal(
                command, output, code, summary=f"Run {command.split()[0]}", hook=rng.random() < 0.15
            )
        elif roll < 0.65:
            name = rng.choice(sorted(files))
            b.file_view(f"{WORKDIR}/{name}", files[name])
        elif roll < 0.82:
            name, old, new = _ASYNC_EDITS[edit_index % len(_ASYNC_EDITS)]
            edit_index += 1
            if old not in files[name]:
                lines = files[name].rstrip("\n").splitlines()
                old = lines[-1]
                new = old + f"\n# round {round_no}: keep behaviour identical"
            path = f"{WORKDIR}/{name}"
            b.file_replace(path, files[name], old, new)
            files[name] = files[name].replace(old, new, 1)
        elif roll < 0.92:
            b.think(rng.choice(_THOUGHTS))
        else:
            b.agent(
                f"Progress: {edit_index} edits so far; tests are "
                f"{'green' if rng.random() < 0.6 else 'still failing in test_transport.py'}."
            )
            b.status("finished")
            b.user(rng.choice(_FOLLOW_UPS))
        if not condensed and len(b.events) > target // 2:
            condensed = True
            forgotten = [
                e["id"] for e in b.events[3:120] if e["kind"] != "ConversationStateUpdateEvent"
            ]
            b.emit("CondensationRequest", source="environment", move=False)
            b.emit(
                "Condensation",
                {
                    "forgotten_event_ids": forgotten,
                    "summary": "Ported transport.fetch to httpx.AsyncClient with retries; main() "
                    "wraps it in asyncio.run(); one retry test still patches time.sleep.",
                    "summary_offset": 2,
                    "llm_response_id": b.llm_call(900, 150),
                },
                source="environment",
            )
    b.finish("The CLI now uses httpx + asyncio; behaviour and the public API are unchanged.")


def _sub(b: ConversationBuilder) -> None:
    """A sub-conversation spawned by the long one."""
    b.system_prompt(dynamic_context="Sub-conversation: documentation only.")
    b.user("Update docs/usage.md for the asyncio port (no code changes).")
    b.file_create(
        f"{WORKDIR}/docs/usage.md",
        "# Usage\n\n```console\n$ python -m cli https://example.com\n```\n\n"
        "Requests time out after 10 s and are retried 3 times with backoff.\n",
    )
    b.terminal("markdownlint docs/usage.md", "", summary="Lint the docs")
    b.finish("docs/usage.md describes the asyncio-based CLI.")


# (name, script, title, sandbox index, metadata)
_CONVERSATIONS: list[tuple[str, Any, str, int, dict[str, Any]]] = [
    (
        "hello",
        _hello,
        "Write hello.py and run it",
        0,
        {
            "selected_repository": "octo-org/hello-world",
            "selected_branch": "main",
            "git_provider": "github",
            "trigger": "gui",
            "public": True,
        },
    ),
    (
        "payments",
        _payments,
        "Fix flaky test in [bold]payments[/bold] — “ünïcödé” ✓ 日本語 🚀 [link=https://x]x[/link]",
        0,
        {
            "selected_repository": "acme/payments",
            "selected_branch": "fix/flaky-refund-test",
            "git_provider": "gitlab",
            "trigger": "slack",
            "tags": {"team": "payments"},
            "public": True,
        },
    ),
    (
        "branches",
        _branches,
        "Refactor config loader (three branches)",
        2,
        {
            "selected_repository": "acme/ohtui-config",
            "selected_branch": "main",
            "git_provider": "github",
            "trigger": "gui",
            "public": True,
        },
    ),
    (
        "confirm",
        _confirm,
        "Clean up scratch and build dirs (confirmation mode)",
        0,
        {"trigger": "openhands_api", "public": None},
    ),
    (
        "fail",
        _fail,
        "Summarize open bugs in acme/widgets",
        3,
        {
            "selected_repository": "acme/widgets",
            "git_provider": "github",
            "trigger": "resolver",
            "pr_number": [1234],
            "llm_model": "openai/gpt-5.5",
            "public": True,
        },
    ),
    (
        "slow",
        _slow,
        "Review the README (interrupted, ACP tools)",
        4,
        {"trigger": "automation", "public": True},
    ),
    (
        "long",
        _long,
        "Port the CLI to asyncio (long session)",
        1,
        {
            "selected_repository": "acme/fetch-cli",
            "selected_branch": "asyncio-port",
            "git_provider": "github",
            "trigger": "gui",
            "public": True,
        },
    ),
    (
        "sub",
        _sub,
        "Sub-task: update docs/usage.md",
        1,
        {
            "selected_repository": "acme/fetch-cli",
            "selected_branch": "asyncio-port",
            "git_provider": "github",
            "trigger": "gui",
            "public": True,
        },
    ),
]

# (spec index, status, status detail)
_SANDBOXES = [
    (0, "RUNNING", None),
    (1, "RUNNING", None),
    (0, "PAUSED", None),
    (2, "ERROR", "Container exited with code 137 (OOMKilled)"),
    (0, "STARTING", None),
]


def build_demo(seed: int = DEMO_SEED) -> DemoDataset:
    """The demo dataset as plain data (identical for identical seeds)."""
    rng = random.Random(seed)
    ids = SeededIds(rng)
    sandboxes = []
    for index, (spec_index, status, detail) in enumerate(_SANDBOXES):
        sandboxes.append(
            {
                "id": ids.sandbox_id(),
                "created_at": utc_text(BASE_TIME - timedelta(hours=6 - index)),
                "created_by_user_id": None,
                "sandbox_spec_id": SPECS[spec_index]["id"],
                "status": status,
                "session_api_key": ids.session_key(),
                "status_detail": detail,
                "port": 34010 + 10 * index,
                "due_status": None,
                "due_at": None,
            }
        )
    dataset = DemoDataset(specs=[dict(s) for s in SPECS], sandboxes=sandboxes, conversations=[])
    start = BASE_TIME
    for name, script, title, sandbox_index, meta in _CONVERSATIONS:
        conversation_id = ids.hex32()
        meta = dict(meta)
        model = meta.pop("llm_model", "litellm_proxy/claude-sonnet-4-5")
        builder = ConversationBuilder(
            random.Random(rng.getrandbits(64)), start, conversation_id=conversation_id, model=model
        )
        script(builder)
        parent = dataset.names.get("long") if name == "sub" else None
        dataset.conversations.append(
            conversation_info(
                id=conversation_id,
                sandbox_id=sandboxes[sandbox_index]["id"],
                title=title,
                llm_model=model,
                metrics=builder.metrics(),
                parent_conversation_id=parent,
                created_at=utc_text(start),
                updated_at=utc_text(builder.now),
                execution_status=builder.execution_status,
                **meta,
            )
        )
        dataset.events[conversation_id] = builder.events
        dataset.names[name] = conversation_id
        start = builder.now + timedelta(
            minutes=rng.randint(20, 90), microseconds=rng.randint(1, 999999)
        )
    return dataset


def load_demo(store: Store, seed: int = DEMO_SEED) -> dict[str, str]:
    """Fill ``store`` with the demo dataset; returns ``{short name: conversation id}``.

    Every event is validated on the way in (``strict``): a script that produced an event
    the models reject fails loudly here instead of showing up as a raw event in the UI.
    """
    dataset = build_demo(seed)
    with store.transaction():
        for spec in dataset.specs:
            store.put_spec(spec)
        for sandbox in dataset.sandboxes:
            store.put_sandbox(sandbox)
        for info in dataset.conversations:
            store.put_conversation(info)
            store.append_events(info["id"], dataset.events[info["id"]], strict=True)
    for name, profile in PROFILES.items():
        store.profiles.setdefault(name, dict(profile))
    return dict(dataset.names)


# -- the live demo conversation ---------------------------------------------------------------

#: Seconds between two steps of the demo's live runs (``start_demo_server``, ``ohtui serve``).
DEMO_PACE = 0.7
LIVE_TITLE = "Live: the agent at work (follow it over the websocket)"


def add_live_demo(
    store: Store, *, clock: Callable[[], float] = time.time, seed: int = DEMO_SEED
) -> str:
    """Add the demo's live conversation; returns its id.

    Kept out of :func:`load_demo` so the demo dataset stays identical run to run: this one
    is stamped with the current time (its run produces wall-clock events) and is meant to be
    kept busy by ``create_app(..., autoplay=[id])``. It sits on the oldest RUNNING sandbox
    (so it carries ``conversation_url`` and ``session_api_key``) and ends with an unanswered
    user message, which the first run answers.
    """
    sandboxes, _ = store.search_sandboxes(limit=100)
    running = [s for s in sandboxes if s["status"] == "RUNNING"]
    if not running:
        raise ValueError("add_live_demo needs a RUNNING sandbox (load_demo first)")
    sandbox = running[-1]
    rng = random.Random(f"{seed}:live")
    conversation_id = SeededIds(rng).hex32()
    now = clock()
    builder = ConversationBuilder(
        random.Random(rng.getrandbits(64)),
        datetime.fromtimestamp(now - 5),
        conversation_id=conversation_id,
    )
    builder.emit(
        "ConversationStateUpdateEvent",
        {"key": "hook_config", "value": HOOK_CONFIG},
        source="environment",
        parent=ROOT_PARENT,
        move=False,
    )
    builder.system_prompt()
    builder.user("Please say hello, write hello.py and run it.", run=False)
    builder.status("idle")
    with store.transaction():
        store.put_conversation(
            conversation_info(
                id=conversation_id,
                sandbox_id=sandbox["id"],
                selected_repository="octo-org/hello-world",
                selected_branch="main",
                git_provider="github",
                title=LIVE_TITLE,
                trigger="gui",
                llm_model=builder.model,
                created_at=utc_from_clock(now - 5),
                updated_at=utc_from_clock(now),
                execution_status="idle",
                public=True,
            )
        )
        store.append_events(conversation_id, builder.events, strict=True)
    return conversation_id


# -- generated logs for tests and benchmarks --------------------------------------------------


def _prototypes() -> dict[str, dict[str, Any]]:
    """Full dumps (nulls included) of the few event shapes a generated log repeats."""
    b = ConversationBuilder(random.Random(0), BASE_TIME, conversation_id="0" * 32)
    b.system_prompt()
    b.user("Start the benchmark task.")
    b.terminal("pytest -q", "1 passed", 0)
    b.agent("Progress report.")
    shapes: dict[str, dict[str, Any]] = {}
    for event in b.events:
        key = event["kind"]
        if key == "MessageEvent":
            key = "user" if event["source"] == "user" else "agent"
        elif key == "ConversationStateUpdateEvent":
            key = "state:" + event["key"]
        parsed = parse_event(event)
        shapes.setdefault(key, parsed.model_dump(mode="json"))
    return shapes


def _uuid(getrandbits: Any) -> str:
    h = f"{(getrandbits(128) & ~(0xF000 << 64) & ~(0xC000 << 48)) | (0x4000 << 64) | (0x8000 << 48):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def generate_events(
    n_events: int,
    *,
    seed: int = 0,
    branches: int = 0,
    start: datetime = BASE_TIME,
    conversation_id: str = "0" * 32,
) -> list[dict[str, Any]]:
    """``n_events`` valid events (full dumps) in a repeating work pattern, built fast.

    Pattern per step: ActionEvent (terminal) → ObservationEvent → stats state update
    (back-dated, so log order is not time order), an agent message every ~20 events and a
    user message every ~60. Every 37th event repeats the previous timestamp (ties).
    ``branches`` user messages are re-parented onto an event ~10 positions back.
    """
    rng = random.Random(seed)
    bits = rng.getrandbits
    proto = _prototypes()
    events: list[dict[str, Any]] = []
    now = start
    head = ROOT_PARENT
    branch_at = (
        {int(n_events * (k + 1) / (branches + 1)) for k in range(branches)} if branches else set()
    )
    system = dict(
        proto["SystemPromptEvent"],
        id=_uuid(bits),
        timestamp=now.isoformat(timespec="microseconds"),
        parent_id=ROOT_PARENT,
    )
    events.append(system)
    head = system["id"]
    step = 0
    while len(events) < n_events:
        index = len(events)
        if index % 37 != 0:
            now += timedelta(microseconds=rng.randint(1000, 400000))
        stamp = now.isoformat(timespec="microseconds")
        if index in branch_at or index % 60 == 1:
            parent = head
            if index in branch_at and index > 12:
                parent = (
                    events[index - 10]["id"]
                    if events[index - 10]["kind"] != "ConversationStateUpdateEvent"
                    else events[index - 11]["id"]
                )
            event = dict(proto["user"], id=_uuid(bits), timestamp=stamp, parent_id=parent)
            event["llm_message"] = dict(
                event["llm_message"],
                content=[
                    text(
                        f"Step {step}: try a different approach."
                        if index in branch_at
                        else f"Continue with step {step}."
                    )
                ],
            )
            head = event["id"]
        elif index % 20 == 0:
            event = dict(
                proto["agent"],
                id=_uuid(bits),
                timestamp=stamp,
                parent_id=head,
                llm_response_id=f"chatcmpl-{bits(64):016x}",
            )
            event["llm_message"] = dict(
                event["llm_message"], content=[text(f"Progress report {step}.")]
            )
            head = event["id"]
        else:
            kind = events[-1]["kind"]
            if kind == "ActionEvent":
                action = events[-1]
                event = dict(
                    proto["ObservationEvent"],
                    id=_uuid(bits),
                    timestamp=stamp,
                    parent_id=head,
                    tool_call_id=action["tool_call_id"],
                    action_id=action["id"],
                )
                observation = dict(
                    event["observation"],
                    command=action["action"]["command"],
                    content=[text(f"test_{step}.py .... ok\n{step % 7 + 1} passed")],
                )
                event["observation"] = observation
                head = event["id"]
            elif kind == "ObservationEvent":
                back = (now - timedelta(microseconds=rng.randint(500, 5000))).isoformat(
                    timespec="microseconds"
                )
                event = dict(
                    proto["state:stats"],
                    id=_uuid(bits),
                    timestamp=back,
                    parent_id=head,
                    value={
                        "usage_to_metrics": {
                            "agent": {
                                "model_name": "bench",
                                "accumulated_cost": round(step * 0.0021, 6),
                            }
                        }
                    },
                )
            else:
                step += 1
                call = f"call_{bits(48):012x}"
                command = f"pytest -q tests/test_{step}.py"
                event = dict(
                    proto["ActionEvent"],
                    id=_uuid(bits),
                    timestamp=stamp,
                    parent_id=head,
                    tool_call_id=call,
                    llm_response_id=f"chatcmpl-{bits(64):016x}",
                    summary=f"Run test step {step}",
                )
                event["action"] = dict(event["action"], command=command)
                event["tool_call"] = dict(
                    event["tool_call"],
                    id=call,
                    arguments=json.dumps({"command": command, "security_risk": "LOW"}),
                )
                head = event["id"]
        events.append(event)
    return events[:n_events]


def generate_conversation(
    store: Store,
    n_events: int,
    *,
    seed: int = 0,
    branches: int = 0,
    conversation_id: str | None = None,
    title: str | None = None,
    sandbox_id: str | None = None,
    start: datetime = BASE_TIME,
) -> str:
    """Create one conversation of ``n_events`` generated events; returns its id.

    Fast path for benchmarks: the events are already full dumps, so they are stored without
    re-validation (``normalize=False``). 100,000 events take about a second or two.
    """
    rng = random.Random(f"conversation:{seed}")
    conversation_id = conversation_id or SeededIds(rng).hex32()
    events = generate_events(
        n_events, seed=seed, branches=branches, start=start, conversation_id=conversation_id
    )
    with store.transaction():
        store.put_conversation(
            conversation_info(
                id=conversation_id,
                sandbox_id=sandbox_id or "oh-agent-server-benchmark",
                title=title or f"Generated: {n_events} events",
                llm_model="litellm_proxy/claude-sonnet-4-5",
                created_at=utc_text(start),
                updated_at=utc_text(datetime.fromisoformat(events[-1]["timestamp"]))
                if events
                else utc_text(start),
                execution_status="finished",
                public=True,
            )
        )
        store.append_events(conversation_id, events, normalize=False)
    return conversation_id


def add_state_update_stretch(
    store: Store, conversation_id: str, n_events: int, *, viewable_every: int = 25, seed: int = 0
) -> int:
    """Append ``n_events`` events of which only every ``viewable_every``-th is viewable (an
    agent MessageEvent); the rest are ConversationStateUpdateEvents. Returns how many
    viewable events were added. For testing the shared search's refill rule."""
    rng = random.Random(f"stretch:{seed}")
    proto = _prototypes()
    last = store.last_event_timestamp(conversation_id)
    now = datetime.fromisoformat(last) if last else BASE_TIME
    head = store.head_event_id(conversation_id) or ROOT_PARENT
    events = []
    viewable = 0
    for index in range(n_events):
        now += timedelta(microseconds=rng.randint(1000, 50000))
        stamp = now.isoformat(timespec="microseconds")
        if (index + 1) % viewable_every == 0:
            event = dict(proto["agent"], id=_uuid(rng.getrandbits), timestamp=stamp, parent_id=head)
            event["llm_message"] = dict(
                event["llm_message"], content=[text(f"Still working ({index}).")]
            )
            head = event["id"]
            viewable += 1
        else:
            event = dict(
                proto["state:execution_status"],
                id=_uuid(rng.getrandbits),
                timestamp=stamp,
                parent_id=head,
                value=rng.choice(["running", "idle", "running"]),
            )
        events.append(event)
    store.append_events(conversation_id, events, normalize=False)
    return viewable
