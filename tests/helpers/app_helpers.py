"""Helpers for driving the app against the real reference server."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Iterable
from datetime import UTC, datetime

import httpx

from tui.app.app import OhtuiApp
from tui.client import OpenHandsClient

FIXED_NOW = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
SIZE = (140, 42)
#: rows of the demo's conversations list: 7 conversations and the sub-conversation one of
#: them started, listed under its parent
DEMO_ROWS = 8


class RecordingTransport(httpx.AsyncHTTPTransport):
    """A real transport that remembers each request's path and query (for assertions)."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await super().handle_async_request(request)

    def queries(self, path_part: str) -> list[dict[str, str]]:
        return [dict(r.url.params) for r in self.requests if path_part in r.url.path]


def make_app(
    base_url: str, *, transport: httpx.AsyncBaseTransport | None = None, **options
) -> OhtuiApp:
    client = OpenHandsClient(base_url, transport=transport)
    return OhtuiApp(client, url=base_url, clock=lambda: FIXED_NOW, **options)


#: How long a wait may take before the test fails. A bound for a condition that does not come,
#: not a pace: a condition that holds returns at once. Generous, because a machine running the
#: suite beside other work can be many times slower than an idle one.
WAIT_LIMIT = 60.0


def _describe(predicate) -> str:
    """The predicate's source line where it can be found (a lambda's name says nothing)."""
    try:
        return inspect.getsource(predicate).strip()
    except (OSError, TypeError):
        return getattr(predicate, "__name__", repr(predicate))


async def wait_for(predicate, timeout: float = WAIT_LIMIT, pilot=None) -> None:
    """Poll until ``predicate()`` is true; fail with a clear message on timeout."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(
                f"timed out after {timeout:.0f} s waiting for {_describe(predicate)}"
            )
        if pilot is not None:
            await pilot.pause(0.02)
        else:
            await asyncio.sleep(0.02)


def poll(predicate, timeout: float = WAIT_LIMIT, every: float = 0.02):
    """Outside an event loop (a test beside a server thread): poll until ``predicate()`` is
    truthy and return its value; fail with a clear message on timeout."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout:.0f} s waiting for {_describe(predicate)}"
            )
        time.sleep(every)
    return value


#: Worker groups that last as long as their screen (a followed stream, the board's feed):
#: never waited for.
ENDLESS_WORKERS = frozenset({"live", "board-feed"})


def notes_told(app) -> list[str]:
    """The texts of the notifications the app raises from now on (they are still shown)."""
    notes: list[str] = []
    real = app.notify

    def notify(message, *args, **kwargs):
        notes.append(str(message))
        return real(message, *args, **kwargs)

    app.notify = notify
    return notes


def send_burst(app, keys) -> None:
    """``(key, character)`` pairs straight into the driver, as one read from the terminal
    delivers them (a paste, ``tmux send-keys``, a fast typist): all queued before any acts."""
    from textual import events

    for key, char in keys:
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)


def busy_workers(app, keep: frozenset[str] | set[str] = ENDLESS_WORKERS) -> list:
    """The app's workers still running, but for the groups in ``keep``."""
    return [w for w in app.workers if w.group not in keep and not w.is_finished]


async def settled(pilot, timeout: float = WAIT_LIMIT, keep: Iterable[str] = ()) -> None:
    """Wait until the app has nothing left to do of its own accord: every worker has returned
    (but the ``ENDLESS_WORKERS`` and the groups in ``keep``, e.g. one waiting for a modal's
    answer) and every widget has handled what they posted, twice in a row (a handled message
    may start another worker). What changes the screen after this is a key, a timer or the
    network. For snapshots and "nothing more happens" assertions; a test that waits for
    something in particular waits for that (``wait_for``)."""
    app = pilot.app
    keep = ENDLESS_WORKERS | set(keep)
    calm = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while calm < 2:
        if loop.time() > deadline:
            raise AssertionError(f"still busy after {timeout:.0f} s: {busy_workers(app, keep)}")
        await pilot._wait_for_screen()
        app.screen._on_timer_update()  # what waits for a refresh (call_after_refresh) runs now
        if busy_workers(app, keep):
            calm = 0
            await asyncio.sleep(0.02)
        else:
            calm += 1


def screen_ready(app, screen_class) -> bool:
    """A ``screen_class`` screen is current and composed (it is current a moment before its
    widgets exist; a query in between fails with NoMatches)."""
    return isinstance(app.screen, screen_class) and app.screen.is_mounted


def dialog_ready(app, screen_class) -> bool:
    """A ``screen_class`` screen is current, composed and has given focus to one of its own
    widgets: what is typed now goes into it (a key pressed a moment earlier goes to whatever
    was focused before, and is lost)."""
    focused = app.focused
    return screen_ready(app, screen_class) and focused is not None and focused.screen is app.screen


def conversations_shown(app) -> bool:
    """The conversations screen is current and composed (it is current a moment before its
    widgets exist; a query in between fails)."""
    from textual.widgets import DataTable

    from tui.app.screens.conversations.conversations import ConversationsScreen

    return isinstance(app.screen, ConversationsScreen) and bool(app.screen.query(DataTable))


async def push_conversation(pilot, conversation_id: str):
    """From the listed conversations, open ``conversation_id``; the conversation screen once
    it is current (its rows may still be on their way: wait for what the test needs)."""
    from tui.app.screens.conversation import ConversationScreen

    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(conversation_id)
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    return app.screen


def first_rows_shown(screen) -> bool:
    """The event list shows the screen's current window and its first row is loaded.

    ``screen.window`` can hold rows before the list is given it (the first page and the
    conversation record load together). The count may still be on its way."""
    from tui.app.widgets.conversation.event_list import EventList

    lists = screen.query(EventList)  # empty until the screen has composed
    return (
        bool(lists)
        and lists.first().source is screen.window
        and len(screen.window) > 0
        and screen.window.row(0) is not None
    )


def list_ready(screen) -> bool:
    """The first rows are shown and the window's length is known.

    The first page is shown before the count arrives (it walks the whole log on the
    server), so a test that reads ``len(screen.window)`` or presses End waits for this."""
    return first_rows_shown(screen) and screen.window.total is not None


def tree_ready(screen) -> bool:
    """Every event is indexed and the tree pane shows all of them (its outline is worked
    out in slices after the index grows, so it lags the index a little)."""
    from tui.app.widgets.conversation.event_tree import EventTreeView

    views = screen.query(EventTreeView)
    return (
        screen.events.base.complete
        and bool(views)
        and views.first().shown_size == len(screen.events.base.head) > 0
    )


async def event_log(pilot, screen) -> None:
    """Switch the open conversation to the event log (``v``: every event a row), as tests of
    the log's own ways need: a conversation opens in the steps view."""
    await pilot.press("v")
    await wait_for(lambda: screen.window is screen.events.base and list_ready(screen), pilot=pilot)


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
