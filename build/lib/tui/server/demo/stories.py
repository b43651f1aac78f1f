"""The demo's finished conversations: a hello-world run, a flaky test fixed, three branches.

Each story is a function of a :class:`ConversationBuilder`; their contents imitate the real
captures in ``shared/samples/openhands`` (not read at runtime).
"""

from __future__ import annotations

import json

from tui.models import ROOT_PARENT

from .conversation_builder import ConversationBuilder
from .events_builder import WORKDIR, text
from .hooks import HOOK_CONFIG


def story_hello(b: ConversationBuilder) -> None:
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


def story_payments(b: ConversationBuilder) -> None:
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


def story_branches(b: ConversationBuilder) -> None:
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
