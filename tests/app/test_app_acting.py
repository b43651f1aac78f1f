"""Acting on a conversation (issue 30) from the keyboard, against the reference server in
agent-server mode (the routes the real agent server 1.58.2 has): ``Y`` forks from the
selected event and opens the fork, which says where it came from; ``B`` makes the selected
branch the current one; ``s`` asks aside, answered in a panel that copies and never enters
the events; ``M`` sets the confirmation policy and the security analyzer, which the header
shows. Where a key does not apply (an app server cannot fork; ``--readonly``) it says why."""

from __future__ import annotations

import uuid

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
from tui.app.screens.conversation.acting import branch_head
from tui.app.screens.conversation.side_answer import SideAnswerScreen
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.dialogs.policy_dialog import PolicyDialog
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.tree_nodes import node_position
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


def tree_labels(view) -> list[str]:
    """Every line the tree pane has built (opened or not)."""
    labels: list[str] = []
    stack = list(view.root.children)
    while stack:
        node = stack.pop()
        labels.append(str(node.label))
        stack.extend(node.children)
    return labels


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
        # the original is unchanged, and back on it its tree shows the fork at its event
        assert len(stored_ids(server, cid)) > len(stored_ids(server, fork.conversation_id))
        await pilot.press("escape")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        view = screen.query_one(EventTreeView)
        await wait_for(lambda: bool(view.fork_notes), pilot=pilot)
        await pilot.press("t")
        for node in list(view.root.children):  # open the runs: the event forked at is in one
            node.expand()
        await settled(pilot)
        assert any(
            label.startswith(f"{row.time} ⑂ ") and "forked: “Try it in Rust”" in label
            for label in tree_labels(view)
        ), tree_labels(view)


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
            ("M", "policies"),
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
    sandbox = server.store.get_conversation(cid)["sandbox_id"]
    server.store.update_sandbox(sandbox, status="RUNNING")  # the demo's is paused
    app = agent_app(server)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_live(pilot, cid)
        tree = screen.events.tree
        assert tree.children  # the demo's conversation with branches
        point = min(tree.children)
        older = tree.children[point][0]  # the first branch: not the newest
        rows = screen.events.base.head
        head = branch_head(tree, rows, older)
        assert rows[head].kind != "ConversationStateUpdateEvent"
        leaf_id = rows[head].id
        await pilot.press("t")
        view = screen.query_one(EventTreeView)

        def on_older_branch() -> bool:
            node = view.cursor_node
            pos = node_position(node.data) if node is not None else None
            return pos is not None and branch_head(tree, rows, pos) == head

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
        # the tree marks the branch now current: the older one, not the newest
        await wait_for(lambda: view.head == leaf_id, pilot=pilot)
        await settled(pilot)
        marked = [str(n.label) for n in view.root.children if "● current" in str(n.label)]
        assert marked and all("the newest" not in label for label in marked), marked
        # the next message continues from there
        await pilot.press("l", "m", *"go on from here", "enter")

        def sent() -> list[dict]:
            import json

            return [
                e
                for e in (json.loads(r.json) for r in server.store.iter_events(cid))
                if e["kind"] == "MessageEvent" and "go on from here" in json.dumps(e)
            ]

        await wait_for(lambda: bool(sent()), pilot=pilot)
        assert sent()[0]["parent_id"] == leaf_id


# --- a side question -------------------------------------------------------------------------


async def test_s_asks_aside_the_answer_shows_in_a_panel_copies_and_is_never_an_event(
    agent_server,
):
    server, names = agent_server
    cid = names["hello"]
    app = agent_app(server)
    copies: list[str] = []
    async with app.run_test(size=NARROW) as pilot:
        app.copy_to_clipboard = copies.append
        screen = await open_live(pilot, cid)
        rows_before = len(screen.window)
        logged_before = stored_ids(server, cid)
        await pilot.press("s")
        await type_into_dialog(pilot, "what did you change?")
        await wait_for(lambda: screen_ready(app, SideAnswerScreen), pilot=pilot)
        await settled(pilot)
        text = screen_text(app)
        assert "The agent's answer (not added to the conversation)" in text
        assert "Q: what did you change?" in text
        assert "You asked: “what did you change?”" in text
        await pilot.press("ctrl+c")
        assert copies and copies[-1].startswith("Q: what did you change?\n\nYou asked:")
        await pilot.press("escape")
        await wait_for(lambda: app.screen is screen, pilot=pilot)
        await settled(pilot)
        assert stored_ids(server, cid) == logged_before  # the server logged nothing
        assert len(screen.window) == rows_before
        assert "You asked" not in screen_text(app)


async def test_an_answer_with_markup_and_control_characters_is_shown_literally(agent_server):
    server, names = agent_server
    app = agent_app(server)
    async with app.run_test(size=NARROW) as pilot:
        await open_live(pilot, names["hello"])
        app.push_screen(SideAnswerScreen("[bold]q[/bold]", "[red]x[/red] \x1b[2J done"))
        await wait_for(lambda: screen_ready(app, SideAnswerScreen), pilot=pilot)
        await settled(pilot)
        text = screen_text(app)
        assert "Q: [bold]q[/bold]" in text and "[red]x[/red]" in text
        assert "\x1b" not in app.screen.text


async def test_a_question_the_server_cannot_answer_says_why_in_the_panel(agent_server):
    server, names = agent_server
    app = agent_app(server)
    async with app.run_test(size=NARROW) as pilot:
        await open_live(pilot, names["hello"])
        path = f"/api/conversations/{uuid.UUID(names['hello'])}/ask_agent"
        server.app.state.faults.add(
            "status", path, status=500, body='{"detail": "LLM unreachable"}'
        )
        await pilot.press("s")
        await type_into_dialog(pilot, "still there?")
        await wait_for(lambda: screen_ready(app, SideAnswerScreen), pilot=pilot)
        await wait_for(lambda: "No answer:" in screen_text(app), pilot=pilot)
        assert "llm unreachable" in screen_text(app).lower()


# --- policies ------------------------------------------------------------------------------------


async def test_p_turns_confirmation_on_and_chooses_an_analyzer_the_header_says_so(agent_server):
    server, names = agent_server
    cid = names["hello"]
    app = agent_app(server)
    async with app.run_test(size=WIDE) as pilot:
        await open_live(pilot, cid)
        assert "confirm" not in screen_text(app)  # the default (off) goes unsaid
        await pilot.press("M")
        await wait_for(lambda: screen_ready(app, PolicyDialog), pilot=pilot)
        await settled(pilot)
        assert "● Confirmation off" in screen_text(app)
        await pilot.press("down", "enter")  # confirmation on
        await wait_for(lambda: "confirm on" in screen_text(app), pilot=pilot)
        assert server.store.get_conversation(cid)["confirmation_policy"] == {
            "kind": "AlwaysConfirm"
        }
        await pilot.press("M")
        await wait_for(lambda: screen_ready(app, PolicyDialog), pilot=pilot)
        await pilot.press("down", "down", "down", "down", "enter")  # the LLM analyzer
        await wait_for(lambda: "confirm on · LLM analyzer" in screen_text(app), pilot=pilot)
        assert server.store.get_conversation(cid)["security_analyzer"] == {
            "kind": "LLMSecurityAnalyzer"
        }


async def test_a_policy_the_server_refuses_is_said_in_words(agent_server):
    server, names = agent_server
    app = agent_app(server)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_live(pilot, names["hello"])
        notes = notes_told(app)
        path = f"/api/conversations/{uuid.UUID(names['hello'])}/confirmation_policy"
        server.app.state.faults.add(
            "status", path, times=-1, status=503, body='{"detail": "agent restarting"}'
        )
        screen.set_policy("confirmation", "AlwaysConfirm")
        await wait_for(lambda: any("Could not set" in n for n in notes), pilot=pilot)
        assert any("agent restarting" in n.lower() for n in notes), notes
        assert "confirm on" not in screen_text(app)


# --- snapshots -----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_side_answer_snapshot(snap_compare, make_server, size):
    store = Store()
    names = load_demo(store)
    server = make_server(store, session_key=KEY, kind="agent", clock=lambda: CLOCK)

    async def run_before(pilot):
        await open_live(pilot, names["hello"])
        await pilot.press("s")
        await type_into_dialog(pilot, "what did you change?")
        await wait_for(lambda: screen_ready(pilot.app, SideAnswerScreen), pilot=pilot)
        pilot.app.clear_notifications()  # "Asking the agent…"
        await settled(pilot)

    assert snap_compare(agent_app(server), run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_policy_dialog_snapshot(snap_compare, make_server, size):
    store = Store()
    names = load_demo(store)
    server = make_server(store, session_key=KEY, kind="agent", clock=lambda: CLOCK)

    async def run_before(pilot):
        await open_live(pilot, names["hello"])
        await pilot.press("M")
        await wait_for(lambda: screen_ready(pilot.app, PolicyDialog), pilot=pilot)
        await settled(pilot)

    assert snap_compare(agent_app(server), run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_fork_header_snapshot(snap_compare, make_server, size, monkeypatch):
    """The fork, opened: where it came from, in its header."""
    from tui.server import routes_acting

    fork_id = uuid.UUID("f0f0f0f0-0000-4000-8000-00000000f0f0")
    monkeypatch.setattr(routes_acting, "new_conversation_id", lambda: fork_id)
    store = Store()
    names = load_demo(store)
    server = make_server(store, session_key=KEY, kind="agent", clock=lambda: CLOCK)

    async def run_before(pilot):
        app = pilot.app
        screen = await open_live(pilot, names["hello"])
        await pilot.press("Y")
        await type_into_dialog(pilot, "Try it in Rust")
        await wait_for(
            lambda: screen_ready(app, ConversationScreen) and app.screen is not screen,
            pilot=pilot,
        )
        fork = app.screen
        await wait_for(lambda: list_ready(fork) and fork.live is not None, pilot=pilot)
        await wait_for(lambda: "forked from" in screen_text(app), pilot=pilot)
        app.clear_notifications()
        await settled(pilot)

    assert snap_compare(agent_app(server), run_before=run_before, terminal_size=size)


# --- the runtime ---------------------------------------------------------------------------------

MISSING = {
    "runtime_status": "missing",
    "can_resume": True,
    "runtime_error": {"code": "sandbox_gone", "message": "the runtime's container was removed"},
}


def with_runtime(server, cid: str, runtime: dict) -> None:
    info = server.store.get_conversation(cid)
    info["runtime_info"] = runtime
    server.store.put_conversation(info)


async def test_a_missing_runtime_is_said_and_P_provisions_it_again(agent_server):
    server, names = agent_server
    cid = names["hello"]
    with_runtime(server, cid, MISSING)
    app = agent_app(server)
    async with app.run_test(size=WIDE) as pilot:
        await open_live(pilot, cid)
        await wait_for(lambda: "runtime missing" in screen_text(app), pilot=pilot)
        assert (
            "runtime missing · P provisions it again · sandbox_gone: the runtime's container"
            " was removed" in screen_text(app)
        )
        notes = notes_told(app)
        await pilot.press("P")
        await wait_for(lambda: screen_ready(app, ConfirmScreen), pilot=pilot)
        assert "Provision this conversation's runtime again?" in screen_text(app)
        await pilot.press("y")
        await wait_for(lambda: "The runtime is available." in notes, pilot=pilot)
        assert server.store.get_conversation(cid)["runtime_info"]["runtime_status"] == "available"
        await wait_for(lambda: "runtime missing" not in screen_text(app), pilot=pilot)


async def test_P_says_why_not_where_the_runtime_is_available_or_cannot_resume(agent_server):
    server, names = agent_server
    app = agent_app(server)
    with_runtime(server, names["payments"], {**MISSING, "can_resume": False})
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_live(pilot, names["hello"])
        assert "runtime" not in screen_text(app)  # available: nothing said
        assert screen.why_not("reprovision", ()) == (
            "The conversation's runtime is available: nothing to provision."
        )
        await pilot.press("escape")
        screen = await open_live(pilot, names["payments"])
        await wait_for(lambda: "cannot be resumed" in screen_text(app), pilot=pilot)
        notes = notes_told(app)
        await pilot.press("P")
        await settled(pilot)
        assert app.screen is screen
        assert notes == ["The server says this runtime (missing) cannot be resumed."]


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_missing_runtime_header_snapshot(snap_compare, make_server, size):
    store = Store()
    names = load_demo(store)
    server = make_server(store, session_key=KEY, kind="agent", clock=lambda: CLOCK)
    with_runtime(server, names["hello"], MISSING)

    async def run_before(pilot):
        await open_live(pilot, names["hello"])
        await wait_for(lambda: "runtime missing" in screen_text(pilot.app), pilot=pilot)
        await settled(pilot)

    assert snap_compare(agent_app(server), run_before=run_before, terminal_size=size)


async def test_the_palette_offers_what_applies_here(agent_server, make_server):
    server, names = agent_server
    app = agent_app(server)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_live(pilot, names["hello"])
        offered = [name for name, _, _ in screen.acting_commands()]
        assert offered == [
            "Ask the agent aside",
            "Modes: confirmation and analyzer",
            "Fork from the selected event",
            "Make the selected branch current",
        ]  # the runtime is available: nothing to provision
    app = agent_app(server, readonly=True)
    async with app.run_test(size=NARROW) as pilot:
        screen = await push_conversation(pilot, names["hello"])
        await wait_for(lambda: list_ready(screen), pilot=pilot)
        assert screen.acting_commands() == []


async def test_with_confirmation_on_the_next_action_of_a_run_waits(live_server):
    """The demo's agent (an app server's conversation) honours the mode set with M."""
    import asyncio

    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_live(pilot, cid)
        await pilot.press("M")
        await wait_for(lambda: screen_ready(app, PolicyDialog), pilot=pilot)
        await pilot.press("down", "enter")  # confirmation on
        await wait_for(lambda: "confirm on" in screen_text(app), pilot=pilot)
        await asyncio.to_thread(server.live.send_message_sync, cid, "run the tests please")
        await asyncio.to_thread(server.live.run_until_idle_sync, cid)
        await wait_for(lambda: screen.live.waiting_for_confirmation, pilot=pilot)
        await wait_for(lambda: "waits for your approval" in screen_text(app), pilot=pilot)
        assert "confirm on" in screen_text(app)  # the stream says it too (full_state)
        import json

        logged = [json.loads(r.json) for r in server.store.iter_events(cid)]
        waiting = [e for e in logged if e["kind"] == "ActionEvent"][-1]
        assert not any(e.get("action_id") == waiting["id"] for e in logged)  # not run yet
        await pilot.press("A")
        await wait_for(lambda: not screen.live.waiting_for_confirmation, pilot=pilot)
        await asyncio.to_thread(server.live.step_sync, cid)
        logged = [json.loads(r.json) for r in server.store.iter_events(cid)]
        assert any(
            e["kind"] == "ObservationEvent" and e.get("action_id") == waiting["id"] for e in logged
        )


async def test_B_on_the_current_branch_says_so(agent_server):
    server, names = agent_server
    cid = names["hello"]
    app = agent_app(server)
    async with app.run_test(size=NARROW) as pilot:
        screen = await open_live(pilot, cid)
        tree, rows = screen.events.tree, screen.events.base.head
        selected = tree.index_of(screen.query_one(EventList).current.id)
        head = rows[branch_head(tree, rows, selected)].id
        info = server.store.get_conversation(cid)
        info["leaf_event_id"] = head
        server.store.put_conversation(info)
        screen.set_record(leaf_event_id=head)
        notes = notes_told(app)
        await pilot.press("B")
        await settled(pilot)
        assert notes == ["This branch is already the current one."]
