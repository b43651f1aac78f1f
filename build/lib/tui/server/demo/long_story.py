"""The demo's long session (~1,500 events of an asyncio port) and its sub-conversation."""

from __future__ import annotations

from .conversation_builder import ConversationBuilder
from .events_builder import WORKDIR

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
    ("pytest -q tests/cli/test_cli.py", "....................\n20 passed in 1.84s", 0),
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


def story_long(b: ConversationBuilder, target: int = 1500) -> None:
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


def story_sub(b: ConversationBuilder) -> None:
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
