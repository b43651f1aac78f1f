"""What people see, pinned: every screen and the main states, at a fixed size and clock."""

from __future__ import annotations

import asyncio

import httpx

from tests.helpers.app_helpers import (
    DEMO_ROWS,
    SIZE,
    conversations_shown,
    make_app,
    screen_ready,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.errors import ConnectionErrorScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation

IDS = load_demo(Store())


async def _table_ready(pilot, rows: int) -> None:
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    table = app.screen.query_one("DataTable")
    await wait_for(lambda: table.row_count >= rows, pilot=pilot)
    await settled(pilot)


async def _open(pilot, name_or_id: str, *, select: str | None = None) -> ConversationScreen:
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(IDS.get(name_or_id, name_or_id))
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: tree_ready(screen), pilot=pilot)
    target = screen.query_one(EventList).cursor  # where it opens: the first user message
    if select is not None:
        target = next(
            i for i in range(len(screen.window)) if screen.window.row(i).summary.startswith(select)
        )
        screen.query_one(EventList).cursor = target
    detail = screen.query_one(
        EventDetail
    )  # the detail must show the cursor's event, not a stale one
    await wait_for(
        lambda: detail._event is not None and detail._event.id == screen.window.row(target).id,
        pilot=pilot,
    )
    await settled(pilot)
    return screen


def test_conversations_screen(snap_compare, demo_server):
    async def run_before(pilot):
        await _table_ready(pilot, DEMO_ROWS)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


def test_conversation_terminal_action_with_output(snap_compare, demo_server):
    async def run_before(pilot):
        await _open(pilot, "hello", select="$ python3")

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


def test_conversation_file_edit_diff(snap_compare, demo_server):
    async def run_before(pilot):
        await _open(pilot, "branches", select="str_replace")

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


def test_conversation_branches_tree(snap_compare, demo_server):
    async def run_before(pilot):
        screen = await _open(pilot, "branches")
        screen.query_one("#event-tree").focus()
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


def test_raw_json_detail(snap_compare, demo_server):
    async def run_before(pilot):
        screen = await _open(pilot, "hello", select="user:")
        screen.query_one(EventDetail).focus()
        await pilot.press("r")
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


def test_unparsed_event_detail(snap_compare, make_server):
    store = Store()
    cid = generate_conversation(store, 3, seed=1)
    store.append_events(
        cid,
        [
            {  # a known kind that does not validate (a newer kind is shown as its fields)
                "kind": "MessageEvent",
                "id": "raw-1",
                "timestamp": "2099-01-01T00:00:00",
                "source": "agent",
                "x": "[red]literal[/red]",
            }
        ],
        normalize=False,
    )
    server = make_server(store)

    async def run_before(pilot):
        await _open(pilot, cid, select="unparsed")

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)


def test_empty_conversation(snap_compare, make_server):
    store = Store()
    cid = generate_conversation(store, 0, seed=1)
    server = make_server(store)

    async def run_before(pilot):
        app = pilot.app
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(cid)
        await wait_for(
            lambda: isinstance(app.screen, ConversationScreen) and app.screen.events.base.complete,
            pilot=pilot,
        )
        await settled(pilot)

    assert snap_compare(make_app(server.base_url), run_before=run_before, terminal_size=SIZE)


class StalledEvents(httpx.AsyncHTTPTransport):
    """Passes everything to the real server except event pages, which never come back."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/events/search"):
            await asyncio.Event().wait()
        return await super().handle_async_request(request)


async def open_stalled(pilot) -> None:
    """Open "hello" on an app whose event pages never come (``StalledEvents``) and wait for
    all that does come: the record (the header); the load itself stays waiting."""
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    app.open_conversation(IDS["hello"])
    await wait_for(
        lambda: isinstance(app.screen, ConversationScreen) and app.screen.events.record is not None,
        pilot=pilot,
    )
    await settled(pilot, keep={"load"})


def test_loading_state(snap_compare, demo_server):
    async def run_before(pilot):
        await open_stalled(pilot)

    app = make_app(demo_server.base_url, transport=StalledEvents())
    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


def test_sandboxes_screen(snap_compare, demo_server):
    async def run_before(pilot):
        app = pilot.app
        await _table_ready(pilot, DEMO_ROWS)
        await pilot.press("2")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= 4, pilot=pilot)
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


def test_error_screen(snap_compare):
    async def run_before(pilot):
        app = pilot.app
        await wait_for(
            lambda: isinstance(app.screen, ConnectionErrorScreen), timeout=30, pilot=pilot
        )
        await settled(pilot)

    assert snap_compare(make_app("http://127.0.0.1:9"), run_before=run_before, terminal_size=SIZE)


def test_light_theme(snap_compare, demo_server):
    async def run_before(pilot):
        await _open(pilot, "hello", select="$ python3")

    app = make_app(demo_server.base_url, theme="ohtui-light")
    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


def test_help_panel(snap_compare, demo_server):
    async def run_before(pilot):
        await _open(pilot, "hello")
        await pilot.press("question_mark")
        await settled(pilot)

    assert snap_compare(make_app(demo_server.base_url), run_before=run_before, terminal_size=SIZE)


def test_zoomed_detail_on_a_narrow_terminal(snap_compare, demo_server):
    # 80 columns: z lets the detail (a command and its output) use the whole width
    async def run_before(pilot):
        await _open(pilot, "hello", select="$ python3")
        await pilot.press("d", "z")
        await settled(pilot)

    assert snap_compare(
        make_app(demo_server.base_url), run_before=run_before, terminal_size=(80, 24)
    )
