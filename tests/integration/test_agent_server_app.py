"""The app itself, driven with Pilot against the real agent server, as a person would use it:
the conversation list, a filter, enter to open, the events on screen, then the keys: A approves
the waiting action, R rejects the next with a typed reason, space pauses and runs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.helpers.app_helpers import SIZE, conversations_shown, list_ready, screen_text, wait_for
from tests.integration.fake_llm import slow_steps, two_commands
from tests.integration.waiting import status_in, until
from tui.app.app import OhtuiApp
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.client import OpenHandsClient

pytestmark = pytest.mark.xdist_group("agent-server")

NOW = datetime(2026, 11, 24, 12, 0, 0, tzinfo=UTC)
WAIT = 60.0  # seconds: a generous bound for a condition that normally holds in well under one


def make_app(server) -> OhtuiApp:
    client = OpenHandsClient(server.base_url, session_api_key=server.session_api_key)
    return OhtuiApp(client, url=server.base_url, clock=lambda: NOW)


async def open_by_title(app, pilot, title: str):
    """From the conversation list: filter by the title, then enter to open the one row."""
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.widgets.common.fitted_table import FittedTable

    await wait_for(lambda: conversations_shown(app), WAIT, pilot)
    table = app.screen.query_one(FittedTable)
    await wait_for(lambda: table.row_count > 0, WAIT, pilot)
    await pilot.press("slash", *title, "enter")
    await wait_for(lambda: table.row_count == 1, WAIT, pilot)
    await pilot.press("enter")
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), WAIT, pilot)
    screen = app.screen
    await wait_for(lambda: list_ready(screen) and screen.live is not None, WAIT, pilot)
    return screen


async def test_approve_then_reject_with_a_reason_from_the_keyboard(agent, fake_llm):
    script = fake_llm.add(two_commands("LOW", "MEDIUM"))
    title = f"app confirms {script.rid}"
    cid = await agent.start(script, policy="AlwaysConfirm", title=title)
    await status_in(agent, cid, {"waiting_for_confirmation"})
    app = make_app(agent.server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_title(app, pilot, title)
        await wait_for(lambda: screen.live.waiting_for_confirmation, WAIT, pilot)
        await wait_for(lambda: "waits for your approval" in screen_text(app), WAIT, pilot)
        assert "echo first-command" in screen_text(app)

        await pilot.press("A")

        async def second_waits() -> bool:
            kinds = [e["kind"] for e in await agent.events(cid)]
            return kinds.count("ActionEvent") == 2 and kinds.count("ObservationEvent") == 1

        await until(second_waits, "the second action")
        await wait_for(lambda: "echo second-command" in screen_text(app), WAIT, pilot)
        await wait_for(lambda: screen.live.waiting_for_confirmation, WAIT, pilot)

        await pilot.press("R")
        await wait_for(lambda: "why reject?" in screen_text(app), WAIT, pilot)
        await pilot.press(*"not from the app", "enter")

        async def rejected() -> list:
            return [
                e
                for e in await agent.events(cid)
                if e["kind"] == "UserRejectObservation"
                and e.get("rejection_reason") == "not from the app"
            ]

        assert len(await until(rejected, "the rejection with its reason")) == 1
        await wait_for(lambda: "waits for your approval" not in screen_text(app), WAIT, pilot)

        stored = await agent.events(cid)
        # every event the server stored, as the steps view stands for them (the rejection
        # joined its action's row as it came)
        await wait_for(lambda: screen.window.events == len(stored), WAIT, pilot)
        rows = [screen.window.row(i) for i in range(len(screen.window))]
        rejected_step = [r for r in rows if r.result is not None and "rejected" in r.summary]
        assert len(rejected_step) == 1 and rejected_step[0].is_error


async def test_space_pauses_the_running_agent_and_runs_it_again(agent, fake_llm):
    # held: the first step waits until the app shows the run (opening it can take longer than
    # the whole paced run on a busy machine); released once space is pressed
    script = fake_llm.add(slow_steps(10), delay=0.3, held=True)
    title = f"app pauses {script.rid}"
    cid = await agent.start(script, title=title)
    app = make_app(agent.server)
    async with app.run_test(size=SIZE) as pilot:
        try:
            screen = await open_by_title(app, pilot, title)
            await wait_for(lambda: screen.live.running, WAIT, pilot)
            await pilot.press("space")
        finally:
            script.release()
        assert await status_in(agent, cid, {"paused", "finished"}) == "paused"
        await wait_for(lambda: not screen.live.running, WAIT, pilot)

        script.hurry()
        await pilot.press("space")  # not running: a new, paid run is asked for first
        await wait_for(lambda: isinstance(app.screen, ConfirmScreen), WAIT, pilot)
        await pilot.press("y")
        assert await status_in(agent, cid, {"finished", "error", "stuck"}) == "finished"
        await wait_for(lambda: "finished" in screen_text(app).lower(), WAIT, pilot)
    kinds = [e["kind"] for e in await agent.events(cid)]
    assert kinds.count("PauseEvent") == 1
