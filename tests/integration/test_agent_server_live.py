"""Live runs on the real agent server, through ohtui's ``EventStream`` and ``AgentServerClient``:
following a long run with no event lost or doubled, pause and run while the agent runs,
approve and reject (the agent receives the reason), sending messages over REST and the socket,
and the security analyzer's events, typed."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from tests.integration.fake_llm import slow_steps, two_commands
from tests.integration.followed_run import endpoint
from tests.integration.waiting import status_in, until, until_set
from tui.client import AgentServerClient, Conflict, StreamEvent, StreamStatus
from tui.models import SecurityAnalysisEvent
from tui.models import events as events_models
from tui.models.parse import RawEvent, parse_event

pytestmark = pytest.mark.xdist_group("agent-server")


def control(agent, cid: str) -> AgentServerClient:
    return AgentServerClient(endpoint(agent.server.base_url, agent.server.session_api_key, cid))


async def test_a_long_run_followed_live_loses_and_doubles_no_event(agent, long_run):
    await until_set(long_run.ended, "the long run to end on the stream")
    assert long_run.error is None, repr(long_run.error)
    assert long_run.final_status == "finished"
    assert "running" in long_run.execution_statuses
    stored = await agent.events(long_run.cid)
    assert len(stored) >= 300
    stored_ids = [e["id"] for e in stored]
    assert len(set(stored_ids)) == len(stored_ids)

    def persisted() -> list[StreamEvent]:
        return [i for i in long_run.items if not i.transient]

    async def all_arrived() -> bool:  # events logged after "finished" may still be on the way
        return {i.id for i in persisted()} >= set(stored_ids)

    await until(all_arrived, "every stored event on the stream")
    firsts = [i.id for i in persisted() if not i.replaces]
    assert Counter(firsts).most_common(1)[0][1] == 1, "an event came twice"
    assert set(firsts) == set(stored_ids), "the stream and the stored log disagree"
    # the log's order, except that a state update can be broadcast before the event it is
    # about is logged (1.57.0: last_user_message_id arrives before its MessageEvent)
    updates = {e["id"] for e in stored if e["kind"] == "ConversationStateUpdateEvent"}
    assert [i for i in firsts if i not in updates] == [i for i in stored_ids if i not in updates]
    replaced = [i.id for i in persisted() if i.replaces]
    assert all(firsts.index(r) >= 0 for r in replaced)
    untyped = [i.event for i in long_run.items if isinstance(i.event, RawEvent)]
    assert untyped == []
    live = [s for s in long_run.statuses if s.state == "live"]
    assert len(live) == 1, "the stream reconnected during the run"


async def test_pause_then_run_while_the_agent_runs(agent, fake_llm):
    script = fake_llm.add(slow_steps(12), delay=0.3)  # paced: the run is still going at pause
    cid = await agent.start(script)
    async with control(agent, cid) as ctl:

        async def two_steps_done() -> bool:
            return script.served >= 2

        await until(two_steps_done, "the agent's second step")
        with pytest.raises(Conflict):
            await ctl.run()  # already running: 409
        assert await ctl.pause() is True
        assert await status_in(agent, cid, {"paused", "finished"}) == "paused"
        served_at_pause = script.served
        script.hurry()
        assert await ctl.run() is True
        assert await status_in(agent, cid, {"finished", "error", "stuck"}) == "finished"

    events = await agent.events(cid)
    kinds = [e["kind"] for e in events]
    assert kinds.count("PauseEvent") == 1
    pause_at = kinds.index("PauseEvent")
    actions = [e for e in events if e["kind"] == "ActionEvent"]
    thoughts = [a["action"]["thought"] for a in actions if a["tool_name"] == "think"]
    assert thoughts == [f"slow step {i}" for i in range(12)], "a step was lost or repeated"
    assert actions[-1]["tool_name"] == "finish"
    before = [e for e in events[:pause_at] if e["kind"] == "ActionEvent"]
    # the step in flight when the pause came still completes (its action may land after)
    assert 1 <= len(before) <= served_at_pause < len(actions), "the pause did not land mid-run"


async def test_approve_one_action_and_reject_the_next_with_a_reason(agent, fake_llm):
    script = fake_llm.add(two_commands("LOW", "MEDIUM"))
    cid = await agent.start(script, policy="AlwaysConfirm")
    reason = "ohtui integration: not this one, please"
    async with control(agent, cid) as ctl:
        await status_in(agent, cid, {"waiting_for_confirmation"})
        assert await ctl.respond_to_confirmation(True) is True

        async def second_action_waits() -> bool:
            # the REST status can still say "waiting" for the first action a moment after
            # the approval (facts §10): wait for the second action itself
            events = await agent.events(cid)
            actions = [e for e in events if e["kind"] == "ActionEvent"]
            done = [e for e in events if e["kind"] == "ObservationEvent"]
            status = await agent.status(cid)
            return len(actions) == 2 and len(done) == 1 and status == "waiting_for_confirmation"

        await until(second_action_waits, "the second action to wait for confirmation")
        assert await ctl.respond_to_confirmation(False, reason) is True
        await status_in(agent, cid, {"idle", "running", "finished"})
        if await agent.status(cid) == "idle":
            assert await ctl.run() is True
        assert await status_in(agent, cid, {"finished", "error", "stuck"}) == "finished"

    events = await agent.events(cid)
    rejected = [e for e in events if e["kind"] == "UserRejectObservation"]
    assert len(rejected) == 1 and rejected[0]["rejection_reason"] == reason
    typed = parse_event(rejected[0])
    assert isinstance(typed, events_models.UserRejectObservation)
    assert typed.rejection_reason == reason
    observed = [e for e in events if e["kind"] == "ObservationEvent"]
    assert "first-command" in str(observed[0]["observation"])
    assert any(reason in text for text in script.tool_results()), "the LLM never saw the reason"


async def test_messages_over_rest_and_over_the_socket_are_answered(agent, fake_llm):
    cid = await agent.start(None)
    seen: list[StreamEvent] = []
    async with control(agent, cid) as ctl, ctl.event_stream() as stream:
        live = asyncio.Event()

        async def read() -> None:
            async for item in stream:
                if isinstance(item, StreamStatus):
                    if item.state == "live":
                        live.set()
                else:
                    seen.append(item)

        reader = asyncio.create_task(read())
        await asyncio.wait_for(live.wait(), 30)

        def replies() -> list[str]:
            return [
                i.event.llm_message.content[0].text
                for i in seen
                if isinstance(i.event, events_models.MessageEvent) and i.event.source == "agent"
            ]

        async def answered(n: int) -> bool:
            return len(replies()) >= n and await agent.status(cid) == "finished"

        assert await ctl.send_message("first, over REST") is True
        await until(lambda: answered(1), "the answer to the REST message")
        await stream.send("second, over the socket")
        await until(lambda: answered(2), "the answer to the socket message")
        await stream.close()
        await reader
    assert replies() == ["You said: first, over REST", "You said: second, over the socket"]
    stored = await agent.events(cid)
    users = [e for e in stored if e["kind"] == "MessageEvent" and e["source"] == "user"]
    assert [u["llm_message"]["content"][0]["text"] for u in users] == [
        "first, over REST",
        "second, over the socket",
    ]


async def test_security_analyzer_risks_arrive_as_typed_events(agent, fake_llm, client):
    script = fake_llm.add(two_commands("LOW", "HIGH"))
    cid = await agent.start(script, policy="ConfirmRisky", analyzer="LLMSecurityAnalyzer")
    async with control(agent, cid) as ctl:
        await status_in(agent, cid, {"waiting_for_confirmation", "finished"})
        events = await agent.events(cid)
        actions = [e for e in events if e["kind"] == "ActionEvent"]
        # ConfirmRisky: the LOW command ran unasked; the HIGH one waits
        assert [a["security_risk"] for a in actions] == ["LOW", "HIGH"]
        assert len([e for e in events if e["kind"] == "ObservationEvent"]) == 1
        assert await ctl.respond_to_confirmation(True) is True
        assert await status_in(agent, cid, {"finished", "error", "stuck"}) == "finished"

    events = await agent.events(cid)
    analyses = [e for e in events if e["kind"] == "SecurityAnalysisEvent"]
    actions = [e for e in events if e["kind"] == "ActionEvent"]
    assert [a["risks"] for a in analyses[:2]] == [
        {actions[0]["id"]: "LOW"},
        {actions[1]["id"]: "HIGH"},
    ]
    assert analyses[0]["analyzer"] == "LLMSecurityAnalyzer"
    assert analyses[0]["policy"] == "ConfirmRisky"

    # through ohtui: the kind filter finds them, typed, with their risks
    page = await client.search_events(cid, kind="SecurityAnalysisEvent")
    assert [e.id for e in page.items] == [a["id"] for a in analyses]
    assert all(isinstance(e, SecurityAnalysisEvent) for e in page.items), page.items
    assert [e.risks for e in page.items[:2]] == [a["risks"] for a in analyses[:2]]
