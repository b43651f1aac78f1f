"""Acting on a conversation (issue 30) from the keyboard, against the reference server in
agent-server mode (the routes the real agent server 1.58.2 has): ``Y`` forks from the
selected event and opens the fork, which says where it came from; ``B`` makes the selected
branch the current one; ``s`` asks aside, answered in a panel that copies and never enters
the events; ``p`` sets the confirmation policy and the security analyzer, which the header
shows. Where a key does not apply (an app server cannot fork; ``--readonly``) it says why."""

from __future__ import annotations

import pytest

from tests.helpers.app_helpers import (
    FIXED_NOW,
    list_ready,
    make_app,
    notes_told,
    push_conversation,
    screen_ready,
    screen_text,
    settled,
    wait_for,
)
from tui.app.app import OhtuiApp
from tui.app.refusals import read_only_reason
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.path_dialog import PathDialog
from tui.app.screens.policy_dialog import PolicyDialog
from tui.app.screens.side_answer import SideAnswerScreen
from tui.app.widgets.event_list import EventList
from tui.app.widgets.event_tree import EventTreeView
from tui.app.widgets.tree_nodes import node_position
from tui.client import OpenHandsClient
from tui.server import Store, load_demo

NARROW, WIDE = (80, 24), (160, 48)
KEY = "acting-key-5e2a"
CLOCK = 1_795_000_000.0


@pytest.fixture
def agent_server(make_server):
    store = Store()
    names = load_demo(store)
    return make_server(store, session_key=KEY, kind="agent", clock=lambda: CLOCK), names


def agent_app(server, **options) -> OhtuiApp:
    client = OpenHandsClient(server.base_url, session_api_key=KEY)
    return OhtuiApp(client, url=server.base_url, clock=lambda: FIXED_NOW, **options)


async def open_live(pilot, cid: str) -> ConversationScreen:
    screen = await push_conversation(pilot, cid)
    await wait_for(
        lambda: list_ready(screen) and screen.live is not None and screen.events.tree is not None,
        pilot=pilot,
    )
    await settled(pilot)
    return screen


def stored_ids(server, cid: str) -> list[str]:
    import json

    return [json.loads(row.json)["id"] for row in server.store.iter_events(cid)]


async def type_into_dialog(pilot, text: str) -> None:
    await wait_for(lambda: screen_ready(pilot.app, PathDialog), pilot=pilot)
    field = pilot.app.screen.query_one("#path-input")
    field.value = ""
    await pilot.press(*text, "enter")


# --- fork ----------------------------------------------------------------------------------------


async def test_Y_forks_at_the_selected_event_and_opens_the_fork(agent_server):
    server, names = agent_server
    cid = names["hello"]
    app = agent_app(server)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_live(pilot, cid)
        row = screen.query_one(EventList).current  # the first user message
        assert row is not None and row.kind == "MessageEvent"
        await pilot.press("Y")
        await wait_for(lambda: screen_ready(app, PathDialog), pilot=pilot)
        assert "Fork from event" in screen_text(app)
        assert "Fork of Write hello.py and run it" in screen_text(app)  # the title offered
        await type_into_dialog(pilot, "Try it in Rust")
        await wait_for(
            lambda: screen_ready(app, ConversationScreen) and app.screen is not screen,
            pilot=pilot,
        )
        fork = app.screen
        await wait_for(lambda: list_ready(fork), pilot=pilot)
        forks = [i for i in server.store.get_conversations(server.store.conversation_ids()) if i]
        made = [i for i in forks if i.get("forked_from_conversation_id") == cid]
        assert len(made) == 1 and made[0]["title"] == "Try it in Rust"
        assert fork.conversation_id == made[0]["id"]
        # its log is the branch up to the event forked at, which ends it
        assert stored_ids(server, fork.conversation_id)[-1] == row.id
        await wait_for(lambda: "forked from" in screen_text(app), pilot=pilot)
        text = screen_text(app)
        assert f"forked from {cid[:8]} at event {row.id[:8]}" in text
        assert "Try it in Rust" in text
        # the original is unchanged
        assert len(stored_ids(server, cid)) > len(stored_ids(server, fork.conversation_id))


async def test_a_fork_the_server_refuses_is_said_in_words(agent_server):
    server, names = agent_server
    app = agent_app(server)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_live(pilot, names["hello"])
        notes = notes_told(app)
        screen.fork_at("no-such-event", "x")  # what the real server answers 404 to
        await wait_for(lambda: any("Could not fork" in n for n in notes), pilot=pilot)
        assert any("Unknown from_event_id: no-such-event" in n for n in notes), notes
        assert app.screen is screen


async def test_an_app_server_offers_no_fork_and_says_why(make_server):
    store = Store()
    names = load_demo(store)
    server = make_server(store)
    app = make_app(server.base_url)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_live(pilot, names["hello"])
        notes = notes_told(app)
        await pilot.press("Y")
        await settled(pilot)
        assert app.screen is screen
        assert any("This server cannot fork a conversation" in n for n in notes), notes


async def test_readonly_refuses_every_acting_key_in_words(agent_server):
    server, names = agent_server
    app = agent_app(server, readonly=True)
    async with app.run_test(size=NARROW) as pilot:
        screen = await push_conversation(pilot, names["hello"])
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        notes = notes_told(app)
        before = server.store.get_conversation(names["hello"])
        for key, action in (
            ("Y", "fork"),
            ("B", "navigate"),
            ("s", "ask_aside"),
            ("p", "policies"),
        ):
            await pilot.press(key)
            await settled(pilot)
            assert app.screen is screen  # no dialog: nothing to ask
            assert screen.why_not(action, ()) == read_only_reason(app)
        # said once (the same reason is not repeated while it shows: refusals.py)
        assert notes == [read_only_reason(app)]
        assert server.store.get_conversation(names["hello"]) == before
        assert len(server.store.conversation_ids()) == len(names)


# --- navigate ------------------------------------------------------------------------------------


async def test_B_on_a_branch_in_the_tree_makes_it_current(agent_server):
    server, names = agent_server
    cid = names["branches"]
    app = agent_app(server)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_live(pilot, cid)
        tree = screen.events.tree
        assert tree.children  # the demo's conversation with branches
        point = min(tree.children)
        older = tree.children[point][0]  # the first branch: not the newest
        leaf_id = screen.events.base.head[tree.leaf_of(older)].id
        await pilot.press("t")
        view = screen.query_one(EventTreeView)

        def on_older_branch() -> bool:
            node = view.cursor_node
            pos = node_position(node.data) if node is not None else None
            return pos is not None and tree.leaf_of(pos) == tree.leaf_of(older)

        for _ in range(100):  # down the tree to a line of the older branch
            if on_older_branch():
                break
            await pilot.press("j")
        assert on_older_branch()
        notes = notes_told(app)
        await pilot.press("B")
        await wait_for(lambda: any("current branch now ends" in n for n in notes), pilot=pilot)
        assert server.store.get_conversation(cid)["leaf_event_id"] == leaf_id
        await wait_for(
            lambda: f"current branch ends at {leaf_id[:8]}" in screen_text(app), pilot=pilot
        )
