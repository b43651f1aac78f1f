"""Long operations against a server that behaves like the real app server (issue 14.4).

The reference server runs with ``real_app_server_options`` and a clock the test moves, so
a sandbox start answers only when the test says the sandbox runs, and a start task walks
through its statuses one by one: nothing here waits on wall-clock time.
"""

from __future__ import annotations

import httpx
import pytest

from tests.helpers.app_helpers import (
    SIZE,
    RecordingTransport,
    conversations_shown,
    make_app,
    screen_text,
    settled,
    wait_for,
)
from tui.app import server_marks
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs import new_conversation as new_module
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen, SpecPicker
from tui.server import Store, load_demo
from tui.server.real_app_server import REAL_START_STATUSES, real_app_server_options

START = 1_900_000_000.0


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def elapsed(monkeypatch) -> Clock:
    """The clock of the elapsed times on screen ("12 s"), moved by the test."""
    clock = Clock(100.0)
    monkeypatch.setattr(server_marks, "monotonic", clock)
    monkeypatch.setattr(new_module, "START_POLL_S", 0.02)
    return clock


def real_like(make_server, clock: Clock, **options):
    store = Store()
    load_demo(store)
    server = make_server(store, clock=clock, **{**real_app_server_options(), **options})
    return store, server


def notes_of(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def open_sandboxes(app, pilot):
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    await pilot.press("2")
    await wait_for(lambda: isinstance(app.screen, SandboxesScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: screen.query_one("DataTable").row_count >= 4, pilot=pilot)
    return screen


def posts(transport: RecordingTransport, path: str) -> int:
    return sum(1 for r in transport.requests if r.method == "POST" and r.url.path == path)


async def test_a_sandbox_start_is_waited_for_once_and_can_be_left(make_server, elapsed):
    clock = Clock(START)
    store, server = real_like(make_server, clock, sandbox_start_delay=30.0)
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_sandboxes(app, pilot)
        before = len(store.search_sandboxes(limit=100)[0])
        await pilot.press("s")
        await wait_for(lambda: isinstance(app.screen, SpecPicker), pilot=pilot)
        await pilot.press("enter")
        await wait_for(lambda: posts(transport, "/api/v1/sandboxes") == 1, pilot=pilot)
        elapsed.now += 12
        await wait_for(lambda: "· 12 s" in screen_text(app), pilot=pilot)
        assert "starting a sandbox from" in screen_text(app)
        assert "x Stop waiting" in screen_text(app)

        await pilot.press("s")  # never a second start while one is on its way
        await wait_for(lambda: any("already on its way" in n for n in notes_of(app)), pilot=pilot)
        assert not isinstance(app.screen, SpecPicker)

        await pilot.press("x")  # stop waiting: nothing is cancelled
        await wait_for(lambda: "not waiting" in screen_text(app), pilot=pilot)
        assert screen.start is not None and not screen.start.done
        await pilot.press("s")
        await wait_for(
            lambda: sum("already on its way" in n for n in notes_of(app)) == 2, pilot=pilot
        )

        clock.now += 31  # the server's sandbox runs: its answer comes
        await wait_for(lambda: screen.start.done, pilot=pilot)
        assert screen.start.error is None and screen.start.sandbox_id
        await wait_for(lambda: any("runs (" in n for n in notes_of(app)), pilot=pilot)
        assert posts(transport, "/api/v1/sandboxes") == 1
        assert len(store.search_sandboxes(limit=100)[0]) == before + 1
        await wait_for(lambda: screen.start.sandbox_id in screen._sandboxes, pilot=pilot)


async def test_a_failed_sandbox_start_shows_the_servers_words(make_server, elapsed):
    clock = Clock(START)
    _, server = real_like(make_server, clock)
    server.app.state.faults.add(
        "status",
        "/api/v1/sandboxes",
        status=500,
        body='{"detail": "no capacity for a new sandbox"}',
        methods=("POST",),
    )
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_sandboxes(app, pilot)
        await pilot.press("s")
        await wait_for(lambda: isinstance(app.screen, SpecPicker), pilot=pilot)
        await pilot.press("enter")
        await wait_for(lambda: screen.start is not None and screen.start.done, pilot=pilot)
        await settled(pilot)
        text = screen_text(app)
        assert "did not start" in text and "no capacity for a new sandbox" in text
        assert "x Stop waiting" not in text


async def _start_conversation(app, pilot, title: str, message: str = "say hi"):
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    await pilot.press("n")
    await wait_for(lambda: isinstance(app.screen, NewConversationScreen), pilot=pilot)
    dialog = app.screen
    await pilot.press(*title, "enter", *message, "enter")
    await wait_for(lambda: dialog.progress is not None, pilot=pilot)
    return dialog


async def test_a_new_conversation_follows_every_status_and_keeps_its_title(make_server, elapsed):
    clock = Clock(START)
    _, server = real_like(make_server, clock, start_phases=[(s, 10.0) for s in REAL_START_STATUSES])
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _start_conversation(app, pilot, "Kept title")
        progress = dialog.progress
        for index, status in enumerate(REAL_START_STATUSES):
            await wait_for(lambda s=status: progress.status == s, pilot=pilot)
            elapsed.now += 3
            await wait_for(lambda s=status: s in screen_text(app), pilot=pilot)
            if index == 0:
                assert "esc Stop waiting" in screen_text(app)
            clock.now += 10
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        assert [s for s, _ in progress.steps] == [*REAL_START_STATUSES, "READY"]
        screen = app.screen
        await wait_for(lambda: screen.conversation is not None, pilot=pilot)
        assert screen.conversation.title == "Kept title"  # the server ignored it; a PATCH set it


async def test_a_start_that_fails_shows_the_servers_reason(make_server, elapsed):
    clock = Clock(START)
    reason = "Sandbox image pull failed: quota exceeded"
    _, server = real_like(make_server, clock, start_failure=("WAITING_FOR_SANDBOX", reason))
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _start_conversation(app, pilot, "Doomed")
        await wait_for(lambda: dialog.progress.status == "WORKING", pilot=pilot)
        clock.now += 60  # on to WAITING_FOR_SANDBOX, where it fails
        await wait_for(lambda: dialog.progress.done, pilot=pilot)
        await settled(pilot)
        assert reason in dialog.progress.error
        assert reason in dialog.query_one("#new-progress").render().plain  # on screen, wrapped
        assert app.screen is dialog  # still open: the user reads it, may try again
        assert dialog.check_action("start", ()) is True
        assert "^s Start" in screen_text(app)


async def test_stop_waiting_leaves_the_start_running_and_tells_its_end(make_server, elapsed):
    clock = Clock(START)
    _, server = real_like(make_server, clock, start_phases=[(s, 10.0) for s in REAL_START_STATUSES])
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _start_conversation(app, pilot, "Left alone")
        progress = dialog.progress
        await wait_for(lambda: progress.status == "WORKING", pilot=pilot)
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        listing = app.screen
        clock.now += 10
        await wait_for(lambda: progress.status == "WAITING_FOR_SANDBOX", pilot=pilot)
        await wait_for(lambda: "WAITING_FOR_SANDBOX" in screen_text(app), pilot=pilot)
        assert "starting “Left alone”" in screen_text(app)

        await pilot.press("n")  # the start on its way, not a second one
        await wait_for(lambda: isinstance(app.screen, NewConversationScreen), pilot=pilot)
        assert app.screen.progress is progress
        await pilot.press("escape")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)

        clock.now += 100
        await wait_for(lambda: progress.done, pilot=pilot)
        await wait_for(lambda: any("is ready" in n for n in notes_of(app)), pilot=pilot)
        cid = progress.conversation_id
        await wait_for(lambda: cid in listing._rows, pilot=pilot)
        assert listing._rows[cid].title == "Left alone"
        assert app.screen is listing  # nothing opened behind the user's back


class DropsStartRequests(httpx.AsyncHTTPTransport):
    """The connection dies after the start request went out (what no server can be made to
    do on cue): the client cannot know whether the server started the conversation."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/api/v1/app-conversations":
            raise httpx.ReadError("connection reset by peer", request=request)
        return await super().handle_async_request(request)


async def test_an_unknown_outcome_is_said_as_the_client_says_it(make_server, elapsed):
    clock = Clock(START)
    _, server = real_like(make_server, clock)
    app = make_app(server.base_url, transport=DropsStartRequests())
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _start_conversation(app, pilot, "Maybe")
        await wait_for(lambda: dialog.progress.done, pilot=pilot)
        await settled(pilot)
        assert "The server may have started the conversation: refresh the list to see." in (
            dialog.progress.error or ""
        )
        assert "The server may have started the" in screen_text(app)
