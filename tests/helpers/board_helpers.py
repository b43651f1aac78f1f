"""A reference-server store of many agents in every board status, fixed in time, for the
board's tests and snapshots (agents advance only when a test steps them)."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from tests.helpers.app_helpers import FIXED_NOW, wait_for
from tui.server import Store
from tui.server.demo.conversation_builder import ConversationBuilder
from tui.server.demo.dataset import SPECS
from tui.server.demo.ids import SeededIds
from tui.server.times import utc_text
from tui.server.views import conversation_info

#: Statuses in turn (the ended ones recent, so all are on the board), and what each did.
STATUSES = ("running", "running", "paused", "waiting_for_confirmation", "running", "error", "stuck")
COMMANDS = ("pytest -x tests/test_api.py", "ruff check src", "make build", "npm test")
NOW = FIXED_NOW.replace(tzinfo=None)
BASE = NOW - timedelta(hours=2)


def _sandbox(store: Store, index: int) -> str:
    sandbox_id = f"board-sandbox-{index:03d}"
    store.put_sandbox(
        {
            "id": sandbox_id,
            "created_at": utc_text(BASE),
            "created_by_user_id": None,
            "sandbox_spec_id": SPECS[0]["id"],
            "status": "RUNNING",
            "session_api_key": f"board-key-{index:03d}",
            "status_detail": None,
            "port": 36000 + 10 * index,
            "due_status": None,
            "due_at": None,
        }
    )
    return sandbox_id


def add_agent(store: Store, index: int, status: str, *, minutes_ago: int = 30) -> str:
    """One agent's conversation: a request, ``index % 4 + 1`` terminal steps, ``status``
    (a waiting one ends with the action it waits on; an error one with the error)."""
    rng = random.Random(f"board:{index}")
    cid = SeededIds(rng).hex32()
    start = NOW - timedelta(minutes=minutes_ago + index % 7)
    b = ConversationBuilder(rng, start, conversation_id=cid)
    b.system_prompt()
    b.user(f"Task {index}: make the build green.")
    b.status("running")
    for step in range(index % 4 + 1):
        command = COMMANDS[(index + step) % len(COMMANDS)]
        b.terminal(command, "ok", 0, summary=f"step {step}")
    if status == "waiting_for_confirmation":
        action = {
            "command": f"rm -rf build-{index}",
            "is_input": False,
            "reset": False,
            "kind": "TerminalAction",
        }
        b.action("terminal", action, summary="Delete the build", security_risk="HIGH")
    if status == "error":
        b.emit(
            "ConversationErrorEvent",
            {
                "code": "LLMError",
                "detail": f"upstream 503 for agent {index}",
                "classification": {"kind": "transient", "retryable": True, "user_action": "none"},
            },
            source="environment",
        )
    b.status(status)
    updated = b.now
    with store.transaction():
        store.put_conversation(
            conversation_info(
                id=cid,
                sandbox_id=_sandbox(store, index),
                title=f"Agent {index:02d}: build {['api', 'cli', 'web', 'docs'][index % 4]}",
                trigger="gui",
                llm_model=b.model,
                metrics=b.metrics(),
                created_at=utc_text(start),
                updated_at=utc_text(updated),
                execution_status=status,
                public=True,
            )
        )
        store.append_events(cid, b.events, strict=True)
    return cid


def board_store(count: int, statuses: tuple[str, ...] = STATUSES) -> tuple[Store, list[str]]:
    store = Store()
    store.put_spec(dict(SPECS[0]))
    ids = [add_agent(store, i, statuses[i % len(statuses)]) for i in range(count)]
    return store, ids


def set_status(store: Store, cid: str, status: str) -> None:
    """The conversation's record says ``status`` (what a polled row reads)."""
    info: dict[str, Any] = store.get_conversation(cid)
    info["execution_status"] = status
    store.put_conversation(info)


def board_screen(app):
    from tui.app.screens.board.board import BoardScreen

    screen = app.screen
    return screen if isinstance(screen, BoardScreen) and screen.feed is not None else None


async def open_board(pilot, rows: int, *, detailed: bool = True):
    """Press 3 and wait until ``rows`` rows are on the board (with their details)."""
    from tui.app.widgets.board.board_table import BoardTable

    app = pilot.app
    await wait_for(lambda: app.screen.query("DataTable"), pilot=pilot)
    await pilot.press("3")
    await wait_for(lambda: board_screen(app) is not None, pilot=pilot)
    screen = board_screen(app)
    table = screen.query_one(BoardTable)

    def ready() -> bool:
        shown = [row for row in table.rows if row.failure is None]
        if len(table.rows) < rows:
            return False
        return not detailed or all(row.detail_key is not None for row in shown)

    await wait_for(ready, pilot=pilot)
    return screen
