"""No sleep as synchronisation in the tests: a test waits for what it needs (``wait_for``,
``settled()``, ``screen_ready()``, an event), never for time to pass.

A ``pilot.pause(...)``, ``asyncio.sleep(...)`` or ``time.sleep(...)`` before an assertion or a
snapshot is a guess at how long the app takes: too short on a busy machine (a flake), too
long everywhere else (a slow suite). The only sleeps left are the polling inside wait helpers
and the slowness a fake server or writer plays on purpose, listed here one file at a time with
the reason and how many there are, so that a new one anywhere fails this test.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

#: file (relative to tests/) → (how many sleep/pause calls it holds, why each is not a guess)
ALLOWED: dict[str, tuple[int, str]] = {
    "helpers/app_helpers.py": (
        4,
        "the polling inside wait_for(), poll() and settled(): the waits themselves",
    ),
    "integration/waiting.py": (1, "the integration suite's wait helper polls its predicate"),
    "client/test_client_connections.py": (1, "polls a start task until READY, under a deadline"),
    "client/test_client_server.py": (1, "its wait helper polls a predicate under a deadline"),
    "server/test_server_control.py": (
        1,
        "polls a start task until READY or ERROR, under a deadline",
    ),
    "server/test_server_live.py": (
        4,
        (
            "three polls under deadlines (a reconnect, a predicate); one look that nothing is "
            "written while the sandbox is paused (no assertion depends on how long it lasts)"
        ),
    ),
    "client/test_deadlines.py": (
        1,
        "a fake server that drips its answer byte by byte: the slowness",
    ),
    "server/test_faults.py": (
        1,
        "paces the stream drops of the scenario; the end waits for the log",
    ),
    "server/test_folder_watch.py": (2, "a writer that leaves a file half written for a while"),
    "server/test_folders.py": (2, "a writer that leaves a file half written for a while"),
    "client/test_stream.py": (
        2,
        "a fake websocket server yielding (sleep 0); a poll under asyncio.timeout",
    ),
}


def _sleeps(tree: ast.AST) -> list[int]:
    """Lines of ``*.sleep(...)``, ``sleep(...)`` and ``pilot.pause(...)`` calls."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        owner = getattr(getattr(func, "value", None), "id", None)
        if name == "sleep" or (name == "pause" and owner == "pilot"):
            lines.append(node.lineno)
    return sorted(lines)


def _found() -> dict[str, list[int]]:
    found = {}
    for path in sorted(TESTS.rglob("*.py")):
        lines = _sleeps(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if lines:
            found[path.relative_to(TESTS).as_posix()] = lines
    return found


def test_no_sleep_or_pause_outside_the_allowed_places():
    found = _found()
    unexpected = {
        name: lines
        for name, lines in found.items()
        if name not in ALLOWED or len(lines) > ALLOWED[name][0]
    }
    assert not unexpected, (
        "sleeps/pauses as synchronisation (wait for the condition instead: "
        "tests/helpers/app_helpers.wait_for, settled(), screen_ready()): "
        + ", ".join(f"tests/{name} lines {lines}" for name, lines in unexpected.items())
    )


def test_the_allow_list_is_exact():
    """A sleep removed is removed from the list too, so the list never hides a new one."""
    found = _found()
    stale = {
        name: (count, len(found.get(name, [])))
        for name, (count, _) in ALLOWED.items()
        if len(found.get(name, [])) != count
    }
    assert not stale, f"allow-list counts (listed, found) out of date: {stale}"


def test_the_scan_sees_each_form():
    source = (
        "async def t(pilot):\n"
        "    await pilot.pause()\n"
        "    await asyncio.sleep(0.1)\n"
        "    time.sleep(1)\n"
        "    await sleep(0)\n"
        "    await client.pause()  # an agent's pause: not a sleep\n"
    )
    assert _sleeps(ast.parse(source)) == [2, 3, 4, 5]
