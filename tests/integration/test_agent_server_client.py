"""ohtui's ``OpenHandsClient`` against the real agent server (CLIENT-CONTRACT.md): it finds out
what it talks to, lists and counts conversations, opens them, pages a 300-event log both ways
with every event exactly once, starts a conversation from agent settings, and refuses what a
bare agent server lacks before sending anything."""

from __future__ import annotations

import uuid

import pytest

from tests.integration.fake_llm import Step, terminal
from tests.integration.fake_llm import finish as finish_call
from tests.integration.waiting import status_in, until_set
from tui.client import AuthError, OpenHandsClient
from tui.models.parse import RawEvent

pytestmark = pytest.mark.xdist_group("agent-server")


def hex_id(value: str) -> str:
    return uuid.UUID(value).hex


async def test_detect_names_a_bare_agent_server_and_its_version(client, agent_server):
    from tui.client import ServerKind

    info = await client.detect()
    assert info.kind is ServerKind.AGENT
    assert client.kind is ServerKind.AGENT
    assert info.version == agent_server.version
    assert "server_info" in info.capabilities
    assert "sandboxes" not in info.capabilities
    assert agent_server.session_api_key not in repr(info) + repr(dict(info.details))


async def test_list_count_and_open_conversations(client, agent, fake_llm):
    titled = await agent.start(None, title="ohtui integration: listed")
    stored = (await agent.http.get("/api/conversations/search", params={"limit": 100})).json()
    count = (await agent.http.get("/api/conversations/count")).json()

    assert await client.count_conversations() == count
    listed = [c async for c in client.iter_conversations(limit=7)]
    assert len(listed) == count
    assert {hex_id(c.id) for c in listed} == {hex_id(c["id"]) for c in stored["items"]}
    mine = next(c for c in listed if hex_id(c.id) == titled)
    assert mine.title == "ohtui integration: listed"
    assert mine.llm_model == fake_llm.model
    assert mine.execution_status == "idle"
    assert str(mine.sandbox_status).lower().endswith("running")
    assert mine.conversation_url.endswith(f"/api/conversations/{mine.id}")
    assert agent.server.session_api_key not in repr(mine)

    page = await client.search_conversations(title_contains="integration: listed")
    assert [hex_id(c.id) for c in page.items] == [titled]

    unknown = uuid.uuid4().hex
    opened = await client.get_conversations([titled, unknown])
    assert opened[0] is not None and hex_id(opened[0].id) == titled
    assert opened[1] is None


async def test_a_long_log_pages_both_ways_with_every_event_once(client, agent, long_run):
    await until_set(long_run.ended, "the long run to end")
    cid = long_run.cid
    stored = [e["id"] for e in await agent.events(cid)]
    assert len(stored) >= 300

    assert await client.count_events(cid) == len(stored)
    forward = [e async for e in client.iter_events(cid, limit=47)]
    backward = [e async for e in client.iter_events(cid, limit=47, sort_order="TIMESTAMP_DESC")]
    assert [e.id for e in forward] == stored
    assert [e.id for e in backward] == stored[::-1]
    assert not [e for e in forward if isinstance(e, RawEvent)], "an event did not parse"

    first = await client.search_events(cid, limit=5)
    second = await client.search_events(cid, limit=5, page_id=first.next_page_id)
    assert [e.id for e in first.items + second.items] == stored[:10]

    actions = await client.search_events(cid, kind="ActionEvent", limit=100)
    assert actions.items and {type(e).__name__ for e in actions.items} == {"ActionEvent"}
    assert await client.count_events(cid, kind="ActionEvent") == len(
        [e async for e in client.iter_events(cid, kind="ActionEvent")]
    )

    got = await client.get_events(cid, [stored[0], str(uuid.uuid4()), stored[-1]])
    assert got[0].id == stored[0] and got[1] is None and got[2].id == stored[-1]

    [record] = await client.get_conversations([cid])
    assert record.execution_status == "finished"
    assert record.metrics is not None and record.metrics.accumulated_token_usage is not None
    assert record.metrics.accumulated_token_usage.prompt_tokens > 0


async def test_start_a_conversation_from_agent_settings(client, agent, fake_llm):
    script = fake_llm.add(
        [Step("Say hi.", [terminal("echo started-by-ohtui")]), Step("", [finish_call("Hi.")])]
    )
    settings = {
        "agent": agent_settings(fake_llm),
        "workspace": {"working_dir": agent.server.files},
    }
    record = await client.start_agent_conversation(
        settings, message=f"{script.tag} Say hi.", title="Started by ohtui"
    )
    assert record.title == "Started by ohtui"
    cid = hex_id(record.id)
    assert await status_in(agent, cid, {"finished", "error", "stuck"}) == "finished"
    [again] = await client.get_conversations([cid])
    assert again.title == "Started by ohtui"
    assert "started-by-ohtui" in " ".join(script.tool_results())


def agent_settings(fake_llm) -> dict:
    tools = [{"name": "terminal"}, {"name": "file_editor"}]
    return {"kind": "Agent", "llm": fake_llm.llm_settings(), "tools": tools}


async def test_what_a_bare_agent_server_lacks_is_refused_before_any_request(client):
    from tui.client import Unsupported

    await client.detect()
    with pytest.raises(Unsupported, match="agent server") as caught:
        await client.search_sandboxes()
    assert "sandbox" in str(caught.value)


async def test_a_wrong_key_is_an_auth_error_not_unreachable(agent_server):
    async with OpenHandsClient(agent_server.base_url, session_api_key="wrong-key") as c:
        with pytest.raises(AuthError):
            await c.count_conversations()
