"""The client against a bare agent server (the reference server in agent mode, real loopback):
the app's own calls — list, count, get, events both ways, by id — then the live half (the
event socket and every agent control with the user's key, or none on an open server), and
starting and renaming conversations from agent settings.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from tests.helpers.app_helpers import wait_for
from tui.client import (
    AgentServerClient,
    EventStream,
    InvalidParameter,
    OpenHandsClient,
    ServerKind,
    StreamEvent,
    StreamStatus,
    agent_endpoint,
    kinds,
)
from tui.models import SandboxStatus
from tui.server import RunningServer, Store, add_live_demo, generate_conversation, load_demo

KEY = "agent-client-key-93d1"
EVENTS = 230
SETTINGS = {"llm": {"model": "openai/fake-model", "api_key": "sk-agent-settings-SECRET"}}


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    kinds.forget()
    yield
    kinds.forget()


@pytest.fixture
def agent(make_server: Callable[..., RunningServer]) -> Iterator[tuple[RunningServer, dict]]:
    """``(server, names)``: the demo plus the live conversation and a generated 230-event one."""
    store = Store()
    names = load_demo(store)
    names["live"] = add_live_demo(store)
    names["generated"] = generate_conversation(store, EVENTS, seed=21)
    server = make_server(store, session_key=KEY, kind="agent")
    yield server, names
    server.stop()
    store.close()


def hex_of(conversation_id: str) -> str:
    return conversation_id.replace("-", "")


# --- what the list and the conversation screen call ------------------------------------------


async def test_list_count_get_as_app_conversations(agent: tuple[RunningServer, dict]) -> None:
    server, names = agent
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        first = await client.search_conversations(limit=4)
        assert client.kind is ServerKind.AGENT
        rest = await client.search_conversations(page_id=first.next_page_id, limit=100)
        listed = first.items + rest.items
        assert rest.next_page_id is None and len(listed) == await client.count_conversations()
        assert len({c.id for c in listed}) == len(listed) == 10
        stamps = [c.created_at for c in listed]
        assert stamps == sorted(stamps, reverse=True)  # newest first, as on an app server
        long_one = next(c for c in listed if hex_of(c.id) == names["long"])
        assert long_one.metrics is not None and long_one.metrics.accumulated_cost > 0
        assert long_one.llm_model and long_one.execution_status == "finished"
        assert long_one.sandbox_status is SandboxStatus.RUNNING
        assert long_one.conversation_url == f"{server.base_url}/api/conversations/{long_one.id}"
        assert long_one.session_api_key == KEY
        dumped = json.dumps(long_one.model_dump(mode="json", exclude={"session_api_key"}))
        assert "api_key" not in dumped and "secret_registry" not in dumped
        assert "agent" not in long_one.model_dump()  # nothing else of ConversationInfo kept
        got = await client.get_conversations([names["long"], "not-a-uuid", "0" * 32])
        assert got[0] is not None and got[0].id == long_one.id and got[1:] == [None, None]


async def test_title_filter_across_pages(agent: tuple[RunningServer, dict]) -> None:
    server, _ = agent
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        everything = [c async for c in client.iter_conversations()]
        wanted = [c.id for c in everything if "the" in (c.title or "").casefold()]
        assert 2 < len(wanted) < len(everything)
        paged = [c.id async for c in client.iter_conversations(title_contains="THE", limit=2)]
        assert paged == wanted
        assert await client.count_conversations(title_contains="THE") == len(wanted)
        none = await client.search_conversations(title_contains="no such title")
        assert none.items == [] and none.next_page_id is None


async def test_events_both_ways_by_kind_and_by_id(agent: tuple[RunningServer, dict]) -> None:
    server, names = agent
    cid = names["generated"]
    stored = [json.loads(row.json)["id"] for row in server.store.iter_events(cid)]
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        assert await client.count_events(cid) == EVENTS
        forward = [e.id async for e in client.iter_events(cid, limit=100)]
        backward = [
            e.id async for e in client.iter_events(cid, sort_order="TIMESTAMP_DESC", limit=100)
        ]
        assert len(forward) == len(set(forward)) == EVENTS and set(forward) == set(stored)
        assert backward == forward[::-1]
        messages = await client.count_events(cid, kind="MessageEvent")
        page = await client.search_events(cid, kind="MessageEvent", limit=100)
        assert 0 < messages == len(page.items) and {e.kind for e in page.items} == {"MessageEvent"}
        middle = (await client.search_events(cid, limit=100)).items[50]
        since = await client.count_events(cid, timestamp_gte=middle.timestamp)
        assert 0 < since < EVENTS
        got = await client.get_events(cid, [forward[3], "missing-id", forward[-1]])
        assert [e.id if e else None for e in got] == [forward[3], None, forward[-1]]


# --- the live half: socket and controls with the user's key ----------------------------------


async def _follow(stream: EventStream, seen: list[Any], states: list[str]) -> None:
    async with stream:
        async for item in stream:
            if isinstance(item, StreamStatus):
                states.append(item.state)
            elif isinstance(item, StreamEvent) and not item.transient:
                seen.append(item.event)


_until = partial(wait_for, timeout=10.0)


async def test_follow_and_control_with_the_users_key(agent: tuple[RunningServer, dict]) -> None:
    server, names = agent
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        (conversation,) = await client.get_conversations([names["live"]])
    assert conversation is not None
    endpoint = agent_endpoint(client.base_url, conversation)
    assert endpoint.ws_url.endswith(f"/sockets/events/{conversation.id}") and endpoint.key == KEY
    seen: list[Any] = []
    states: list[str] = []
    stream = EventStream(endpoint, backoff_base=0.05)
    follower = asyncio.create_task(_follow(stream, seen, states))
    await _until(lambda: "live" in states)
    async with AgentServerClient(endpoint) as control:
        assert await control.send_message("Say hello, please.") is True
        await _until(lambda: any(getattr(e, "source", "") == "user" for e in seen[-5:]))
        await asyncio.to_thread(server.live.step_sync, names["live"], 2)
        assert await control.pause() is True
        await asyncio.to_thread(server.live.step_sync, names["live"], 1)
        await _until(lambda: any(e.kind == "PauseEvent" for e in seen))
        assert await control.run() is True
        await asyncio.to_thread(server.live.run_until_idle_sync, names["live"])
    stored = {json.loads(row.json)["id"] for row in server.store.iter_events(names["live"])}
    await _until(lambda: stored <= {e.id for e in seen})
    await stream.close()
    await follower
    ids = [e.id for e in seen if e.kind != "ConversationStateUpdateEvent" or e.id in stored]
    assert len(ids) == len(set(ids)), "an event arrived twice"


async def test_approve_and_reject_with_the_users_key(agent: tuple[RunningServer, dict]) -> None:
    server, names = agent
    cid = names["confirm"]  # the demo leaves its last action waiting for approval
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        (conversation,) = await client.get_conversations([cid])
        assert conversation is not None
        assert conversation.execution_status == "waiting_for_confirmation"
        async with AgentServerClient.for_conversation(client.base_url, conversation) as control:
            assert await control.respond_to_confirmation(False, "Not this one.") is True
            rejection = json.loads(server.store.last_event_of(cid, "UserRejectObservation"))
            assert rejection["rejection_reason"] == "Not this one."
            (after,) = await client.get_conversations([cid])
            assert after is not None and after.execution_status == "idle"


# --- starting and renaming -------------------------------------------------------------------


async def test_start_rename_and_follow_on_an_open_server(
    make_server: Callable[..., RunningServer],
) -> None:
    server = make_server(kind="agent")  # an open agent server: no key anywhere
    async with OpenHandsClient(server.base_url, agent_settings=SETTINGS) as client:
        info = await client.detect()
        assert info.kind is ServerKind.AGENT and info.can("start_conversation")
        started = await client.start_agent_conversation(message="Hello there", title="First")
        assert started.title == "First" and started.session_api_key is None
        assert started.llm_model == "openai/fake-model"
        listed = (await client.search_conversations()).items
        assert [c.id for c in listed] == [started.id] and listed[0].title == "First"
        events = (await client.search_events(started.id)).items
        assert any(e.kind == "MessageEvent" and e.source == "user" for e in events)
        renamed = await client.rename_conversation(started.id, "Second")
        assert renamed.title == "Second" and renamed.id == started.id
        with pytest.raises(InvalidParameter):
            await client.rename_conversation(started.id, "x" * 201)
        endpoint = agent_endpoint(client.base_url, renamed)
    assert endpoint.key is None
    seen: list[Any] = []
    states: list[str] = []
    stream = EventStream(endpoint, backoff_base=0.05)  # no key: no auth frame
    follower = asyncio.create_task(_follow(stream, seen, states))
    await _until(lambda: "live" in states)
    async with AgentServerClient(endpoint) as control:  # no header
        assert await control.send_message("And again.") is True
    await asyncio.to_thread(server.live.run_until_idle_sync, hex_of(started.id))
    stored = {json.loads(r.json)["id"] for r in server.store.iter_events(hex_of(started.id))}
    await _until(lambda: stored <= {e.id for e in seen})
    assert any(e.kind == "MessageEvent" and e.source == "user" for e in seen)
    await stream.close()
    await follower


async def test_start_request_shapes_and_secrets(agent: tuple[RunningServer, dict]) -> None:
    server, _ = agent
    sdk_agent = {"kind": "Agent", "llm": {"model": "openai/other", "api_key": "sk-2"}}
    async with OpenHandsClient(server.base_url, session_api_key=KEY) as client:
        started = await client.start_agent_conversation(sdk_agent)
        assert started.llm_model == "openai/other" and started.title is None
        template = {
            "agent": sdk_agent,
            "workspace": {"working_dir": "/tmp/w"},
            "tags": {"team": "a"},
        }
        tagged = await client.start_agent_conversation(template, "go")
        assert tagged.tags == {"team": "a"}
        assert repr(SETTINGS["llm"]["api_key"]) not in repr(client)
        for bad in ({}, [], {"workspace": {"working_dir": "w"}}):
            with pytest.raises(InvalidParameter):
                await client.start_agent_conversation(bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidParameter, match="empty"):
            await client.start_agent_conversation(SETTINGS, "   ")
