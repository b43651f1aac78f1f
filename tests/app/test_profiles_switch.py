"""Switching servers from the palette, each way (issue 31 item 8): the bundled demo, local
folders, the config file's profiles and the server given at start; the one in use marked,
each described for what it is; the demo started again when it had stopped."""

from __future__ import annotations

import json

import pytest
from textual.command import CommandPalette

from tests.helpers.app_helpers import SIZE, conversations_shown, screen_text, settled, wait_for
from tests.helpers.folder_helpers import write_folder
from tui.app.app import OhtuiApp
from tui.app.board.sources import board_sources
from tui.app.commands import OhtuiCommands
from tui.app.profiles import DEMO, LOCAL
from tui.cli import _profiles
from tui.client import OpenHandsClient
from tui.commands import profiles as made
from tui.commands.connect import load_settings
from tui.commands.options import build_parser
from tui.server import Store
from tui.server.demo import generate_conversation


def _server_with(make_server, title: str):
    store = Store()
    cid = generate_conversation(store, 5, seed=1)
    info = store.get_conversation(cid)
    info["title"] = title
    store.put_conversation(info)
    return make_server(store)


def _folders(path) -> str:
    """A folder of one local conversation (7 events); its id."""
    store = Store()
    cid = generate_conversation(store, 7, seed=3)
    write_folder(path, cid, [json.loads(r.json) for r in store.iter_events(cid)])
    store.close()
    return cid


def _commands(app) -> dict[str, str]:
    """The palette's profile entries: label → description."""
    found = OhtuiCommands(app.screen, None)._commands()
    return {name: said for name, _, said in found if name.startswith("Profile:")}


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    for name in ("OHTUI_URL", "OHTUI_PROFILE", "OHTUI_READONLY", "OHTUI_TEST_UNSET_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENHANDS_CONVERSATIONS_DIR", str(tmp_path / "nothing-here"))
    return tmp_path


async def test_palette_switches_to_another_profile(make_server, isolated):
    first = _server_with(make_server, "on the first server")
    second = _server_with(make_server, "on the second server")
    config = isolated / "config.toml"
    config.write_text(
        f'[profiles.one]\nurl = "{first.base_url}"\n\n[profiles.two]\nurl = "{second.base_url}"\n\n'
        '[profiles.broken]\nurl = "http://127.0.0.1:9"\napi_key_env = "OHTUI_TEST_UNSET_KEY"\n'
    )
    args = build_parser().parse_args(["--config", str(config)])
    profiles = {name: made.config_profile(args, name) for name in ("one", "two", "broken")}
    app = OhtuiApp(
        OpenHandsClient(first.base_url), url=first.base_url, profiles=profiles, profile="one"
    )
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await wait_for(lambda: "on the first server" in screen_text(app), pilot=pilot)
        names = list(_commands(app))
        assert "Profile: one (current)" in names and "Profile: two" in names
        app.switch_profile("broken")
        await settled(pilot)
        assert any(
            "Cannot use profile 'broken'" in n and "OHTUI_TEST_UNSET_KEY" in n for n in notes
        )
        assert app.url == first.base_url  # still on the first server
        app.switch_profile("two")
        await wait_for(
            lambda: conversations_shown(app) and "on the second server" in screen_text(app),
            pilot=pilot,
        )
        assert app.url == second.base_url and app.profile == "two"
        assert "on the first server" not in screen_text(app)


def test_every_server_is_offered_and_the_one_in_use_is_named(make_server, isolated):
    """What ``ohtui`` offers: the config's profiles, the demo, the local folders found, and
    a URL given without a profile name (so a switch away has a way back)."""
    first = _server_with(make_server, "on the first server")
    _folders(isolated / "nothing-here")
    config = isolated / "config.toml"
    config.write_text(f'[profiles.one]\nurl = "{first.base_url}"\n')

    def offered(*argv: str):
        args = build_parser(env_defaults=False).parse_args(["--config", str(config), *argv])
        stops: list = []
        profiles, current, notice = _profiles(
            args, load_settings(args), None, None, None, None, stops
        )
        assert stops == []  # nothing started before it is switched to
        return profiles, current, notice

    profiles, current, _ = offered("-P", "one")
    assert current == "one" and sorted(profiles) == sorted(["one", DEMO, LOCAL])
    assert profiles[LOCAL].description == (
        f"Browse the OpenHands conversations in {isolated / 'nothing-here'}, read-only"
    )
    assert profiles["one"].description == f"[profiles.one] of the config file: {first.base_url}"
    assert profiles[DEMO].kind == "demo"

    profiles, current, _ = offered("--url", first.base_url)  # a URL, no profile name
    host = first.base_url.removeprefix("http://")
    assert current == host and profiles[host].kind == "start"
    assert profiles[host].description == f"The server given at start (flag --url): {first.base_url}"


async def test_demo_folders_and_profiles_switch_each_way(make_server, isolated):
    first = _server_with(make_server, "on the first server")
    cid = _folders(isolated / "convs")
    stops: list = []
    demo = made.demo_server(stops)
    profiles = {
        "one": made.start_profile(_resolved(first), first.base_url),
        DEMO: made.demo_profile(demo),
        LOCAL: made.folders_profile(made.folder_server(str(isolated / "convs"), stops), "mine"),
    }
    app = OhtuiApp(
        OpenHandsClient(first.base_url),
        url=first.base_url,
        profiles=profiles,
        profile="one",
        on_exit=lambda: [stop() for stop in stops],
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: "on the first server" in screen_text(app), pilot=pilot)
        said = _commands(app)
        assert list(said) == ["Profile: demo", f"Profile: {LOCAL}", "Profile: one (current)"]
        assert said["Profile: one (current)"].startswith("In use now · The server given at start")

        # to local folders through the palette, typed in one burst as a terminal sends it
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), pilot=pilot)
        await pilot.press(*"profile local", "enter")
        await wait_for(lambda: app.profile == LOCAL and conversations_shown(app), pilot=pilot)
        await wait_for(lambda: cid in app.screen.rows.rows, pilot=pilot)
        assert app.local and app.readonly and not app.bundled
        assert "Profile: local folders (current)" in _commands(app)

        app.switch_profile(DEMO)  # the demo was not running: started now
        await wait_for(lambda: "Write hello.py and run it" in screen_text(app), pilot=pilot)
        assert not app.local and not app.readonly and app.bundled
        started = demo.running
        assert started is not None and started.process.poll() is None

        app.switch_profile("one")
        await wait_for(lambda: "on the first server" in screen_text(app), pilot=pilot)
        app.switch_profile(DEMO)  # back: the same server, kept while the app runs
        await wait_for(lambda: "Write hello.py and run it" in screen_text(app), pilot=pilot)
        assert demo.running is started

        app.switch_profile("one")
        await wait_for(lambda: "on the first server" in screen_text(app), pilot=pilot)
        started.stop()  # it ended meanwhile: started again
        app.switch_profile(DEMO)
        await wait_for(lambda: "Write hello.py and run it" in screen_text(app), pilot=pilot)
        assert demo.running is not started and demo.running.process.poll() is None
        assert [s.name for s in board_sources(app, all_profiles=True)] == [DEMO, LOCAL, "one"]
    assert demo.running.process.poll() is not None  # the app's end stopped it


async def test_read_only_stays_across_switches(make_server, isolated, tmp_path):
    first = _server_with(make_server, "on the first server")
    cid = _folders(tmp_path / "convs")
    stops: list = []
    folders = made.folders_profile(made.folder_server(str(tmp_path / "convs"), stops), "mine")
    app = OhtuiApp(
        OpenHandsClient(first.base_url),
        url=first.base_url,
        readonly=True,
        profiles={LOCAL: folders, "one": made.start_profile(_resolved(first), first.base_url)},
        profile="one",
        on_exit=lambda: [stop() for stop in stops],
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.switch_profile(LOCAL)
        await wait_for(
            lambda: conversations_shown(app) and cid in app.screen.rows.rows, pilot=pilot
        )
        app.switch_profile("one")
        await wait_for(lambda: "on the first server" in screen_text(app), pilot=pilot)
        assert app.readonly and not app.local and app.sub_title == "profile one · read-only"


def _resolved(server):
    return load_settings(build_parser(env_defaults=False).parse_args(["--url", server.base_url]))
