"""Start-up modes, the palette, new conversations and lazy paging of the conversations table."""

from __future__ import annotations

from textual.command import CommandPalette

from tests.helpers.app_helpers import (
    SIZE,
    RecordingTransport,
    conversations_shown,
    list_ready,
    make_app,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.dialogs.new_conversation import NewConversationScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.widgets.conversation.event_list import EventList
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation

IDS = load_demo(Store())


async def test_conversation_flag_opens_it_directly(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        await wait_for(lambda: list_ready(app.screen), pilot=pilot)
        await pilot.press("escape")  # back lands on the conversations list
        await wait_for(lambda: conversations_shown(app), pilot=pilot)


async def test_shared_mode_uses_the_public_search_only(demo_server):
    transport = RecordingTransport()
    app = make_app(
        demo_server.base_url, transport=transport, conversation_id=IDS["hello"], shared=True
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: screen.events.base.complete, pilot=pilot)
        paths = {r.url.path for r in transport.requests}
        assert paths == {"/api/shared-events/search"}  # nothing that needs credentials
        assert all(
            screen.window.row(i).kind != "ConversationStateUpdateEvent"
            for i in range(len(screen.window))
        )
        await settled(pilot)
        assert "shared link (read-only)" in screen_text(app)


async def test_palette_switches_screens_and_opens_by_id(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), pilot=pilot)
        await pilot.press(*"go to sandboxes")
        await settled(pilot)
        await pilot.press("enter")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        await pilot.press("colon")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), pilot=pilot)
        await pilot.press(*IDS["payments"])
        await settled(pilot)
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        assert app.screen.conversation_id == IDS["payments"]


async def test_palette_filter_by_kind(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), pilot=pilot)
        await pilot.press(*"filter: ObservationEvent")
        await settled(pilot)
        await pilot.press("enter")
        await wait_for(
            lambda: (
                screen.window.query.selected_kinds == {"ObservationEvent"}
                and screen.window.row(0) is not None
            ),
            pilot=pilot,
        )
        assert {screen.window.row(i).kind for i in range(len(screen.window))} == {
            "ObservationEvent"
        }


async def test_new_conversation_shows_progress_then_opens(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store, start_delay=0.3)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("n")
        await wait_for(lambda: screen_ready(app, NewConversationScreen), pilot=pilot)
        await pilot.press(*"Try ohtui", "enter", *"say hi", "enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: screen.conversation is not None, pilot=pilot)
        assert screen.conversation.title == "Try ohtui"
        await wait_for(
            lambda: (
                len(screen.window) >= 1 and screen.window.row(len(screen.window) - 1) is not None
            ),
            pilot=pilot,
        )
        summaries = [screen.window.row(i).summary for i in range(len(screen.window))]
        assert any("say hi" in s for s in summaries)


async def test_readonly_offers_no_new_conversation(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        before = len(store.conversation_ids())
        assert "New conversation" not in screen_text(app)  # not in the key bar
        await pilot.press("n")
        await settled(pilot)  # the key handled: nothing opens, nothing is asked
        assert not isinstance(app.screen, NewConversationScreen)
        assert len(store.conversation_ids()) == before


async def test_conversations_table_pages_lazily(make_server):
    store = Store()
    for n in range(120):
        generate_conversation(store, 1, seed=n, title=f"generated {n:03d}")
    server = make_server(store)
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == 50, pilot=pilot)
        await pilot.press("G")
        await wait_for(lambda: table.row_count == 100, pilot=pilot)
        await pilot.press("G")
        await wait_for(lambda: table.row_count == 120, pilot=pilot)
        searches = transport.queries("/app-conversations/search")
        assert [("page_id" in q) for q in searches[-3:]] == [False, True, True]
        keys = [key.value for key in table.rows]
        assert len(keys) == len(set(keys)) == 120


async def test_event_list_keys(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["long"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list = screen.query_one(EventList)
        start = event_list.cursor  # the first user message
        await pilot.press("j", "j", "down")
        assert event_list.cursor == start + 3
        await pilot.press("k")
        assert event_list.cursor == start + 2
        await pilot.press("pagedown")
        assert event_list.cursor == start + 2 + event_list.size.height - 1
        await pilot.press("G")
        assert event_list.cursor == len(screen.window) - 1
        await pilot.press("g")
        assert event_list.cursor == 0
        await pilot.press("tab")
        assert app.focused is screen.query_one("#event-detail")


async def test_z_zooms_the_focused_pane_and_esc_or_z_restores(demo_server):
    from tui.app.widgets.common.key_bar import KeyBar
    from tui.app.widgets.conversation.event_detail import EventDetail

    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        event_list, detail = screen.query_one(EventList), screen.query_one(EventDetail)
        event_list.focus()
        await pilot.press("z")
        assert screen.maximized is event_list and screen.query_one(KeyBar).display
        await settled(pilot)
        assert event_list.region.width == 80  # the whole terminal
        await pilot.press("z")
        assert screen.maximized is None
        await pilot.press("d", "z")  # the detail zooms too
        assert screen.maximized is detail
        await pilot.press("t")  # a pane hidden behind the zoom: restore, then focus it
        assert screen.maximized is None and screen.focused is screen.query_one("#event-tree")
        await pilot.press("z", "escape")  # esc restores first and stays on the screen
        assert screen.maximized is None and app.screen is screen
        await pilot.press("escape")
        assert app.screen is not screen


async def test_a_long_title_never_pushes_the_status_out_of_the_header(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=(60, 24)) as pilot:
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen) and screen.conversation is not None, pilot=pilot)
        await settled(pilot)
        lines = screen_text(app).splitlines()
        assert lines[0].rstrip().endswith("…")  # the title and id, cut at the edge
        assert lines[1].lstrip().startswith("agent ")  # the status keeps its line
