"""The tree's cursor moves the list: the event under it is selected in whatever view the
list shows (pages the list has not loaded yet are loaded, the row scrolled into view), the
detail shows it, an event the view leaves out is shown in the detail saying so, and the
list never moves the tree back (no loop: rebuilds and focus do not move the list)."""

from __future__ import annotations

from textual import events

from tests.helpers.app_helpers import list_ready, make_app, settled, tree_ready, wait_for
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.tree_follow import NOT_SHOWN
from tui.app.store.row_windows import EventQuery, PagedWindow, PathWindow
from tui.app.store.step_rows import holds
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.filter_bar import FilterBar
from tui.app.widgets.conversation.tree_nodes import node_position
from tui.server import Store, load_demo

IDS = load_demo(Store())
NARROW = (80, 24)


async def _open(app, pilot) -> ConversationScreen:
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: tree_ready(screen), pilot=pilot)
    await settled(pilot)
    return screen


def _parts(screen):
    return (
        screen.query_one(EventTreeView),
        screen.query_one(EventList),
        screen.query_one(EventDetail),
    )


def _tree_event(screen, tree: EventTreeView):
    """The index's row the tree's cursor stands for."""
    return screen.events.base.head[node_position(tree.cursor_node.data)]


def _in_view(event_list: EventList) -> bool:
    top = int(event_list.scroll_offset.y)
    return top <= event_list.cursor < top + event_list.size.height


async def _filter(screen, pilot, query: EventQuery) -> PagedWindow:
    screen.query_one(FilterBar).change(query)
    await wait_for(lambda: screen.window.query == query and list_ready(screen), pilot=pilot)
    await settled(pilot)
    return screen.window


async def test_moving_the_tree_selects_its_event_in_the_list_and_the_detail(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot)
        tree, event_list, detail = _parts(screen)
        start = event_list.cursor  # the first user message: where a conversation opens
        await pilot.press("t")  # the cursor is put on the first line: the list stays
        await settled(pilot)
        assert tree.cursor_line == 0 and event_list.cursor == start
        for _ in range(4):
            await pilot.press("j")
            row = _tree_event(screen, tree)  # in the steps view: the step that holds it
            await wait_for(lambda row=row: holds(event_list.current, row.id), pilot=pilot)
            step = event_list.current
            await wait_for(
                lambda step=step: detail._event is not None and detail._event.id == step.id,
                pilot=pilot,
            )
            assert app.focused is tree and _in_view(event_list)
        assert event_list.cursor > 4  # the branches start far down: not the list's own j's


async def test_a_burst_of_tree_keys_ends_with_the_list_on_the_last_one(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot)
        tree, event_list, _detail = _parts(screen)
        for key in ("t", "j", "j", "j", "j", "j"):  # as a terminal sends a paste
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await wait_for(lambda: tree.cursor_line == 5, pilot=pilot)
        await settled(pilot)
        assert holds(event_list.current, _tree_event(screen, tree).id)


async def test_newest_first_the_event_is_loaded_where_it_is_and_scrolled_to(demo_server):
    """1,492 events newest first: the tree's first branch is far from both ends the list
    has loaded; its page is fetched and the row brought into view."""
    app = make_app(demo_server.base_url, conversation_id=IDS["long"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot)
        tree, event_list, detail = _parts(screen)
        window = await _filter(screen, pilot, EventQuery(descending=True))
        assert len(window) == len(screen.events.base.head) > 1_000
        await pilot.press("t", "j")  # line 1: the first side branch, past the 750th event
        row = _tree_event(screen, tree)
        position = node_position(tree.cursor_node.data)
        assert 300 < position < len(window) - 300
        await wait_for(lambda: event_list.current is not None, pilot=pilot)
        await wait_for(lambda: event_list.current.id == row.id, pilot=pilot)
        assert event_list.cursor == len(window) - 1 - position and _in_view(event_list)
        await wait_for(
            lambda: detail._event is not None and detail._event.id == row.id, pilot=pilot
        )
        await pilot.press("j")  # the next line: the next event, one row up newest first
        after = _tree_event(screen, tree)
        await wait_for(lambda: event_list.current.id == after.id, pilot=pilot)


async def test_a_filtered_list_follows_to_its_rows_and_says_when_it_leaves_one_out(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot)
        tree, event_list, detail = _parts(screen)
        window = await _filter(screen, pilot, EventQuery(kind="MessageEvent"))
        await pilot.press("t")
        await settled(pilot)
        lines = [tree.get_node_at_line(n) for n in range(tree.last_line + 1)]
        base = screen.events.base.head
        message = next(
            n
            for n, node in enumerate(lines)
            if base[node_position(node.data)].kind == "MessageEvent" and n
        )
        other = next(
            n
            for n, node in enumerate(lines)
            if base[node_position(node.data)].kind != "MessageEvent"
        )
        tree.cursor_line = message
        row = _tree_event(screen, tree)
        await wait_for(
            lambda: event_list.current is not None and event_list.current.id == row.id, pilot=pilot
        )
        assert screen.window is window  # the filter stays
        kept = event_list.cursor
        tree.cursor_line = other
        left_out = _tree_event(screen, tree)
        await wait_for(
            lambda: detail._event is not None and detail._event.id == left_out.id, pilot=pilot
        )
        assert detail._note == NOT_SHOWN and event_list.cursor == kept
        await pilot.press("enter")  # enter: every event, the cursor on it
        await wait_for(lambda: screen.window.query.is_plain, pilot=pilot)
        await wait_for(
            lambda: event_list.current is not None and event_list.current.id == left_out.id,
            pilot=pilot,
        )
        assert screen.query_one(FilterBar).applied.kind is None


async def test_a_branch_view_follows_to_its_rows_only(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot)
        tree, event_list, detail = _parts(screen)
        await pilot.press("t", "j")  # the first side branch
        await pilot.press("b")  # the list shows only it: root → its newest leaf
        await wait_for(lambda: isinstance(screen.window, PathWindow), pilot=pilot)
        await settled(pilot)
        ids = {row.id for row in screen.window.rows}
        await pilot.press("k")  # the first event: on every branch
        first = _tree_event(screen, tree)
        await wait_for(
            lambda: event_list.current is not None and event_list.current.id == first.id,
            pilot=pilot,
        )
        await pilot.press("j", "j")  # the newest branch: not on this one
        elsewhere = _tree_event(screen, tree)
        assert elsewhere.id not in ids
        await wait_for(
            lambda: detail._event is not None and detail._event.id == elsewhere.id, pilot=pilot
        )
        assert detail._note == NOT_SHOWN and isinstance(screen.window, PathWindow)


async def test_the_list_never_moves_the_tree_and_rebuilds_never_move_the_list(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot)
        tree, event_list, _detail = _parts(screen)
        await pilot.press("t", "j", "j")
        row = _tree_event(screen, tree)
        await wait_for(lambda: holds(event_list.current, row.id), pilot=pilot)
        line, followed = tree.cursor_line, event_list.cursor
        await pilot.press("l", "j", "j", "j")  # the list, moved on by itself
        moved = event_list.cursor
        await settled(pilot)
        assert tree.cursor_line == line and event_list.cursor == moved == followed + 3
        app.theme = "ohtui-light"  # the pane draws itself anew, the cursor put back
        await settled(pilot)
        assert tree.cursor_line == line and event_list.cursor == moved
        tree.call_after_refresh(tree._place_cursor, line + 1)  # as a rebuild that shifted lines
        await settled(pilot)
        assert tree.cursor_line == line + 1 and event_list.cursor == moved
        await pilot.press("t")  # focus alone does not move the list either
        await settled(pilot)
        assert event_list.cursor == moved
