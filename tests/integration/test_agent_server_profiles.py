"""LLM profiles (issue 30 item 4) from the keyboard, against the real agent server: a profile
made with a typed key and checked by the server's pre-flight (the fake LLM answers; a base
URL nothing listens on is said in words), made active, a running conversation switched to it
(the server's record of the conversation then names its model), renamed and deleted; at the
server's limit its refusal is said and "N of limit" shown. The typed key reaches the server
and nothing else: no screen, log line or answer."""

from __future__ import annotations

import logging
import uuid

import pytest

from tests.helpers.app_helpers import (
    conversations_shown,
    dialog_ready,
    list_ready,
    screen_ready,
    screen_text,
    wait_for,
)
from tests.integration.fake_llm import Step, finish
from tests.integration.test_agent_server_app import WAIT, make_app, open_by_title
from tests.integration.waiting import status_in
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.dialogs.profile_form import ProfileForm
from tui.app.screens.llm_profiles import LLMProfilesScreen
from tui.app.widgets.common.fitted_table import FittedTable

pytestmark = pytest.mark.xdist_group("agent-server")

WIDE = (160, 48)
TYPED = "sk-typed-SENTINEL-real-83d1c0"


def status(app) -> str:
    return str(app.screen.query_one("#profiles-status").render())


def listed(app) -> bool:
    return screen_ready(app, LLMProfilesScreen) and app.screen.listing is not None


async def profiles(agent) -> dict:
    r = await agent.http.get("/api/profiles")
    r.raise_for_status()
    return r.json()


async def test_a_profile_made_checked_activated_switched_renamed_deleted(agent, fake_llm, caplog):
    caplog.set_level(logging.DEBUG)
    name = f"ohtui-{uuid.uuid4().hex[:8]}"
    model = f"openai/{fake_llm.model.split('/')[-1]}-switched"
    title = f"Profiles {uuid.uuid4().hex[:6]}"
    cid = await agent.start(fake_llm.add([Step("", [finish("Done.")])]), title=title)
    await status_in(agent, cid, {"finished"})
    app = make_app(agent.server)
    seen: list[str] = []
    async with app.run_test(size=WIDE) as pilot:
        conversation = await open_by_title(app, pilot, title)
        assert isinstance(conversation, ConversationScreen)
        await wait_for(lambda: list_ready(conversation), WAIT, pilot)
        await pilot.press("L")
        await wait_for(lambda: listed(app), WAIT, pilot)
        screen = app.screen
        # n: made with a typed key, checked by the server's pre-flight first
        await pilot.press("n")
        await wait_for(lambda: dialog_ready(app, ProfileForm), WAIT, pilot)
        keys = [*name, "tab", *model, "tab", *fake_llm.url, "tab", *TYPED]
        await pilot.press(*keys, "ctrl+t")
        await wait_for(lambda: "✓ The server reached the model" in screen_text(app), WAIT, pilot)
        seen.append(screen_text(app))
        await pilot.press("enter")
        await wait_for(lambda: f"Profile '{name}' saved" in status(app), WAIT, pilot)
        seen.append(screen_text(app))
        row = next(p for p in (await profiles(agent))["profiles"] if p["name"] == name)
        assert row["model"] == model and row["api_key_set"] is True
        # v: a base URL nothing listens on, in the server's words
        assert screen.query_one(FittedTable).cursor_to(name)
        await pilot.press("v")
        await wait_for(lambda: dialog_ready(app, ProfileForm), WAIT, pilot)
        app.screen.query_one("#profile-url").value = "http://127.0.0.1:9/v1"
        app.screen.query_one("#profile-key").value = TYPED
        await pilot.press("enter")
        await wait_for(lambda: "could not use these settings" in screen_text(app), WAIT, pilot)
        seen.append(screen_text(app))
        await pilot.press("escape")
        await wait_for(lambda: app.screen is screen, WAIT, pilot)
        # enter: the active profile
        await pilot.press("enter")
        await wait_for(lambda: f"active: {name}" in screen_text(app), WAIT, pilot)
        assert (await profiles(agent))["active_profile"] == name
        # t: the conversation switched, after asking
        await pilot.press("t")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), WAIT, pilot)
        await pilot.press("y")
        await wait_for(lambda: "now uses the profile" in status(app), WAIT, pilot)
        info = (await agent.http.get(f"/api/conversations/{cid}")).json()
        assert info["agent"]["llm"]["model"] == model
        # r, then d (asks first)
        await pilot.press("r")
        await wait_for(lambda: dialog_ready(app, PathDialog), WAIT, pilot)
        app.screen.query_one("#path-input").value = ""
        await pilot.press(*f"{name}-b", "enter")
        await wait_for(lambda: "renamed to" in status(app), WAIT, pilot)
        assert screen.query_one(FittedTable).cursor_to(f"{name}-b")
        await pilot.press("d")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), WAIT, pilot)
        await pilot.press("y")
        await wait_for(lambda: "deleted" in status(app), WAIT, pilot)
        seen.append(screen_text(app))
    names = [p["name"] for p in (await profiles(agent))["profiles"]]
    assert name not in names and f"{name}-b" not in names
    seen.append("\n".join(r.getMessage() for r in caplog.records))
    seen.extend(str(n.message) for n in app._notifications)
    seen.append(str(await profiles(agent)))
    for text in seen:
        assert TYPED not in text


async def test_the_servers_limit_is_said_and_counted(agent, fake_llm):
    before = {p["name"] for p in (await profiles(agent))["profiles"]}
    made = [f"fill-{uuid.uuid4().hex[:6]}-{n}" for n in range(50 - len(before))]
    llm = {"model": fake_llm.model, "base_url": fake_llm.url}
    try:
        for name in made:
            r = await agent.http.post(f"/api/profiles/{name}", json={"llm": llm})
            assert r.status_code == 201, r.text
        app = make_app(agent.server)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for(lambda: conversations_shown(app), WAIT, pilot)
            await pilot.press("L")
            await wait_for(lambda: listed(app), WAIT, pilot)
            assert "50 profiles" in screen_text(app)  # the real server does not say its limit
            await pilot.press("n")
            await wait_for(lambda: dialog_ready(app, ProfileForm), WAIT, pilot)
            await pilot.press(*"one-more", "tab", *fake_llm.model, "enter")
            await wait_for(lambda: "keeps at most 50 profiles" in status(app), WAIT, pilot)
            assert "Profile limit reached (50)" in status(app)
            assert "50 of 50 profiles" in screen_text(app)  # learnt from its words
    finally:
        for name in made:
            await agent.http.delete(f"/api/profiles/{name}")
