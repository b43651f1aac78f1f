"""Gaps in a followed run filled from the real agent server's own log, by identity.

A loopback proxy cuts the event socket several times while a paced run goes on: what the
agent logged meanwhile is read from ``/api/conversations/{id}/events/search`` (newest page
first, log order) down to an event already seen, never resumed from a timestamp. Every
stored event arrives once, in the log's order, and each reconnect says "catching up"."""

from __future__ import annotations

import asyncio
from collections import Counter
from urllib.parse import urlsplit

import pytest

from tests.helpers.tcp_proxy import TcpProxy
from tests.integration.fake_llm import slow_steps
from tests.integration.followed_run import endpoint
from tests.integration.waiting import status_in, until
from tui.client import EventStream, StreamEvent, StreamState, StreamStatus

pytestmark = pytest.mark.xdist_group("agent-server")

DROPS = 4


async def test_drops_mid_run_are_filled_from_the_log_by_identity(agent, fake_llm):
    script = fake_llm.add(slow_steps(10), delay=0.2)  # paced: events are logged between cuts
    cid = await agent.start(None)
    with TcpProxy(urlsplit(agent.server.base_url).port) as proxy:
        stream = EventStream(
            endpoint(proxy.base_url, agent.server.session_api_key, cid),
            backoff_base=0.05,
            backoff_max=0.2,
        )
        state = StreamState()
        states: list[str] = []
        firsts: list[str] = []

        async def consume() -> None:
            async with stream:
                async for item in stream:
                    state.apply(item)
                    if isinstance(item, StreamStatus):
                        states.append(item.state)
                    elif isinstance(item, StreamEvent) and not (item.transient or item.replaces):
                        firsts.append(item.id)

        task = asyncio.create_task(consume())

        async def is_live() -> bool:
            return states[-1:] == ["live"]

        await until(is_live, "the stream live")
        await agent.send(cid, f"{script.tag} Take your time.")
        for n in range(DROPS):

            async def served(n: int = n) -> bool:
                return script.served > 2 * n + 1

            await until(served, f"step {2 * n + 2}")
            lives = states.count("live")
            await asyncio.to_thread(proxy.drop_all)

            async def back(lives: int = lives) -> bool:
                return states.count("live") > lives

            await until(back, "live again")
        await status_in(agent, cid, {"finished"})
        stored = await agent.events(cid)
        stored_ids = [e["id"] for e in stored]

        async def all_arrived() -> bool:
            return {e.id for e in state.events} >= set(stored_ids)

        await until(all_arrived, "every stored event")
        await stream.close()
        await task
    assert Counter(firsts).most_common(1)[0][1] == 1, "an event came twice"
    assert set(firsts) == set(stored_ids)
    # the log's order, but for a state update broadcast before the event it is about
    updates = {e["id"] for e in stored if e["kind"] == "ConversationStateUpdateEvent"}
    got = [e.id for e in state.events if e.id not in updates]
    assert got == [i for i in stored_ids if i not in updates]
    assert states.count("catching up") >= DROPS and "offline" not in states
    assert stream.gaps.usable  # the log was read each time: no full replay was needed
