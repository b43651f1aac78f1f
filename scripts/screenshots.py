"""Regenerate the README's screenshots: the demo data, a fixed terminal size, fixed clock.

Run: python scripts/screenshots.py   (writes screenshots/*.svg; look at them before committing)
"""

from __future__ import annotations

import asyncio
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tui.app.app import OhtuiApp
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversations.conversations import ConversationsScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.client import OpenHandsClient
from tui.server import Store, load_demo
from tui.server.embedded import start_demo_server

SIZE = (140, 42)
NARROW = (80, 24)  # a new terminal's size: every screen is designed for it first
NOW = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
OUT = ROOT / "screenshots"
IDS = load_demo(Store())  # the same seeded ids the embedded demo server uses


async def until(pilot, predicate, timeout: float = 15.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await pilot.pause(0.05)
    raise TimeoutError("screen did not settle")


async def open_conversation(pilot, name: str, select: str | None = None) -> ConversationScreen:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, ConversationsScreen))
    app.open_conversation(IDS[name])
    await until(pilot, lambda: isinstance(app.screen, ConversationScreen))
    screen = app.screen
    await until(pilot, lambda: screen.events.base.complete and screen.events.tree is not None)
    if select:
        index = next(
            i for i in range(len(screen.window)) if screen.window.row(i).summary.startswith(select)
        )
        screen.query_one(EventList).cursor = index
        detail = screen.query_one(EventDetail)
        await until(
            pilot,
            lambda: detail._event is not None and detail._event.id == screen.window.row(index).id,
        )
    await pilot.pause(0.3)
    return screen


async def shoot(
    url: str, name: str, script, theme: str | None = None, size: tuple[int, int] = SIZE
) -> None:
    app = OhtuiApp(OpenHandsClient(url), url=url, clock=lambda: NOW, theme=theme)
    async with app.run_test(size=size) as pilot:
        await script(pilot)
        await pilot.pause(0.2)
        app.save_screenshot(f"{name}.svg", str(OUT))
        print("wrote", OUT / f"{name}.svg")


async def conversations(pilot) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, ConversationsScreen))
    table = pilot.app.screen.query_one("DataTable")
    await until(pilot, lambda: table.row_count >= 8)


async def conversations_by_cost(pilot) -> None:
    await conversations(pilot)
    await pilot.press("s")  # by cost, dearest first; the chart shows at this size


async def conversation(pilot) -> None:
    await open_conversation(pilot, "hello", select="$ python3")


async def branches(pilot) -> None:
    screen = await open_conversation(pilot, "branches", select="str_replace")
    screen.query_one("#event-tree").focus()


async def raw(pilot) -> None:
    screen = await open_conversation(pilot, "hello", select="user:")
    screen.query_one(EventDetail).focus()
    await pilot.press("r")


async def live(pilot) -> None:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, ConversationsScreen))
    table = app.screen.query_one("DataTable")
    await until(pilot, lambda: table.row_count >= 8)
    await pilot.press("enter")  # the live demo conversation is the newest
    await until(pilot, lambda: isinstance(app.screen, ConversationScreen))
    await pilot.pause(4.0)  # let the simulated agent do a few steps
    app.screen.query_one(EventList).action_last()


async def find(pilot) -> None:
    screen = await open_conversation(pilot, "hello")
    await pilot.press("slash", *"hello", "enter")
    await until(pilot, lambda: "hit 1 of" in str(screen.query_one("#find-status").content))
    await pilot.pause(0.3)


async def filter_dialog(pilot) -> None:
    await open_conversation(pilot, "hello")
    await pilot.press("f")
    app = pilot.app
    await until(pilot, lambda: type(app.screen).__name__ == "FilterDialog")
    dialog = app.screen
    await until(pilot, lambda: len(dialog.counts) >= len(dialog._kinds))  # every kind counted
    await pilot.press("space", "down", "down", "down", "space")  # only "action" checked


async def confirmation(pilot) -> None:
    screen = await open_conversation(pilot, "confirm")
    await until(pilot, lambda: screen.live is not None and screen.live.waiting_for_confirmation)
    screen.query_one(EventList).action_last()
    await pilot.pause(0.5)


async def insights(pilot, tab: str = "summary") -> None:
    from tui.app.screens.insights import InsightsScreen

    await open_conversation(pilot, "long")
    await pilot.press("i")
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, InsightsScreen) and app.screen.insights)
    app.screen.query_one("#insights-tabs").active = tab
    await pilot.pause(0.3)


async def insights_timeline(pilot) -> None:
    await insights(pilot, "timeline")


async def sandboxes(pilot) -> None:
    await conversations(pilot)
    await pilot.press("2")
    await until(pilot, lambda: isinstance(pilot.app.screen, SandboxesScreen))
    table = pilot.app.screen.query_one("DataTable")
    await until(pilot, lambda: table.row_count >= 4)


async def board() -> None:
    """The board over 16 simulated agents at work (on the wall clock: they run live)."""
    from tui.app.board.options import BoardOptions
    from tui.app.screens.board.board import BoardScreen
    from tui.server import start_server

    store = Store()
    load_demo(store)
    server = start_server(store, agents=16, agent_pace=0.35)
    try:
        url = server.base_url
        options = BoardOptions(sockets=8)
        app = OhtuiApp(OpenHandsClient(url), url=url, board=options, profile="demo")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ConversationsScreen))
            await pilot.press("3")
            await until(pilot, lambda: isinstance(app.screen, BoardScreen))
            screen = app.screen

            def lively() -> bool:
                statuses = {row.status for row in screen.model.rows.values()}
                return {"waiting_for_confirmation", "error", "running", "paused"} <= statuses

            await until(pilot, lively, timeout=60)
            await pilot.pause(4.0)  # rates have samples to go on
            app.clear_notifications()
            screen.flush(force=True)
            await pilot.pause(0.3)
            app.save_screenshot("board.svg", str(OUT))
            print("wrote", OUT / "board.svg")
    finally:
        server.stop()
        store.close()


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    await board()
    # the demo's data moves to its server's clock: a clock that starts at the app's NOW and
    # runs on (live runs step on it), so times read "3m ago" as a newcomer sees them
    started = time.time()
    url, stop = start_demo_server(clock=lambda: NOW.timestamp() + time.time() - started)
    try:
        await shoot(url, "conversations", conversations)
        await shoot(url, "conversations-by-cost", conversations_by_cost, size=(160, 48))
        await shoot(url, "conversation", conversation)
        await shoot(url, "conversation-branches", branches)
        await shoot(url, "conversation-raw", raw)
        await shoot(url, "sandboxes", sandboxes)
        await shoot(url, "live", live)
        await shoot(url, "find", find)
        await shoot(url, "confirmation", confirmation)
        await shoot(url, "conversation-light", conversation, theme="ohtui-light")
        await shoot(url, "conversation-80x24", conversation, size=NARROW)
        await shoot(url, "filter-80x24", filter_dialog, size=NARROW)
        await shoot(url, "insights", insights, size=(160, 48))
        await shoot(url, "insights-timeline-80x24", insights_timeline, size=NARROW)
    finally:
        stop()


if __name__ == "__main__":
    asyncio.run(main())
