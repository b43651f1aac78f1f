"""Acting on a conversation (issue 30) from the keyboard, against the real agent server:
``Y`` forks at an event of a finished run (the fork's log ends at that event); ``B`` makes an
older branch current and the next message continues there; ``s`` asks aside (the fake LLM
answers; nothing is logged); ``M`` turns confirmation mode on, and the next action waits."""

from __future__ import annotations

import uuid

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    event_log,
    list_ready,
    screen_ready,
    screen_text,
    wait_for,
)
from tests.integration.fake_llm import tour, two_commands
from tests.integration.test_agent_server_app import WAIT, make_app, open_by_title
from tests.integration.waiting import status_in, until
from tui.app.screens.conversation import ConversationScreen
from tui.app.screens.conversation.acting import branch_head
from tui.app.screens.conversation.side_answer import SideAnswerScreen
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.dialogs.policy_dialog import PolicyDialog
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.tree_nodes import node_position

pytestmark = pytest.mark.xdist_group("agent-server")

WIDE = (160, 48)


async def finished_run(agent, fake_llm, title: str) -> str:
    script = fake_llm.add(tour(agent.server.files, title.split()[-1]))
    cid = await agent.start(script, title=title)
    await status_in(agent, cid, {"finished"})
    return cid


async def answer_dialog(pilot, text: str) -> None:
    app = pilot.app
    await wait_for(lambda: screen_ready(app, PathDialog), WAIT, pilot)
    app.screen.query_one("#path-input").value = ""
    await pilot.press(*text, "enter")


async def cursor_to(pilot, screen, event_id: str) -> None:
    """The event log's cursor down to ``event_id``."""
    event_list = screen.query_one(EventList)
    for _ in range(200):
        if event_list.current is not None and event_list.current.id == event_id:
            return
        await pilot.press("j")
    raise AssertionError(f"{event_id} is not in the list")


async def test_Y_forks_at_an_event_of_a_finished_run(agent, fake_llm):
    title = f"fork source {uuid.uuid4().hex[:8]}"
    cid = await finished_run(agent, fake_llm, title)
    events = await agent.events(cid)
    at = next(e for e in events if e["kind"] == "ActionEvent")  # the first action
    app = make_app(agent.server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_title(app, pilot, title)
        await event_log(pilot, screen)
        await cursor_to(pilot, screen, at["id"])
        await pilot.press("Y")
        await answer_dialog(pilot, f"the fork of {title}")
        await wait_for(
            lambda: screen_ready(app, ConversationScreen) and app.screen is not screen, WAIT, pilot
        )
        fork = app.screen
        await wait_for(lambda: list_ready(fork), WAIT, pilot)
        forked = await agent.events(fork.conversation_id)
        # the real server's fork: the branch up to that event, which ends it
        assert forked[-1]["id"] == at["id"]
        assert [e["id"] for e in forked] == [
            e["id"] for e in events[: events.index(at) + 1] if e["id"] in {f["id"] for f in forked}
        ]
        record = (await agent.http.get(f"/api/conversations/{fork.conversation_id}")).json()
        assert record["title"] == f"the fork of {title}"
        assert record["forked_from_conversation_id"].replace("-", "") == cid
        assert record["forked_from_event_id"] == at["id"]
        await wait_for(lambda: "forked from" in screen_text(app), WAIT, pilot)
        assert f"forked from {cid[:8]} at event {at['id'][:8]}" in screen_text(app)


async def test_B_makes_an_older_branch_current_and_the_next_message_continues_there(
    agent, fake_llm
):
    title = f"branches {uuid.uuid4().hex[:8]}"
    cid = await finished_run(agent, fake_llm, title)
    events = await agent.events(cid)
    old_leaf = (await agent.http.get(f"/api/conversations/{cid}")).json()["leaf_event_id"]
    first_user = next(e for e in events if e["kind"] == "MessageEvent" and e["source"] == "user")
    # a second branch from the first message, made over plain HTTP: it is the current one
    r = await agent.http.post(
        f"/api/conversations/{cid}/navigate", json={"event_id": first_user["id"]}
    )
    assert r.status_code == 200, r.text
    await agent.send(cid, "a side branch", run=False)
    app = make_app(agent.server)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_by_title(app, pilot, title)
        await wait_for(lambda: screen.events.tree is not None, WAIT, pilot)
        await wait_for(lambda: bool(screen.events.tree.children), WAIT, pilot)
        tree = screen.events.tree
        old_position = tree.index_of(old_leaf)
        rows = screen.events.base.head
        await pilot.press("t")
        view = screen.query_one(EventTreeView)

        def on_old_branch() -> bool:
            node = view.cursor_node
            pos = node_position(node.data) if node is not None else None
            return pos is not None and branch_head(tree, rows, pos) == old_position

        for _ in range(200):  # down the tree, opening what is folded, to the older branch
            if on_old_branch():
                break
            node = view.cursor_node
            opens = node is not None and node.allow_expand and not node.is_expanded
            await pilot.press("right" if opens else "j")
        assert on_old_branch(), [str(n.label) for n in view.root.children]
        await pilot.press("B")

        async def moved() -> bool:
            info = (await agent.http.get(f"/api/conversations/{cid}")).json()
            return info["leaf_event_id"] == old_leaf

        await until(moved, "the head back on the older branch")
        await wait_for(
            lambda: f"current branch ends at {old_leaf[:8]}" in screen_text(app), WAIT, pilot
        )
        await pilot.press("l", "m")
        await pilot.press(*"continue here", "enter")

        async def continued() -> list:
            return [
                e
                for e in await agent.events(cid)
                if e["kind"] == "MessageEvent"
                and e["source"] == "user"
                and "continue here" in str(e.get("llm_message"))
            ]

        sent = await until(continued, "the message sent on the older branch")
        assert sent[0]["parent_id"] == old_leaf


async def test_s_asks_aside_answered_by_the_fake_llm_and_never_logged(agent, fake_llm):
    title = f"ask aside {uuid.uuid4().hex[:8]}"
    cid = await finished_run(agent, fake_llm, title)
    before = [e["id"] for e in await agent.events(cid)]
    app = make_app(agent.server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_title(app, pilot, title)
        rows = len(screen.window)
        await pilot.press("s")
        await answer_dialog(pilot, "what did you do")
        await wait_for(lambda: screen_ready(app, SideAnswerScreen), WAIT, pilot)
        panel = app.screen
        await wait_for(lambda: not panel.waiting, WAIT, pilot)
        assert "No answer" not in panel.text, panel.text
        assert panel.text.startswith("Q: what did you do\n\n") and len(panel.text) > 25
        await pilot.press("escape")
        await wait_for(lambda: app.screen is screen, WAIT, pilot)
        assert [e["id"] for e in await agent.events(cid)] == before  # nothing logged
        assert len(screen.window) == rows


async def test_M_turns_confirmation_on_then_the_next_action_waits(agent, fake_llm):
    script = fake_llm.add(two_commands("LOW", "LOW"))
    title = f"modes {script.rid}"
    cid = await agent.start(None, title=title)  # NeverConfirm
    await agent.send(cid, "Wait for the script.", run=False)  # idle, one event to show
    app = make_app(agent.server)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_by_title(app, pilot, title)
        assert "confirm on" not in screen_text(app)
        await pilot.press("M")
        await wait_for(lambda: screen_ready(app, PolicyDialog), WAIT, pilot)
        await pilot.press("down", "enter")  # confirmation on
        await wait_for(lambda: "confirm on" in screen_text(app), WAIT, pilot)
        info = (await agent.http.get(f"/api/conversations/{cid}")).json()
        assert info["confirmation_policy"]["kind"] == "AlwaysConfirm"
        await agent.send(cid, f"{script.tag} Please follow the script.")
        await status_in(agent, cid, {"waiting_for_confirmation"})
        await wait_for(lambda: screen.live.waiting_for_confirmation, WAIT, pilot)
        await wait_for(lambda: "waits for your approval" in screen_text(app), WAIT, pilot)
        assert "echo first-command" in screen_text(app)
        kinds = [e["kind"] for e in await agent.events(cid)]
        assert "ActionEvent" in kinds and "ObservationEvent" not in kinds  # it waits


async def test_the_runtime_of_a_local_agent_server_is_available_and_P_says_so(agent, fake_llm):
    """The real server names ``conversation_runtime_routes_v1`` and says a local runtime is
    ``available`` (reprovisioning answers the same): the header says nothing, P says why."""
    title = f"local run {uuid.uuid4().hex[:8]}"
    cid = await finished_run(agent, fake_llm, title)
    runtime = (await agent.http.get(f"/api/conversations/{cid}/runtime")).json()
    assert runtime == {"runtime_status": "available", "can_resume": True, "runtime_error": None}
    app = make_app(agent.server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_by_title(app, pilot, title)
        assert app.can("conversation_runtime_routes_v1")
        assert screen.conversation.runtime_status == "available"
        assert "runtime " not in screen_text(app).split("\n", 1)[1]  # below the title
        assert screen.why_not("reprovision", ()) == (
            "The conversation's runtime is available: nothing to provision."
        )
        fields = await screen.live.agent.reprovision()  # what the real server answers
        assert fields["runtime_status"] == "available"
