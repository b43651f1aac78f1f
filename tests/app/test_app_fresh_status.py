"""The open conversation's sandbox, changed elsewhere, shows within seconds (issue 14, item 7).

The screen reads its record again every few seconds while it is shown and whenever the
stream drops; the live stream stops when the sandbox stops and starts when it runs again.
Also: an open agent server (no session key) can be followed, and ``run`` answered 409 just
after a pause ("still stopping") is asked again.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.app.test_app_live import open_live
from tests.helpers.app_helpers import (
    SIZE,
    list_ready,
    make_app,
    push_conversation,
    screen_text,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation import screen as screen_module
from tui.app.store.live_session import can_follow
from tui.models import AppConversation


@pytest.fixture
def quick_poll(monkeypatch):
    monkeypatch.setattr(screen_module, "RECORD_POLL_S", 0.2)


def _header(app) -> str:
    return str(app.screen.query_one("#conv-header").content)


async def test_a_sandbox_paused_and_resumed_elsewhere_shows_and_the_stream_follows(
    live_server, quick_poll
):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        assert "● live" in _header(app) and "sandbox RUNNING" in _header(app)
        sandbox = server.store.get_conversation(cid)["sandbox_id"]
        await asyncio.to_thread(server.lifecycle.pause_sandbox, sandbox)
        await wait_for(lambda: "sandbox PAUSED" in _header(app), pilot=pilot)
        await wait_for(lambda: screen.live is None, pilot=pilot)
        assert "live" not in _header(app) and "reconnecting" not in _header(app)
        assert "Pause/run" not in screen_text(app)  # nothing to steer while it is stopped
        await asyncio.to_thread(server.lifecycle.resume_sandbox, sandbox)
        await wait_for(lambda: "sandbox RUNNING" in _header(app), pilot=pilot)
        await wait_for(lambda: "● live" in _header(app), pilot=pilot)
        await asyncio.to_thread(server.lifecycle.delete_sandbox, sandbox)
        await wait_for(lambda: screen.live is None and "● live" not in _header(app), pilot=pilot)
        assert "sandbox RUNNING" not in _header(app)


async def test_a_sandbox_resumed_elsewhere_is_followed_without_reopening(live_server, quick_poll):
    """Nothing streams while the sandbox is paused: only the record can tell."""
    server, names = live_server()
    cid = names["live"]
    sandbox = server.store.get_conversation(cid)["sandbox_id"]
    server.lifecycle.pause_sandbox(sandbox)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: list_ready(screen) and "sandbox PAUSED" in _header(app), pilot=pilot)
        assert screen.live is None
        await asyncio.to_thread(server.lifecycle.resume_sandbox, sandbox)
        await wait_for(lambda: "● live" in _header(app), pilot=pilot)


async def test_the_record_is_not_read_while_another_screen_is_shown(live_server, quick_poll):
    from tests.helpers.app_helpers import RecordingTransport

    server, names = live_server()
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    cid = names["live"]

    def record_reads() -> int:
        return sum(cid in q.get("ids", "") for q in transport.queries("app-conversations"))

    async with app.run_test(size=SIZE) as pilot:
        conversation = await open_live(app, pilot, cid)
        await wait_for(lambda: record_reads() > 2, pilot=pilot)  # its timer reads it
        app.action_show_sandboxes()  # another screen over the conversation
        await wait_for(lambda: not isinstance(app.screen, ConversationScreen), pilot=pilot)
        await settled(pilot)  # a read asked for before the switch has come back
        before = record_reads()
        for _ in range(3):
            conversation.poll_record()  # what its timer does meanwhile
        await settled(pilot)
        assert record_reads() == before


def test_an_open_agent_server_can_be_followed():
    record = AppConversation.model_validate(
        {
            "id": "a" * 32,
            "created_at": "2026-11-24T00:00:00Z",
            "updated_at": "2026-11-24T00:00:00Z",
            "sandbox_id": "s",
            "sandbox_status": "RUNNING",
            "conversation_url": "http://127.0.0.1:8010/api/conversations/" + "a" * 32,
            "session_api_key": None,
        }
    )
    assert can_follow(record)
    assert not can_follow(record.model_copy(update={"sandbox_status": "PAUSED"}))


async def test_run_right_after_a_pause_waits_while_the_agent_still_stops(live_server):
    """The real agent server answers 409 to run for ~1.4 s after a pause: ask again."""
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_live(app, pilot, cid)
        await asyncio.to_thread(server.live.send_message_sync, cid, "[chat] hi")  # running
        await wait_for(lambda: server.live.status_sync(cid) == "running", pilot=pilot)
        notices: list[str] = []
        notify = screen.notify
        screen.notify = lambda message, **kw: (notices.append(str(message)), notify(message, **kw))
        screen.control("run")  # the server still runs: 409
        await wait_for(lambda: any("still stopping" in n for n in notices), pilot=pilot)
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)  # now it has stopped
        await wait_for(lambda: "Agent running." in notices, pilot=pilot)
        assert not any(n.startswith("Could not run") for n in notices)
