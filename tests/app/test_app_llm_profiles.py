"""LLM profiles (issue 30 item 4) from the keyboard, against the reference server (the routes
the real agent server 1.58.2 has): ``L`` lists them with the active one and "N of limit";
``enter`` makes one active, ``v`` runs the server's pre-flight and says its answer in words,
``n`` makes one (its key typed into a password field, sent only to the server), ``r``
renames, ``d`` deletes (asks first), and from a conversation ``t`` switches its profile
(asks first; an app server's refusal while paused said in words). None in ``--readonly``."""

from __future__ import annotations

import logging

import pytest

from tests.helpers.app_helpers import (
    FIXED_NOW,
    conversations_shown,
    dialog_ready,
    list_ready,
    push_conversation,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tui.app.app import OhtuiApp
from tui.app.refusals import read_only_reason
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.dialogs.profile_form import ProfileForm
from tui.app.screens.llm_profiles import LLMProfilesScreen
from tui.client import OpenHandsClient
from tui.server import Store, load_demo

NARROW, WIDE = (80, 24), (160, 48)
KEY = "profiles-key-7c1d"
CLOCK = 1_795_000_000.0
#: a key typed into the form: it must reach the server's store and nothing else
TYPED = "sk-typed-SENTINEL-4f9e2b7a"


@pytest.fixture
def demo(make_server):
    def start(kind: str = "agent"):
        store = Store()
        names = load_demo(store)
        return make_server(store, session_key=KEY, kind=kind, clock=lambda: CLOCK), names

    return start


def profiles_app(server, **options) -> OhtuiApp:
    client = OpenHandsClient(server.base_url, session_api_key=KEY)
    return OhtuiApp(client, url=server.base_url, clock=lambda: FIXED_NOW, **options)


def profiles_listed(app) -> bool:
    return screen_ready(app, LLMProfilesScreen) and app.screen.listing is not None


async def open_profiles(pilot) -> LLMProfilesScreen:
    await wait_for(lambda: conversations_shown(pilot.app), pilot=pilot)
    await pilot.press("L")
    await wait_for(lambda: profiles_listed(pilot.app), pilot=pilot)
    await settled(pilot)
    return pilot.app.screen


def status(app) -> str:
    return str(app.screen.query_one("#profiles-status").render())


async def to_row(pilot, screen: LLMProfilesScreen, name: str) -> None:
    from tui.app.widgets.common.fitted_table import FittedTable

    assert screen.query_one(FittedTable).cursor_to(name)
    await settled(pilot)


async def fill_form(pilot, *fields: str) -> None:
    """Type each field's text, tab between them, in one burst (as a paste or tmux would)."""
    await wait_for(lambda: dialog_ready(pilot.app, ProfileForm), pilot=pilot)
    keys: list[str] = []
    for n, text in enumerate(fields):
        if n:
            keys.append("tab")
        keys.extend(text)
    await pilot.press(*keys)


async def test_the_list_shows_profiles_the_active_one_and_the_limit(demo):
    server, _ = demo()
    app = profiles_app(server)
    async with app.run_test(size=WIDE) as pilot:
        await open_profiles(pilot)
        text = screen_text(app)
        assert "LLM profiles · 3 of 50 profiles · active: default" in text
        for name, model in (("default", "litellm_proxy/claude-sonnet-4-5"), ("gpt", "openai/")):
            assert name in text and model in text
        assert "https://api.openai.com/v1" in text
        assert "sk-demo" not in text  # the server never sends a key; "set" says there is one
        # enter makes the row under the cursor active (typed in one burst: in order)
        await to_row(pilot, app.screen, "default")
        await pilot.press("down", "enter")
        await wait_for(lambda: server.store.active_profile == "gpt", pilot=pilot)
        await wait_for(lambda: "active: gpt" in screen_text(app), pilot=pilot)
        assert "Profile 'gpt' activated" in status(app)
        await pilot.press("enter")
        await wait_for(lambda: "the active profile already" in status(app), pilot=pilot)


async def test_v_checks_a_profile_and_says_the_answer_in_words(demo):
    server, _ = demo()
    app = profiles_app(server)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_profiles(pilot)
        await to_row(pilot, screen, "broken")
        await pilot.press("v")
        await wait_for(lambda: dialog_ready(app, ProfileForm), pilot=pilot)
        assert "Check the profile broken" in screen_text(app)
        # its base URL is not one: said before anything is sent
        await pilot.press("enter")
        await wait_for(lambda: "starts with http:// or https://" in screen_text(app), pilot=pilot)
        form = app.screen
        form.query_one("#profile-url").value = "http://localhost:4000"
        await pilot.press("enter")
        await wait_for(lambda: "could not use these settings" in screen_text(app), pilot=pilot)
        assert "provider prefix" in screen_text(app)  # the server's own words
        form.query_one("#profile-model").value = "anthropic/claude-sonnet-4-5"
        await pilot.press("ctrl+t")
        await wait_for(lambda: "✓ The server reached the model" in screen_text(app), pilot=pilot)
        await pilot.press("escape")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        assert server.store.profiles["broken"]["model"] == "claude-sonnet"  # a check saves nothing


async def test_n_makes_a_profile_whose_key_goes_only_to_the_server(demo, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    server, _ = demo()
    app = profiles_app(server)
    seen: list[str] = []
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_profiles(pilot)
        await pilot.press("n")
        await fill_form(pilot, "gpt", "openai/gpt-5.5", "http://127.0.0.1:9/v1", TYPED)
        await settled(pilot)
        seen.append(screen_text(app))
        assert "•" * len(TYPED) in seen[-1]  # masked in its field
        key_field = app.screen.query_one("#profile-key")
        key_field.select_all()
        await settled(pilot)
        assert key_field.selected_text == TYPED
        await pilot.press("ctrl+c", "ctrl+x")  # neither copied nor cut
        await settled(pilot)
        assert TYPED not in (app.clipboard or "")
        assert app.screen.query_one("#profile-key").value == TYPED
        await pilot.press("ctrl+t")  # checked as typed, the key with it
        await wait_for(lambda: "✓ The server reached the model" in screen_text(app), pilot=pilot)
        seen.append(screen_text(app))
        await pilot.press("enter")  # a name taken: said, nothing sent
        await wait_for(lambda: "There is a profile named gpt" in screen_text(app), pilot=pilot)
        name = app.screen.query_one("#profile-name")
        name.value = ""
        name.focus()
        await pilot.press(*"typed", "enter")
        await wait_for(lambda: app.screen is screen and "typed" in screen_text(app), pilot=pilot)
        await wait_for(lambda: "Profile 'typed' saved" in status(app), pilot=pilot)
        seen.append(screen_text(app))
        assert "4 of 50 profiles" in seen[-1]
        assert server.store.profiles["typed"] == {
            "model": "openai/gpt-5.5",
            "base_url": "http://127.0.0.1:9/v1",
            "api_key": TYPED,
        }
        # rename (the old name offered), then a clash said in the server's words
        await to_row(pilot, screen, "typed")
        await pilot.press("r")
        await wait_for(lambda: dialog_ready(app, PathDialog), pilot=pilot)
        app.screen.query_one("#path-input").value = ""
        await pilot.press(*"typed-2", "enter")
        await wait_for(lambda: "typed-2" in server.store.profiles, pilot=pilot)
        await wait_for(lambda: "renamed to 'typed-2'" in status(app), pilot=pilot)
        await to_row(pilot, screen, "typed-2")
        await pilot.press("r")
        await wait_for(lambda: dialog_ready(app, PathDialog), pilot=pilot)
        app.screen.query_one("#path-input").value = ""
        await pilot.press(*"gpt", "enter")
        await wait_for(lambda: "Profile 'gpt' already exists" in status(app), pilot=pilot)
        # delete asks first: n keeps it, y deletes it
        await pilot.press("d")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), pilot=pilot)
        assert "Delete the LLM profile typed-2" in screen_text(app)
        await pilot.press("n")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        assert "typed-2" in server.store.profiles
        await pilot.press("d")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), pilot=pilot)
        await pilot.press("y")
        await wait_for(lambda: "typed-2" not in server.store.profiles, pilot=pilot)
        await wait_for(lambda: "Profile 'typed-2' deleted" in status(app), pilot=pilot)
        seen.append(screen_text(app))
    seen.append("\n".join(r.getMessage() for r in caplog.records))
    seen.extend(str(n.message) for n in app._notifications)
    seen.append(app.clipboard or "")
    for text in seen:
        assert TYPED not in text
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert TYPED.encode() not in path.read_bytes(), path


async def test_the_limit_is_said_in_words(demo):
    server, _ = demo()
    server.store.max_profiles = 3
    app = profiles_app(server)
    async with app.run_test(size=WIDE) as pilot:
        await open_profiles(pilot)
        assert "3 of 3 profiles" in screen_text(app)
        await pilot.press("n")
        await fill_form(pilot, "fourth", "openai/gpt-5.5")
        await pilot.press("enter")
        await wait_for(lambda: "keeps at most 3 profiles" in status(app), pilot=pilot)
        assert "Profile limit reached (3). Delete a profile before saving" in status(app)
        assert "fourth" not in server.store.profiles


async def test_t_switches_the_conversation_after_asking(demo):
    server, names = demo()
    cid = names["hello"]
    app = profiles_app(server)
    async with app.run_test(size=WIDE) as pilot:
        conversation = await push_conversation(pilot, cid)
        await wait_for(lambda: list_ready(conversation), pilot=pilot)
        await pilot.press("L")
        await wait_for(lambda: profiles_listed(app), pilot=pilot)
        screen = app.screen
        assert screen.conversation_id == cid
        await to_row(pilot, screen, "gpt")
        await pilot.press("t")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), pilot=pilot)
        assert "to the LLM profile gpt (openai/gpt-5.5)?" in screen_text(app)
        await pilot.press("n")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        assert cid not in server.store.conversation_profiles
        await pilot.press("t")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), pilot=pilot)
        await pilot.press("y")
        await wait_for(lambda: server.store.conversation_profiles.get(cid) == "gpt", pilot=pilot)
        await wait_for(lambda: "now uses the profile gpt" in status(app), pilot=pilot)


async def test_an_app_server_refuses_a_paused_conversation_in_words(demo):
    server, names = demo(kind="app")
    store = server.store
    paused = next(
        cid
        for cid in names.values()
        if (info := store.get_conversation(cid))
        and (box := store.get_sandbox(info.get("sandbox_id") or ""))
        and box["status"] == "PAUSED"
    )
    app = profiles_app(server)
    async with app.run_test(size=WIDE) as pilot:
        await push_conversation(pilot, paused)
        await pilot.press("L")
        await wait_for(lambda: profiles_listed(app), pilot=pilot)
        await pilot.press("t")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), pilot=pilot)
        await pilot.press("y")
        await wait_for(lambda: "The conversation is paused" in status(app), pilot=pilot)
        assert "resume it first" in status(app)
        assert paused not in store.conversation_profiles


async def test_readonly_lists_but_changes_nothing(demo):
    server, _ = demo()
    app = profiles_app(server, readonly=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_profiles(pilot)
        assert "Read-only" in status(app)
        for key in ("n", "r", "d", "enter"):
            await pilot.press(key)
            await settled(pilot)
            assert app.screen is screen
        assert server.store.active_profile == "default" and len(server.store.profiles) == 3
        assert read_only_reason(app) in [str(n.message) for n in app._notifications]
        for action in ("new", "rename", "delete", "activate", "switch"):
            assert screen.check_action(action, ()) is False
            assert screen.why_not(action, ()) == read_only_reason(app)
        assert screen.check_action("check", ()) is True


# --- snapshots -----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_profiles_snapshot(snap_compare, demo, size):
    server, _ = demo()

    async def run_before(pilot):
        await open_profiles(pilot)

    assert snap_compare(profiles_app(server), run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_new_profile_form_snapshot(snap_compare, demo, size):
    server, _ = demo()

    async def run_before(pilot):
        await open_profiles(pilot)
        await pilot.press("n")
        await fill_form(pilot, "fast", "anthropic/claude-haiku-4-5", "", TYPED)
        await pilot.press("ctrl+t")
        await wait_for(
            lambda: "✓ The server reached the model" in screen_text(pilot.app), pilot=pilot
        )
        await settled(pilot)

    assert snap_compare(profiles_app(server), run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("readonly", [False, True], ids=["writable", "readonly"])
async def test_the_palette_offers_the_profiles_and_the_switch(demo, readonly):
    from tui.app.commands import OhtuiCommands

    server, names = demo()
    app = profiles_app(server, readonly=readonly)
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        listed = [name for name, _, _ in OhtuiCommands(app.screen)._commands()]
        assert "LLM profiles" in listed
        conversation = await push_conversation(pilot, names["hello"])
        await wait_for(lambda: list_ready(conversation), pilot=pilot)
        entries = {name: run for name, run, _ in OhtuiCommands(conversation)._commands()}
        switch = "Switch this conversation's LLM profile"
        assert (switch in entries) is not readonly
        if not readonly:
            entries[switch]()
            await wait_for(lambda: profiles_listed(app), pilot=pilot)
            assert app.screen.conversation_id == names["hello"]
            assert "t uses it in the conversation" in status(app)
