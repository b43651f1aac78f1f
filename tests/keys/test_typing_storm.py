"""Keys typed fast (hostile testing, issue 32): a jump (``u``, ``e``) right behind the enter
that opens a conversation, before its find bar is mounted and before its rows are counted; a
screen answered twice by keys queued behind each other; tree keys right after its rows were
replaced; and storms of every conversation key between terminal resizes. The app keeps
running, says nothing failed, and still draws."""

from __future__ import annotations

import random

import pytest
from textual import events
from textual.geometry import Size

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    dialog_ready,
    list_ready,
    make_app,
    notes_told,
    push_conversation,
    screen_ready,
    screen_text,
    send_burst,
    settled,
    tree_ready,
    wait_for,
)
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.filter_dialog import FilterDialog
from tui.app.screens.conversation.find import NO_FAILURES
from tui.app.screens.conversation.loading import first_user_message
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.insights import InsightsScreen
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.server import Store, add_live_demo, load_demo

IDS = load_demo(Store())


async def _open_list(app, pilot, conversation_id: str | None = None):
    """The conversations list, its cursor on ``conversation_id`` (or its first row)."""
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    table = app.screen.query_one("DataTable")
    await wait_for(lambda: table.row_count > 0, pilot=pilot)
    table.focus()
    if conversation_id is not None:
        table.move_cursor(row=table.get_row_index(conversation_id))
    await wait_for(lambda: table.has_focus, pilot=pilot)
    return table


def _wanted(key: str):
    if key in "eE":
        return lambda row: row.is_error
    return lambda row: row.kind == "MessageEvent" and row.source == "user"


@pytest.mark.parametrize(
    ("name", "key"),
    [("long", "u"), ("long", "U"), ("fail", "e"), ("fail", "E"), ("hello", "e")],
)
async def test_a_jump_typed_with_the_enter_that_opens_lands_where_it_would_later(
    demo_server, name, key
):
    """The jump waits for the rows and reports through the find bar whether or not the bar
    is mounted yet (it is mounted after the first rows are painted): before, ``u`` or ``e``
    right behind enter failed with NoMatches on every try."""
    app = make_app(demo_server.base_url)
    notes = notes_told(app)
    cid = IDS[name]
    async with app.run_test(size=SIZE) as pilot:
        await _open_list(app, pilot, cid)
        send_burst(app, [("enter", None), (key, key)])
        await wait_for(lambda: screen_ready(app, ConversationScreen), pilot=pilot)
        screen = app.screen
        assert screen.conversation_id == cid
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        await settled(pilot)
        assert not [note for note in notes if "failed" in note], notes
        assert app.is_running and app._exception is None
        window = screen.window
        await screen.events.load_all(window)
        rows = [window.row(i) for i in range(len(window))]
        hits = [i for i, row in enumerate(rows) if _wanted(key)(row)]
        cursor = screen.query_one(EventList).cursor
        start = first_user_message(window)  # where the list opens
        if not hits:
            assert cursor == start
            failures = NO_FAILURES.capitalize() + "."
            assert notes[-1] == (failures if key in "eE" else "No user messages.")
            return
        # from where it opens: the next one after it, or the last one (wrapping back)
        after = next((i for i in hits if i > start), hits[0])
        before = [i for i in hits if i < start]
        expected = after if key.islower() else (before[-1] if before else hits[-1])
        assert cursor == expected, (cursor, hits[:5], hits[-5:])
        assert screen.find_bar.status.startswith(f"row {expected + 1:,} of {len(window):,}")


#: Every key of the conversation screen but those that steer the agent (space X m A R) and
#: quit: as (key, character) for the driver.
STORM_KEYS = [
    *((c, c) for c in "jkgGuUeEnNtldz<>=oavbficCr"),
    ("right_square_bracket", "]"),
    ("left_square_bracket", "["),
    ("slash", "/"),
    ("escape", None),
    ("tab", None),
    ("shift+tab", None),
    ("enter", None),
]
NAMED = {"<": "less_than_sign", ">": "greater_than_sign", "=": "equals_sign"}


def _storm(seed: int, length: int) -> list:
    """Keys with terminal sizes between them (40x10 to 200x60), in a seeded random order."""
    rng = random.Random(seed)
    items: list = []
    for _ in range(length):
        key, char = rng.choice(STORM_KEYS)
        items.append((NAMED.get(key, key), char))
        if rng.random() < 0.3:
            items.append(Size(rng.randint(40, 200), rng.randint(10, 60)))
    return items


def _send_storm(app, items) -> None:
    """Queue keys and resizes at once, as a terminal delivers them while being dragged."""
    for item in items:
        if isinstance(item, Size):
            app._driver._size = item
            app.post_message(events.Resize(item, item))
        else:
            send_burst(app, [item])


@pytest.mark.parametrize(
    ("seed", "chunk", "length"),
    [(208, 4, 200), (3, 2, 160)],  # the two finest interleavings of keys and resizes
)
async def test_a_storm_of_keys_and_resizes_after_enter_breaks_nothing(
    make_server, seed, chunk, length
):
    """From a seeded row of the list (the live conversation among them), enter and a storm
    of the conversation's keys between resizes, ``chunk`` keys delivered at a time: the app
    runs on, nothing failed, the list stays under whatever is open, and the screen draws.
    Storms like these found the blank screen (a dialog answered twice) and the tree's stale
    cursor; which keys meet which moment varies from run to run, so each of those has its
    own deterministic test above."""
    store = Store()
    load_demo(store)
    add_live_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    notes = notes_told(app)
    rng = random.Random(seed)
    async with app.run_test(size=SIZE) as pilot:
        table = await _open_list(app, pilot)
        table.move_cursor(row=rng.randrange(table.row_count))
        storm = [("enter", None), *_storm(seed, length)]
        for start in range(0, len(storm), chunk):
            _send_storm(app, storm[start : start + chunk])
            # the next keys come once the app has taken these (not once some time passed)
            await wait_for(lambda: app.message_queue_size == 0, pilot=pilot)
        await pilot.resize_terminal(80, 24)
        await settled(pilot, keep={"new-conversation", "filter"})
        assert not [note for note in notes if "failed" in note], notes
        assert app.is_running and app._exception is None and app.return_code is None
        assert _stack(app)[:2] == ["Screen", "ConversationsScreen"], _stack(app)
        assert screen_text(app).strip()


def _stack(app) -> list[str]:
    return [type(screen).__name__ for screen in app.screen_stack]


@pytest.mark.parametrize(
    ("opener", "screen_class", "answers"),
    [
        ("f", FilterDialog, [("enter", None), ("escape", None)]),
        ("f", FilterDialog, [("escape", None), ("escape", None)]),
        ("i", InsightsScreen, [("escape", None), ("escape", None)]),
    ],
    ids=["filter-enter-esc", "filter-esc-esc", "insights-esc-esc"],
)
async def test_a_screen_answered_twice_at_once_closes_only_itself(
    demo_server, opener, screen_class, answers
):
    """The storm's blank screen: a second answer queued behind the first (the filter
    dialog's enter, then esc; esc twice) dismissed the screen under the one it closed, then
    the conversations list, leaving nothing on screen."""
    app = make_app(demo_server.base_url)
    notes = notes_told(app)
    async with app.run_test(size=SIZE) as pilot:
        await _open_list(app, pilot, IDS["hello"])
        await pilot.press("enter")
        await wait_for(lambda: screen_ready(app, ConversationScreen), pilot=pilot)
        conversation = app.screen
        await wait_for(lambda: list_ready(conversation), pilot=pilot)
        await pilot.press(opener)
        await wait_for(lambda: dialog_ready(app, screen_class), pilot=pilot)
        dialog = app.screen
        send_burst(app, answers)
        await wait_for(lambda: dialog not in app.screen_stack, pilot=pilot)
        await settled(pilot)
        assert _stack(app) == ["Screen", "ConversationsScreen", "ConversationScreen"]
        assert app.screen is conversation and conversation.query_one(EventList).has_focus
        assert not [note for note in notes if "failed" in note], notes


async def test_a_screen_answered_under_another_closes_once_it_is_on_top_again(demo_server):
    """An answer that comes while another screen is over it (the command palette opened on
    a dialog whose work ends meanwhile) closes that dialog when it is on top again, never
    the screen over it."""
    app = make_app(demo_server.base_url)
    answers: list[bool | None] = []
    async with app.run_test(size=SIZE) as pilot:
        await _open_list(app, pilot)
        under, over = ConfirmScreen("under?"), ConfirmScreen("over?")
        app.push_screen(under, answers.append)
        await wait_for(lambda: dialog_ready(app, ConfirmScreen), pilot=pilot)
        app.push_screen(over)
        await wait_for(lambda: app.screen is over and over.is_mounted, pilot=pilot)
        under.dismiss(True)
        await settled(pilot)
        assert app.screen is over and under in app.screen_stack and answers == []
        await pilot.press("n")  # the one on top is answered: the one under it goes next
        await wait_for(lambda: under not in app.screen_stack, pilot=pilot)
        assert answers == [True] and _stack(app) == ["Screen", "ConversationsScreen"]


def _shown_nodes(tree) -> list:
    nodes, stack = [], list(tree.root.children)
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.children)
    return nodes


async def test_tree_keys_right_after_its_rows_are_replaced_act_on_what_is_shown(demo_server):
    """``V`` (raw history) empties the tree pane; a ``b`` right behind it acted on the line
    the cursor was on before, with a position of the old rows (IndexError), because the
    pane's cursor kept its old node. After any rebuild the cursor's node is one shown."""
    app = make_app(demo_server.base_url)
    notes = notes_told(app)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, IDS["hello"])
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        tree = screen.query_one(EventTreeView)
        await pilot.press("t")
        await wait_for(lambda: tree.has_focus and tree.cursor_node is not None, pilot=pilot)
        send_burst(app, [("V", "V"), ("b", "b")])
        await wait_for(lambda: screen.events.raw, pilot=pilot)
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        await settled(pilot)
        assert not [note for note in notes if "failed" in note], notes
        assert tree.cursor_node is None or tree.cursor_node in _shown_nodes(tree)
        await pilot.press("down", "b")  # the keys act on the new lines
        await settled(pilot)
        assert tree.cursor_node in _shown_nodes(tree)
        assert not [note for note in notes if "failed" in note], notes
