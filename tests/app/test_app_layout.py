"""The conversation screen at 80×24 and at the default size: what takes focus, where keys go,
how wide the tree is, and that the key bar keeps help and quit at every width."""

from __future__ import annotations

from textual import events

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    make_app,
    screen_ready,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.panes import HIDDEN, MIN_WIDTH, session_panes
from tui.app.screens.dialogs.help import HelpScreen
from tui.app.screens.sandboxes.sandboxes import SandboxesScreen
from tui.app.store.step_rows import holds
from tui.app.widgets.common.key_bar import MORE, KeyBar
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.find_bar import FindBar
from tui.app.widgets.conversation.tree_nodes import node_position
from tui.server import Store, load_demo

IDS = load_demo(Store())
NARROW = (80, 24)


async def _open(app, pilot, name: str) -> ConversationScreen:
    await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
    screen = app.screen
    await wait_for(lambda: tree_ready(screen), pilot=pilot)
    await settled(pilot)
    return screen


def _type_at_once(app, *keys: str) -> None:
    """Keys as a fast typist (or a paste) sends them: all queued before any is handled."""
    names = {"/": "slash", "<": "less_than_sign", ">": "greater_than_sign"}
    for key in keys:
        app.post_message(events.Key(names.get(key, key), key if len(key) == 1 else None))


def _off_screen_focusables(screen) -> list:
    """Widgets Tab can reach that are not wholly on the screen."""
    area = screen.region
    return [
        widget
        for widget in screen.focus_chain
        if not area.contains_region(widget.region) or widget.region.area == 0
    ]


async def test_tab_goes_tree_list_detail_and_back(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot, "branches")
        tree, event_list = screen.query_one(EventTreeView), screen.query_one(EventList)
        detail = screen.query_one(EventDetail)
        assert screen.focus_chain == [tree, event_list, detail]  # nothing in the filter bar
        assert app.focused is event_list
        for expected in (detail, tree, event_list):
            await pilot.press("tab")
            assert app.focused is expected
        for expected in (tree, detail, event_list):
            await pilot.press("shift+tab")
            assert app.focused is expected


async def test_nothing_focusable_is_off_screen_at_80_columns(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot, "branches")
        assert _off_screen_focusables(screen) == []
        await pilot.press("slash")  # find open: its field joins the chain, its toggles do not
        await wait_for(lambda: screen.query_one(FindBar).region.area > 0, pilot=pilot)
        chain = screen.focus_chain
        assert chain[0] is screen.query_one("#find-input") and len(chain) == 4
        assert _off_screen_focusables(screen) == []
        bar = screen.query_one("#find-status")
        assert bar.region.width >= 20 and screen.region.contains_region(bar.region)


async def test_a_key_typed_right_after_a_pane_switch_goes_to_the_new_pane(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot, "branches")
        tree, event_list = screen.query_one(EventTreeView), screen.query_one(EventList)
        assert tree.cursor_line == -1
        _type_at_once(app, "t", "j", "j")  # focused, the tree's cursor starts on line 0
        await wait_for(lambda: tree.cursor_line == 2, pilot=pilot)
        # the list never saw the j's: it follows the tree's cursor to its line's event
        at = node_position(tree.cursor_node.data)
        assert at is not None and at != 2
        event_id = screen.events.base.head[at].id  # in the steps view: the step holding it
        await wait_for(lambda: holds(event_list.current, event_id), pilot=pilot)
        assert app.focused is tree
        at = event_list.cursor
        _type_at_once(app, "l", "j")
        await wait_for(lambda: event_list.cursor == at + 1, pilot=pilot)
        assert app.focused is event_list and tree.cursor_line == 2
        _type_at_once(app, "enter", "j")  # enter: the detail takes the next key
        await wait_for(lambda: app.focused is screen.query_one(EventDetail), pilot=pilot)
        await settled(pilot)
        assert event_list.cursor == at + 1
        _type_at_once(app, "/", "h", "e", "l", "l", "o")  # find, and its query typed at once
        box = screen.query_one("#find-input")
        await wait_for(lambda: box.value == "hello", pilot=pilot)
        assert app.focused is box and screen.query_one(EventList).cursor == at + 1
        _type_at_once(app, "t", "l")  # in a text field these are letters, not pane keys
        await wait_for(lambda: box.value == "hellotl", pilot=pilot)
        assert app.focused is box


async def test_right_and_left_open_and_close_tree_nodes(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot, "branches")
        tree = screen.query_one(EventTreeView)
        await pilot.press("t")
        tree.cursor_line = next(i for i, node in enumerate(tree.root.children) if node.allow_expand)
        node = tree.cursor_node
        assert node is not None and not node.is_expanded
        offset = tree.scroll_offset
        await pilot.press("right")
        assert node.is_expanded and tree.scroll_offset == offset  # opened, not scrolled
        await pilot.press("right")  # on an open node: its first line
        await wait_for(lambda: tree.cursor_node is node.children[0], pilot=pilot)
        await pilot.press("left")  # on a line inside: back to its parent
        await wait_for(lambda: tree.cursor_node is node, pilot=pilot)
        await pilot.press("left")
        assert not node.is_expanded
        keys = {b.binding.key for b in screen.active_bindings.values()}
        assert {"right", "left"} <= keys  # listed in the help (the active keys) too


async def test_the_tree_takes_a_share_and_keys_resize_it_for_the_session(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot, "branches")
        tree, event_list = screen.query_one(EventTreeView), screen.query_one(EventList)
        await settled(pilot)
        assert tree.outer_size.width == 24  # long lines: 30 % of 80 columns, the list the rest
        assert event_list.outer_size.width == 80 - 24
        _type_at_once(app, ">", ">")  # keys typed together each count
        await wait_for(lambda: tree.outer_size.width == 24 + 8, pilot=pilot)
        assert session_panes(app).tree_width == 32
        await pilot.press("escape")  # another conversation keeps the choice
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(IDS["hello"])
        other = await _open(app, pilot, "hello")
        assert other is not screen
        other_tree = other.query_one(EventTreeView)
        await wait_for(lambda: other_tree.outer_size.width == 32, pilot=pilot)
        for _ in range(5):  # 32 → 16, then hidden
            await pilot.press("less_than_sign")
        await wait_for(lambda: not other_tree.display, pilot=pilot)
        assert session_panes(app).tree_width == HIDDEN
        assert other.focus_chain == [other.query_one(EventList), other.query_one(EventDetail)]
        await pilot.press("t")  # wanted again: back at the narrowest, with focus
        await wait_for(lambda: other_tree.display and app.focused is other_tree, pilot=pilot)
        assert other_tree.outer_size.width == MIN_WIDTH
        await pilot.press("greater_than_sign", "equals_sign")  # as its lines need again:
        # this one never forked, so a fifth of the screen is its share (16 columns)
        await wait_for(lambda: session_panes(app).tree_width is None, pilot=pilot)
        await wait_for(lambda: other_tree.outer_size.width == 16, pilot=pilot)


async def test_zoom_gives_the_tree_the_whole_width_and_back(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot, "branches")
        tree = screen.query_one(EventTreeView)
        await pilot.press("t", "z")
        await wait_for(lambda: tree.outer_size.width == 80, pilot=pilot)
        await pilot.press("z")
        await wait_for(lambda: tree.outer_size.width == 24, pilot=pilot)


async def test_the_key_bar_keeps_help_and_quit_at_80_columns_everywhere(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)

        async def check() -> KeyBar:
            bar = app.screen.query_one(KeyBar)
            await wait_for(lambda: bar._spans, pilot=pilot)
            await settled(pilot)
            shown = bar.shown_text
            assert "? Help" in shown and "q Quit" in shown, shown
            return bar

        bar = await check()
        assert MORE in bar.shown_text  # some keys gave way: "…" says so
        await pilot.press("2")
        await wait_for(lambda: screen_ready(app, SandboxesScreen), pilot=pilot)
        await check()
        await pilot.press("1")
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        app.open_conversation(IDS["hello"])
        await _open(app, pilot, "hello")
        bar = await check()
        start, _end, _item = next(span for span in bar._spans if span[2].display == MORE)
        await pilot.click(KeyBar, offset=(start + 1, 0))  # "…" opens the help
        await wait_for(lambda: screen_ready(app, HelpScreen), pilot=pilot)


async def test_all_keys_fit_at_the_default_size_on_the_list(demo_server):
    app = make_app(demo_server.base_url)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        bar = app.screen.query_one(KeyBar)
        await wait_for(lambda: bar._spans, pilot=pilot)
        await settled(pilot)
        assert MORE not in bar.shown_text and "^r Refresh" in bar.shown_text


async def test_the_help_lies_over_the_panes_without_moving_them(demo_server):
    app = make_app(demo_server.base_url, conversation_id=IDS["hello"])
    async with app.run_test(size=NARROW) as pilot:
        screen = await _open(app, pilot, "hello")
        regions = [w.region for w in (*screen.focus_chain, screen.query_one(KeyBar))]
        await pilot.press("question_mark")
        await wait_for(lambda: screen_ready(app, HelpScreen), pilot=pilot)
        await settled(pilot)
        panel = app.screen.query_one("#help-panel")
        assert panel.region.width >= 30 and panel.region.right == 80
        assert [w.region for w in (*screen.focus_chain, screen.query_one(KeyBar))] == regions
        # the bar below says how to close it (the help has the keys while it is open)
        assert "esc Close" in app.screen.query_one(KeyBar).shown_text
        await pilot.press("question_mark")
        await wait_for(lambda: app.screen is screen, pilot=pilot)


async def test_enter_on_the_detail_opens_and_closes_its_sections(demo_server):
    from textual.widgets import Collapsible

    app = make_app(demo_server.base_url, conversation_id=IDS["branches"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot, "branches")
        detail = screen.query_one(EventDetail)
        window = screen.window
        system = next(i for i in range(len(window)) if window.row(i).kind == "SystemPromptEvent")
        screen.query_one(EventList).cursor = system
        await wait_for(lambda: bool(detail.query(Collapsible)), pilot=pilot)  # the system prompt
        await pilot.press("enter")  # from the list: the detail takes the keys
        assert app.focused is detail
        await pilot.press("enter")
        assert all(not c.collapsed for c in detail.query(Collapsible))
        await pilot.press("enter")
        assert all(c.collapsed for c in detail.query(Collapsible))
