"""Notifications when a watched agent finishes, fails, gets stuck or waits for the user."""

from __future__ import annotations

import asyncio
import os
import stat

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    push_conversation,
    screen_text,
    wait_for,
)
from tui.app.format import status_value
from tui.app.notices import Notifier, desktop_notify
from tui.config import Settings
from tui.server.demo import LIVE_TITLE
from tui.text import one_line


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_only_changes_into_watched_statuses_are_news():
    clock = Clock()
    notifier = Notifier(frozenset({"finished", "waiting_for_confirmation"}), clock=clock)
    assert notifier.notice("c1", "T", None, "finished") is None  # first sight: not a change
    assert notifier.notice("c1", "T", "running", "running") is None
    assert notifier.notice("c1", "T", "finished", "idle") is None  # idle is not watched here
    message, severity = notifier.notice("c1", "T", "running", "finished")
    assert message == "T: the agent finished." and severity == "information"
    assert notifier.notice("c1", "T", "running", "finished") is None  # the same change again
    clock.now += 60
    assert notifier.notice("c1", "T", "running", "finished") is None  # still: no change since
    assert notifier.notice("c1", "T", "finished", "running") is None  # running: not watched
    assert notifier.notice("c1", "T", "running", "finished") is not None  # finished again
    message, severity = notifier.notice("c1", "T", "running", "waiting_for_confirmation")
    assert "waits for your confirmation" in message and severity == "warning"
    assert notifier.notice("c2", "U", "running", "error") is None  # error not watched here


def test_defaults_and_config():
    settings = Settings()
    assert set(settings.notify) == {"finished", "error", "stuck", "waiting_for_confirmation"}
    assert settings.notify_bell is True and settings.notify_desktop is False


async def test_desktop_notification_runs_notify_send_without_a_shell(tmp_path, monkeypatch):
    log = tmp_path / "args.txt"
    script = tmp_path / "notify-send"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{log}"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert await desktop_notify("ohtui", "Fix it; rm -rf / $(echo no)") is True
    assert log.read_text().splitlines() == [
        "--app-name=ohtui",
        "--",
        "ohtui",
        "Fix it; rm -rf / $(echo no)",
    ]
    # a conversation's title leads the body: it is never an option, markup or a control
    hostile = "--icon=/tmp/evil.png: <a href='https://evil.example'>b</a> & \x1b]0;pwned\x07"
    assert await desktop_notify("-u critical", hostile) is True
    assert log.read_text().splitlines() == [
        "--app-name=ohtui",
        "--",
        "-u critical",
        "--icon=/tmp/evil.png: &lt;a href='https://evil.example'&gt;b&lt;/a&gt; &amp; ␛]0;pwned␇",
    ]
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert await desktop_notify("ohtui", "x") is False


async def test_a_live_run_that_finishes_notifies_and_rings(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    told: list[tuple[str, str]] = []
    bells: list[int] = []
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: told.append((str(message), kw.get("severity", "")))  # type: ignore[method-assign]
        app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        screen = await push_conversation(pilot, cid)
        await wait_for(
            lambda: (
                list_ready(screen)
                and screen.live is not None
                and screen.live.state.execution_status is not None
            ),
            pilot=pilot,
        )
        await asyncio.to_thread(server.live.send_message_sync, cid, "say hi please")
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        await wait_for(lambda: any("the agent finished" in m for m, _ in told), pilot=pilot)
        assert bells


@pytest.mark.parametrize("bundled", [False, True], ids=["a server", "the bundled demo"])
async def test_the_conversations_list_says_an_end_in_its_status_line(live_server, bundled):
    """The list's rows show the new status: the news is said in its status line for a
    while, never as toasts over the list; the bell rings as for a toast, but not in the
    bundled demo, whose agents run by themselves."""
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url, warm_up=(lambda: None) if bundled else None)
    app.notifier = Notifier(frozenset({"finished"}), bell=True)
    told: list[str] = []
    bells: list[int] = []
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: told.append(str(message))  # type: ignore[method-assign]
        app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: cid in screen._rows, pilot=pilot)
        await asyncio.to_thread(server.live.send_message_sync, cid, "one more, please")
        await asyncio.to_thread(server.live.step_sync, cid, 1)
        screen.refresh_rows([cid])  # a poll while it runs
        await wait_for(
            lambda: status_value(screen._rows[cid].execution_status) == "running", pilot=pilot
        )
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        screen.refresh_rows([cid])
        said = f"lately: “{one_line(LIVE_TITLE, 40)}” finished"
        await wait_for(lambda: said in screen_text(app), pilot=pilot)
        assert not told and not app._notifications  # no toast
        assert bool(bells) is not bundled
        # the app's notifier heard of it: the conversation's own view will not tell it again
        assert app.notifier.notice(cid, "x", "running", "finished") is None


def test_notify_settings_from_the_file_and_env(tmp_path, monkeypatch):
    from tui.config import load

    config = tmp_path / "config.toml"
    config.write_text('notify = ["error"]\nnotify_bell = false\n')
    monkeypatch.setenv("OHTUI_CONFIG", str(config))
    monkeypatch.setenv("OHTUI_NOTIFY_DESKTOP", "1")
    resolved = load({})
    assert resolved.settings.notify == ["error"]
    assert resolved.settings.notify_bell is False and resolved.settings.notify_desktop is True
