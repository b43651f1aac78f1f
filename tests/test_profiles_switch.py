"""Switching server profiles from the palette: a new client, the other server's conversations."""

from __future__ import annotations

import argparse

from tests.app_helpers import SIZE, conversations_shown, screen_text, settled, wait_for
from tui.app.app import OhtuiApp
from tui.app.commands import OhtuiCommands
from tui.cli import _profile_factory
from tui.client import OpenHandsClient
from tui.server import Store
from tui.server.demo import generate_conversation


def _server_with(make_server, title: str):
    store = Store()
    cid = generate_conversation(store, 5, seed=1)
    info = store.get_conversation(cid)
    info["title"] = title
    store.put_conversation(info)
    return make_server(store)


async def test_palette_switches_to_another_profile(make_server, tmp_path, monkeypatch):
    first = _server_with(make_server, "on the first server")
    second = _server_with(make_server, "on the second server")
    config = tmp_path / "config.toml"
    config.write_text(
        f'[profiles.one]\nurl = "{first.base_url}"\n\n[profiles.two]\nurl = "{second.base_url}"\n\n'
        '[profiles.broken]\nurl = "http://127.0.0.1:9"\napi_key_env = "OHTUI_TEST_UNSET_KEY"\n'
    )
    monkeypatch.delenv("OHTUI_URL", raising=False)
    monkeypatch.delenv("OHTUI_TEST_UNSET_KEY", raising=False)
    args = argparse.Namespace(config=str(config))
    profiles = {name: _profile_factory(args, name) for name in ("one", "two", "broken")}
    app = OhtuiApp(
        OpenHandsClient(first.base_url), url=first.base_url, profiles=profiles, profile="one"
    )
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await wait_for(lambda: "on the first server" in screen_text(app), pilot=pilot)
        names = [name for name, _, _ in OhtuiCommands(app.screen, None)._commands()]
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
