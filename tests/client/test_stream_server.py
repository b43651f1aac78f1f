"""The client's stream against the real reference server: drops mid-run lose nothing."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.helpers.app_helpers import wait_for
from tui.client import (
    AuthError,
    EventStream,
    NotFound,
    OpenHandsClient,
    StreamEvent,
    StreamStatus,
    agent_endpoint,
)
from tui.client.agent import AgentEndpoint
from tui.server.live import Close


def drop_all(server, cid: str, code: int = 1011) -> None:
    """Close every subscriber of ``cid`` from the server side (a crash or proxy drop)."""

    async def go() -> None:
        server.live.require(cid).close_all(Close(code, "test drop"))

    server.live.call(go)


async def test_run_with_five_drops_delivers_every_event_once(live_server):
    server, names = live_server()
    cid = names["live"]
    async with OpenHandsClient(server.base_url) as client:
        (conversation,) = await client.get_conversations([cid])
    endpoint = agent_endpoint(server.base_url, conversation)  # relative conversation_url
    seen: list[str] = []
    states: list[str] = []
    stream = EventStream(endpoint, backoff_base=0.05, backoff_max=0.2)

    async def consume() -> None:
        async with stream:
            async for item in stream:
                if isinstance(item, StreamStatus):
                    states.append(item.state)
                elif isinstance(item, StreamEvent) and not item.transient and not item.replaces:
                    seen.append(item.event.id)

    task = asyncio.create_task(consume())
    await wait_for(lambda: "live" in states, timeout=30)
    await asyncio.to_thread(server.live.send_message_sync, cid, "keep going")
    for n in range(5):
        await asyncio.to_thread(server.live.step_sync, cid, 2)
        await asyncio.to_thread(drop_all, server, cid)
        await wait_for(lambda n=n: states.count("reconnecting") > n, timeout=30)  # drop seen
        await asyncio.to_thread(server.live.step_sync, cid, 1)  # events sent while reconnecting
        await wait_for(lambda: states[-1] == "live", timeout=30)  # back before the next drop
    await asyncio.to_thread(server.live.run_until_idle_sync, cid)
    stored = [json.loads(row.json)["id"] for row in server.store.iter_events(cid)]
    await wait_for(lambda: set(stored) <= set(seen), timeout=30)
    await stream.close()
    await task
    assert states.count("reconnecting") >= 5 and states[-1] in (
        "live",
        "offline",
        "reconnecting",
        "failed",
    )
    assert len(seen) == len(set(seen)), "an event arrived twice"
    assert set(seen) == set(stored), "lost or extra events"


async def test_bad_key_and_unknown_conversation_are_clear_errors(live_server):
    server, names = live_server()
    cid = names["live"]
    async with OpenHandsClient(server.base_url) as client:
        (conversation,) = await client.get_conversations([cid])
    good = agent_endpoint(server.base_url, conversation)

    bad = AgentEndpoint(
        http_base=good.http_base,
        ws_url=good.ws_url,
        conversation_hex=good.conversation_hex,
        key="wrong-key",
    )
    stream = EventStream(bad, max_attempts=1)
    async with stream:
        items = [item async for item in stream]
    assert isinstance(stream.failure, AuthError)
    assert items[-1].state == "failed" and "wrong-key" not in repr(items)

    missing = good.ws_url.replace(good.conversation_hex, "0" * 32)
    gone = AgentEndpoint(
        http_base=good.http_base, ws_url=missing, conversation_hex="0" * 32, key=good.key
    )
    stream = EventStream(gone, max_attempts=1)
    async with stream:
        [item async for item in stream]
    assert isinstance(stream.failure, NotFound)


async def test_absolute_conversation_url_works_too(live_server):
    server, names = live_server()
    cid = names["live"]
    async with OpenHandsClient(server.base_url) as client:
        (conversation,) = await client.get_conversations([cid])
    absolute = conversation.model_copy(
        update={"conversation_url": server.base_url + conversation.conversation_url}
    )
    endpoint = agent_endpoint(None, absolute)
    assert endpoint.ws_url.startswith("ws://127.0.0.1:")
    stream = EventStream(endpoint)
    got = []
    async with stream:
        async for item in stream:
            if isinstance(item, StreamEvent):
                got.append(item.event)
                if len(got) >= 3:
                    break
    assert got[0].kind == "ConversationStateUpdateEvent" and got[0].key == "full_state"


@pytest.mark.parametrize("code", [1011, 1012, 1013])
async def test_server_side_close_codes_reconnect(live_server, code):
    server, names = live_server()
    cid = names["live"]
    async with OpenHandsClient(server.base_url) as client:
        (conversation,) = await client.get_conversations([cid])
    stream = EventStream(
        agent_endpoint(server.base_url, conversation), backoff_base=0.05, backoff_max=0.1
    )
    states = []
    async with stream:
        async for item in stream:
            if isinstance(item, StreamStatus):
                states.append(item.state)
                if item.state == "live" and states.count("live") == 1:
                    await asyncio.to_thread(drop_all, server, cid, code)
                if states.count("live") == 2:
                    break
    assert "reconnecting" in states and states.count("live") == 2
