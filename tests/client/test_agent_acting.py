"""The client's acting calls (issue 30) against the reference server in agent-server mode,
which answers as the real agent server 1.58.2 does (``tui/server/routes_acting.py``)."""

from __future__ import annotations

import json
import uuid

import pytest

from tui.client import AgentServerClient, InvalidParameter, NotFound, OpenHandsClient
from tui.server import Store, load_demo

KEY = "acting-client-key"


@pytest.fixture
def served(make_server):
    store = Store()
    names = load_demo(store)
    return make_server(store, session_key=KEY, kind="agent"), names


async def agent_of(server, cid: str) -> AgentServerClient:
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        (record,) = await client.get_conversations([cid])
    return AgentServerClient.for_conversation(server.base_url, record)


def logged(server, cid: str) -> list[dict]:
    return [json.loads(row.json) for row in server.store.iter_events(cid)]


async def test_fork_answers_the_new_record_with_the_branch_up_to_the_event(served):
    server, names = served
    cid = names["hello"]
    events = logged(server, cid)
    at = next(e for e in events if e["kind"] == "ActionEvent")
    async with await agent_of(server, cid) as agent:
        info = await agent.fork(at["id"], "a fork")
    new = uuid.UUID(info["id"]).hex
    assert info["title"] == "a fork"
    assert info["forked_from_conversation_id"].replace("-", "") == cid
    assert info["forked_from_event_id"] == at["id"] == info["leaf_event_id"]
    forked = logged(server, new)
    assert forked[-1]["id"] == at["id"]
    assert len(forked) < len(events)
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        (record,) = await client.get_conversations([new])
    assert record.forked_from_conversation_id.replace("-", "") == cid
    assert record.forked_from_event_id == at["id"]


async def test_an_unknown_event_is_not_found_in_the_servers_words(served):
    server, names = served
    async with await agent_of(server, names["hello"]) as agent:
        with pytest.raises(NotFound, match="Unknown from_event_id: nope"):
            await agent.fork("nope", "x")
        with pytest.raises(NotFound, match="Unknown event_id: nope"):
            await agent.navigate("nope")


async def test_navigate_moves_the_head(served):
    server, names = served
    cid = names["branches"]
    first = logged(server, cid)[2]["id"]
    async with await agent_of(server, cid) as agent:
        assert await agent.navigate(first) == first
    assert server.store.get_conversation(cid)["leaf_event_id"] == first


async def test_ask_agent_answers_and_logs_nothing(served):
    server, names = served
    cid = names["hello"]
    before = logged(server, cid)
    async with await agent_of(server, cid) as agent:
        answer = await agent.ask_agent("what now?")
    assert "what now?" in answer
    assert logged(server, cid) == before


async def test_policies_are_set_and_the_record_says_them(served):
    server, names = served
    cid = names["hello"]
    async with await agent_of(server, cid) as agent:
        assert await agent.set_confirmation_policy("ConfirmRisky")
        assert await agent.set_security_analyzer("PatternSecurityAnalyzer")
        with pytest.raises(InvalidParameter):
            await agent.set_confirmation_policy("Sometimes")
        with pytest.raises(InvalidParameter):
            await agent.set_security_analyzer("Bogus")
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        (record,) = await client.get_conversations([cid])
    assert record.confirmation_policy == "ConfirmRisky"
    assert record.security_analyzer == "PatternSecurityAnalyzer"
    async with await agent_of(server, cid) as agent:
        assert await agent.set_security_analyzer(None)
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        assert (await client.get_conversations([cid]))[0].security_analyzer is None


async def test_the_runtime_is_read_from_the_record_and_provisioned_again(served):
    server, names = served
    cid = names["hello"]
    info = server.store.get_conversation(cid)
    info["runtime_info"] = {
        "runtime_status": "error",
        "can_resume": True,
        "runtime_error": {"code": "boot_failed", "message": "no space left"},
    }
    server.store.put_conversation(info)
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        info = await client.detect()
        assert info.can("conversation_runtime_routes_v1")  # the server's own capability name
        (record,) = await client.get_conversations([cid])
    assert (record.runtime_status, record.can_resume) == ("error", True)
    assert record.runtime_error == "boot_failed: no space left"
    async with await agent_of(server, cid) as agent:
        fields = await agent.reprovision()
    assert fields == {"runtime_status": "available", "can_resume": True, "runtime_error": None}
