"""The harness itself, checked against the real agent server with plain httpx: the server is
who it says it is, the scripted fake LLM drives a real run through every common tool, and the
key is required. If these fail, the client tests' failures say nothing about ohtui."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.integration.fake_llm import tour
from tests.integration.waiting import status_in

pytestmark = pytest.mark.xdist_group("agent-server")


async def test_server_info_names_the_installed_version(agent):
    r = await agent.http.get("/server_info")
    assert r.status_code == 200
    assert r.json()["version"] == agent.server.version


async def test_rest_refuses_a_request_without_the_key(agent_server):
    async with httpx.AsyncClient(base_url=agent_server.base_url) as anonymous:
        r = await anonymous.get("/api/conversations/search")
    assert r.status_code == 401


async def test_a_scripted_tour_runs_every_tool_and_finishes(agent, fake_llm):
    script = fake_llm.add([])
    script.steps = tour(agent.server.files, script.rid)
    cid = await agent.start(script)
    assert await status_in(agent, cid, {"finished", "error", "stuck"}) == "finished"

    events = await agent.events(cid)
    kinds = Counter(e["kind"] for e in events)
    tools = [e["tool_name"] for e in events if e["kind"] == "ActionEvent"]
    assert tools == ["terminal", "file_editor", "file_editor", "think", "terminal", "finish"]
    assert kinds["ObservationEvent"] == 6
    assert script.served == 6
    outputs = " ".join(script.tool_results())
    assert "tour-hello" in outputs and "hello, world" in outputs
    edited = Path(agent.server.files, f"tour-{script.rid}", "hello.py").read_text()
    assert edited == "print('hello, world')\n"
