"""Pilot-driven flows against the real reference server over loopback."""

from __future__ import annotations

import asyncio

from tests.helpers.app_helpers import (
    DEMO_ROWS,
    SIZE,
    RecordingTransport,
    conversations_shown,
    event_log,
    first_rows_shown,
    list_ready,
    make_app,
    push_conversation,
    screen_ready,
    screen_text,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.filter_dialog import FilterDialog
from tui.app.screens.dialogs.errors import ConnectionErrorScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen, SpecPicker
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import Branch, EventTreeView
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation


async def open_conversation(
    app, pilot, conversation_id: str, *, counted: bool = True
) -> ConversationScreen:
    """Open a conversation and wait for its first rows (and, if ``counted``, its total)."""
    screen = await push_conversation(pilot, conversation_id)
    await wait_for(lambda: (list_ready if counted else first_rows_shown)(screen), pilot=pilot)
    return screen


async def test_conversations_table_lists_demo(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)
        text = screen_text(app)
        # markup in titles is shown literally, never interpreted
        assert "[bold]payments[/bold]" in text
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)


async def test_title_filter_is_server_side(demo_server):
    transport = RecordingTransport()
    app = make_app(demo_server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)
        await pilot.press("slash", *"hello")
        await wait_for(lambda: table.row_count == 1, pilot=pilot)
        assert transport.queries("/app-conversations/search")[-1]["title__contains"] == "hello"
        await pilot.press("escape", "escape")
        await wait_for(lambda: table.row_count == DEMO_ROWS, pilot=pilot)


async def test_open_scroll_pages_without_duplicates(make_server):
    store = Store()
    cid = generate_conversation(store, 1_000, seed=3)
    server = make_server(store)
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, cid)
        steps = len(screen.window)  # the counts size the list before the rows arrive
        event_list = screen.query_one(EventList)
        event_list.focus()
        for _ in range(40):
            await pilot.press("pagedown")
        await wait_for(lambda: screen.events.base.complete, pilot=pilot)
        await screen.events.load_all(screen.window)
        ids = [screen.window.row(i).id for i in range(len(screen.window))]
        assert len(ids) == len(set(ids)) == steps and screen.window.events == 1_000
        pages = transport.queries(f"/conversation/{cid}/events/search")
        assert len(pages) >= 10 and all(q["limit"] == "100" for q in pages)
        await pilot.press("end")
        await wait_for(lambda: event_list.cursor == steps - 1, pilot=pilot)
        await pilot.press("home")
        await wait_for(lambda: event_list.cursor == 0, pilot=pilot)


async def test_end_on_a_large_conversation_loads_from_the_tail(make_server, monkeypatch):
    # no background index: the tail walk alone must fill the end (the index would race it)
    monkeypatch.setattr(ConversationScreen, "index", lambda self: None)
    store = Store()
    cid = generate_conversation(store, 20_000, seed=4)
    server = make_server(store)
    transport = RecordingTransport()
    app = make_app(server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, cid)
        screen.query_one(EventList).focus()
        await pilot.press("end")
        last = len(screen.window) - 1  # the last step (the counts sized the list)
        await wait_for(lambda: screen.window.row(last) is not None, pilot=pilot)
        assert screen.query_one(EventList).cursor == last
        sorts = [q.get("sort_order") for q in transport.queries("/events/search")]
        assert "TIMESTAMP_DESC" in sorts  # the end came from a descending walk, not 200 pages


async def test_end_pressed_as_the_total_arrives_scrolls_to_the_end(make_server, monkeypatch):
    # End in the same tick as the count: before Textual's next layout has shown the
    # scrollbar, a plain scroll_to is refused and the view stayed on the first page while
    # the cursor sat on the last row (found by bench/load.py's End walk)
    monkeypatch.setattr(ConversationScreen, "index", lambda self: None)
    pressed = []

    def end_once_sized(event_list):
        # the list just learnt how many rows it holds (count first or first page first)
        if not pressed and getattr(event_list.source, "total", None):
            pressed.append(True)
            event_list.action_last()

    total_known, set_source = ConversationScreen._total_known, EventList.set_source

    def on_total(self, window):
        total_known(self, window)
        end_once_sized(self.query_one(EventList))

    def on_source(self, source, **kwargs):
        set_source(self, source, **kwargs)
        end_once_sized(self)

    monkeypatch.setattr(ConversationScreen, "_total_known", on_total)
    monkeypatch.setattr(EventList, "set_source", on_source)
    store = Store()
    cid = generate_conversation(store, 5_000, seed=5)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, cid)
        event_list = screen.query_one(EventList)
        end = len(screen.window) - 1
        await wait_for(
            lambda: event_list.cursor == end and screen.window.row(end) is not None, pilot=pilot
        )
        assert event_list.scroll_offset.y == event_list.max_scroll_y > end - 100
        last = screen.window.row(end)
        await wait_for(lambda: last.summary[:30] in screen_text(app), pilot=pilot)


async def test_filters_reach_the_server_and_sort_toggles(demo_server):
    ids = load_demo(Store())
    transport = RecordingTransport()
    app = make_app(demo_server.base_url, transport=transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, ids["hello"])
        await event_log(pilot, screen)  # one kind there is the server's filter
        await settled(pilot)
        asked = len(transport.queries("/events/count"))  # the steps view's counted its kinds
        screen.filter_kind("ActionEvent")
        await wait_for(  # rows, then the count (asked for once they are painted)
            lambda: screen.window.query.kind == "ActionEvent" and list_ready(screen), pilot=pilot
        )
        assert transport.queries("/events/search")[-1]["kind__eq"] == "ActionEvent"
        kinds = {screen.window.row(i).kind for i in range(len(screen.window))}
        assert kinds == {"ActionEvent"}
        # a count for it, if one is needed (a single page is its own count), is by that kind
        # too; the base view's own counts (all, and the streaming deltas) may come after it
        counted = {q.get("kind__eq") for q in transport.queries("/events/count")[asked:]}
        assert counted - {None, "StreamingDeltaEvent"} <= {"ActionEvent"}

        await pilot.press("f")  # the filter dialog: the kind chosen stays, a time is added
        await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
        since = app.screen.query_one("#filter-since")
        since.focus()
        first_ts = screen.window.row(1).timestamp
        since.value = first_ts[:19].replace("T", " ")
        await pilot.press("enter")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await wait_for(
            lambda: screen.window.query.since is not None and screen.window.row(0) is not None,
            pilot=pilot,
        )
        assert transport.queries("/events/search")[-1]["timestamp__gte"] == first_ts[:19]
        assert all(
            screen.window.row(i).timestamp >= first_ts[:19] for i in range(len(screen.window))
        )

        screen.query_one(EventList).focus()
        await pilot.press("a")  # all events again
        await wait_for(
            lambda: screen.window.query.is_plain and screen.window.row(0) is not None, pilot=pilot
        )
        await pilot.press("o")
        await wait_for(
            lambda: screen.window.query.descending and screen.window.row(0) is not None, pilot=pilot
        )
        assert transport.queries("/events/search")[-1]["sort_order"] == "TIMESTAMP_DESC"
        stamps = [screen.window.row(i).timestamp for i in range(min(20, len(screen.window)))]
        assert stamps == sorted(stamps, reverse=True)


async def test_bad_time_is_refused_in_place(demo_server):
    ids = load_demo(Store())
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, ids["hello"])
        await pilot.press("f")
        await wait_for(lambda: screen_ready(app, FilterDialog), pilot=pilot)
        dialog = app.screen
        box = dialog.query_one("#filter-until")
        box.focus()
        box.value = "yesterday-ish"
        await pilot.press("enter")
        await wait_for(lambda: box.has_class("-invalid"), pilot=pilot)
        assert app.screen is dialog and screen.window.query.until is None  # it stays open
        assert "Not a date/time" in str(dialog.query_one("#filter-status").content)


async def test_branch_selection_shows_exactly_that_path(demo_server):
    ids = load_demo(Store())
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, ids["branches"])
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        await settled(pilot)
        view = screen.query_one(EventTreeView)
        branches = [n for n in view.root.children if isinstance(n.data, Branch)]
        assert len(branches) >= 2  # side branches and the continuation are marked
        side = branches[0]
        view.focus()
        view.move_cursor(side)
        await pilot.press("b")
        await wait_for(lambda: screen.window is not screen.query_window, pilot=pilot)
        tree, rows = screen.events.tree, screen.events.base.head
        expected = [rows[p].id for p in tree.branch_path(side.data.start)]
        assert [screen.window.row(i).id for i in range(len(screen.window))] == expected
        assert len(expected) < len(rows)
        screen.query_one(EventList).focus()
        await pilot.press("a")
        await wait_for(lambda: screen.window is screen.query_window, pilot=pilot)


async def test_detail_shows_action_with_paired_output_and_raw_toggle(demo_server):
    ids = load_demo(Store())
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, ids["hello"])
        await wait_for(lambda: screen.events.base.complete, pilot=pilot)
        event_list = screen.query_one(EventList)
        target = next(
            i for i in range(len(screen.window)) if screen.window.row(i).summary.startswith("$ ")
        )
        event_list.cursor = target
        detail = screen.query_one(EventDetail)
        await wait_for(
            lambda: detail._event is not None and detail._event.id == screen.window.row(target).id,
            pilot=pilot,
        )
        await settled(pilot)
        assert detail._paired is not None and detail._paired.kind == "ObservationEvent"
        text = screen_text(app)
        assert "exit code" in text and "$ " in text
        await pilot.press("enter")
        assert app.focused is detail
        await pilot.press("r")
        await settled(pilot)
        text = screen_text(app)
        assert detail.raw_mode and "raw JSON" in text and f'"id": "{detail._event.id}"' in text


async def test_raw_event_is_listed_and_explained(make_server):
    store = Store()
    cid = generate_conversation(store, 5, seed=1)
    store.append_events(
        cid,
        [
            {  # a known kind that does not validate (a newer kind is not an error)
                "kind": "MessageEvent",
                "id": "raw-1",
                "timestamp": "2099-01-01T00:00:00",
                "source": "agent",
            }
        ],
        normalize=False,
    )
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, cid)
        await screen.events.load_all(screen.window)
        rows = [screen.window.row(i) for i in range(len(screen.window))]
        at = next(i for i, row in enumerate(rows) if row.id == "raw-1")  # a row, never plumbing
        assert rows[at].flag == "raw"
        screen.query_one(EventList).cursor = at
        detail = screen.query_one(EventDetail)
        await wait_for(
            lambda: detail._event is not None and detail._event.id == "raw-1", pilot=pilot
        )
        await settled(pilot)
        assert "could not be parsed" in screen_text(app)


async def test_pause_resume_and_start_sandbox(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store, start_delay=0.2)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("2")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        screen = app.screen
        table = screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= 3, pilot=pilot)
        running = next(
            i
            for i, key in enumerate(table.rows)
            if screen._sandboxes[key.value].status == "RUNNING"
        )
        box_id = list(table.rows)[running].value
        table.move_cursor(row=running)
        await pilot.press("p")
        await wait_for(lambda: store.get_sandbox(box_id)["status"] == "PAUSED", pilot=pilot)
        await wait_for(
            lambda: not screen._pending and screen._sandboxes[box_id].status == "PAUSED",
            pilot=pilot,
        )
        await pilot.press("r")
        await wait_for(lambda: store.get_sandbox(box_id)["status"] == "RUNNING", pilot=pilot)
        before = table.row_count
        await pilot.press("s")
        await wait_for(lambda: screen_ready(app, SpecPicker), pilot=pilot)
        await pilot.press("enter")
        await wait_for(lambda: table.row_count == before + 1, pilot=pilot)


async def test_delete_asks_first(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("2")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= 3, pilot=pilot)
        count = table.row_count
        await pilot.press("d", "n")  # declined: nothing happens
        await settled(pilot)
        assert table.row_count == count
        await pilot.press("d", "y")
        await wait_for(lambda: table.row_count == count - 1, pilot=pilot)


async def test_readonly_blocks_sandbox_actions(make_server):
    store = Store()
    load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        await pilot.press("2")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count >= 3, pilot=pilot)
        ids = [key.value for key in table.rows]
        before = [store.get_sandbox(i)["status"] for i in ids]
        for row in range(len(ids)):
            table.move_cursor(row=row)
            await pilot.press("p", "r", "d")
        await settled(pilot)
        assert isinstance(app.screen, SandboxesScreen)  # no confirmation was even offered
        assert [store.get_sandbox(i)["status"] for i in ids] == before


async def test_unreachable_server_shows_error_screen_with_retry(make_server):
    app = make_app("http://127.0.0.1:9")  # discard port: nothing listens
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            lambda: isinstance(app.screen, ConnectionErrorScreen), timeout=30, pilot=pilot
        )
        await settled(pilot)
        text = screen_text(app)
        assert "Cannot reach the server" in text and "is it running" in text
        assert "2 Sandboxes" not in text  # nothing to go to before the server answers
        await pilot.press("r")
        await wait_for(
            lambda: isinstance(app.screen, ConnectionErrorScreen), timeout=30, pilot=pilot
        )


class SlowCount(RecordingTransport):
    """The count answers once ``release`` is set, long after the first page (a busy server
    walks the whole log): the test decides when, so it is later whatever the machine's speed."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def handle_async_request(self, request):
        if request.url.path.endswith("/events/count"):
            await self.release.wait()
        return await super().handle_async_request(request)


def slow_count_app(make_server, monkeypatch, seed: int):
    """A 5,000-event conversation whose count answers when the test releases it."""
    monkeypatch.setattr(ConversationScreen, "index", lambda self: None)  # no background walk
    store = Store()
    cid = generate_conversation(store, 5_000, seed=seed)
    server = make_server(store)
    transport = SlowCount()
    return make_app(server.base_url, transport=transport), cid, transport


async def test_end_pressed_before_the_total_is_known_goes_to_the_real_end(make_server, monkeypatch):
    # the first page is shown before the count arrives; End then must not stop at row 100
    app, cid, count = slow_count_app(make_server, monkeypatch, seed=5)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, cid, counted=False)
        event_list = screen.query_one(EventList)
        event_list.focus()
        assert screen.window.total is None  # still counting
        await pilot.press("end")
        count.release.set()
        window = screen.window
        await wait_for(lambda: window.total is not None, pilot=pilot)
        end = len(window) - 1
        await wait_for(lambda: event_list.cursor == end, pilot=pilot)
        await wait_for(lambda: window.row(end) is not None, pilot=pilot)
        await settled(pilot)
        assert "loading row" not in screen_text(app)
        # once there, a key moves the cursor as usual and the list stops chasing the end
        await pilot.press("up")
        assert event_list.cursor == end - 1


async def test_a_key_after_end_cancels_the_pending_end(make_server, monkeypatch):
    app, cid, count = slow_count_app(make_server, monkeypatch, seed=6)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_conversation(app, pilot, cid, counted=False)
        event_list = screen.query_one(EventList)
        event_list.focus()
        assert screen.window.total is None  # still counting
        await pilot.press("end", "home")
        count.release.set()
        await wait_for(lambda: screen.window.total is not None, pilot=pilot)
        await settled(pilot)
        assert event_list.cursor == 0
