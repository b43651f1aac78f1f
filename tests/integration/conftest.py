"""Fixtures for the tests against a real ``openhands-agent-server``.

``agent_server`` is the running server the session's launcher started (``plugin.py``), or, when
this worker runs integration tests the launcher did not expect, one started here. ``fake_llm``
is the scripted LLM it talks to; ``agent`` starts scripted conversations and reads the server's
answers with plain httpx (set-up and cross-checks; what is under test goes through ohtui).

Every test module here is marked ``xdist_group("agent-server")``: with ``--dist loadgroup``
(pyproject) they all run on one worker, so one server serves them all.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.fake_llm import FakeLLM, Script
from tests.integration.fake_llm import long_run as long_run_steps
from tests.integration.followed_run import FollowedRun
from tests.integration.plugin import STATE_ENV, Launcher, read_state

STATE_TIMEOUT = 600.0  # a cold venv build plus the server's start; normally ~10 s


@dataclass(frozen=True)
class RunningAgentServer:
    base_url: str
    session_api_key: str
    version: str
    files: str
    conversations: str  # the server's conversation folders (what ``ohtui PATH`` reads)


@pytest.fixture(scope="session")
def agent_server(tmp_path_factory) -> Iterator[RunningAgentServer]:
    state_path = os.environ.get(STATE_ENV)
    own: Launcher | None = None
    state = read_state(Path(state_path), STATE_TIMEOUT) if state_path else {}
    if state.get("status") in (None, "not-started"):
        own = Launcher(tmp_path_factory.mktemp("agent-server-state") / "state.json")
        state = own.run()
    try:
        if state["status"] == "skipped":
            pytest.skip(f"agent-server integration tests SKIPPED: {state['reason']}")
        if state["status"] != "ready":
            pytest.fail(f"the real agent server is not available: {state.get('reason')}")
        yield RunningAgentServer(
            base_url=state["base_url"],
            session_api_key=state["session_api_key"],
            version=state["version"],
            files=state["files"],
            conversations=state["conversations"],
        )
    finally:
        if own is not None:
            own.finish()


@pytest.fixture(scope="session")
def fake_llm() -> Iterator[FakeLLM]:
    llm = FakeLLM().start()
    yield llm
    llm.stop()


def conversation_request(
    server: RunningAgentServer,
    llm: FakeLLM,
    cid: str,
    policy: str = "NeverConfirm",
    analyzer: str | None = None,
) -> dict[str, Any]:
    """The body of ``POST /api/conversations`` for an agent on the fake LLM."""
    body: dict[str, Any] = {
        "agent": {
            "kind": "Agent",
            "llm": llm.llm_settings(),
            "tools": [{"name": "terminal"}, {"name": "file_editor"}],
        },
        "workspace": {"working_dir": server.files},
        "conversation_id": cid,
        "confirmation_policy": {"kind": policy},
        "tags": {"suite": "ohtui-integration"},
    }
    if analyzer:
        body["security_analyzer"] = {"kind": analyzer}
    return body


class AgentHarness:
    """Starts scripted conversations on the real server and reads it back, over plain httpx."""

    def __init__(self, server: RunningAgentServer, llm: FakeLLM, http: httpx.AsyncClient):
        self.server = server
        self.llm = llm
        self.http = http

    async def start(
        self,
        script: Script | None,
        *,
        policy: str = "NeverConfirm",
        analyzer: str | None = None,
        message: str = "Please follow the script.",
        title: str | None = None,
    ) -> str:
        """Create a conversation and send its first (tagged) message; -> its id (hex)."""
        cid = uuid.uuid4().hex
        body = conversation_request(self.server, self.llm, cid, policy, analyzer)
        r = await self.http.post("/api/conversations", json=body, timeout=60)
        assert r.status_code in (200, 201), r.text
        if title:  # the server ignores a title at creation; set before the first message, it
            # also keeps the server from making one up with the LLM
            r = await self.http.patch(f"/api/conversations/{cid}", json={"title": title})
            assert r.status_code == 200, r.text
        if script is not None:
            await self.send(cid, f"{script.tag} {message}")
        return cid

    async def send(self, cid: str, text: str, run: bool = True) -> None:
        body = {"role": "user", "content": [{"type": "text", "text": text}], "run": run}
        r = await self.http.post(f"/api/conversations/{cid}/events", json=body)
        assert r.status_code == 200, r.text

    async def status(self, cid: str) -> str:
        r = await self.http.get(f"/api/conversations/{cid}")
        r.raise_for_status()
        return r.json()["execution_status"]

    async def events(self, cid: str, sort_order: str = "TIMESTAMP") -> list[dict[str, Any]]:
        """The whole stored log, through the server's own paging."""
        items: list[dict[str, Any]] = []
        page_id = None
        while True:
            params: dict[str, Any] = {"limit": 100, "sort_order": sort_order}
            if page_id:
                params["page_id"] = page_id
            r = await self.http.get(f"/api/conversations/{cid}/events/search", params=params)
            r.raise_for_status()
            data = r.json()
            items += data["items"]
            page_id = data.get("next_page_id")
            if not page_id:
                return items


@pytest.fixture
async def agent(agent_server, fake_llm) -> AsyncIterator[AgentHarness]:
    headers = {"X-Session-API-Key": agent_server.session_api_key}
    async with httpx.AsyncClient(base_url=agent_server.base_url, headers=headers, timeout=30) as h:
        yield AgentHarness(agent_server, fake_llm, h)


@pytest.fixture
async def client(agent_server):
    """ohtui's client of the real server, kind detected (``auto``)."""
    from tui.client import OpenHandsClient

    async with OpenHandsClient(
        agent_server.base_url, session_api_key=agent_server.session_api_key
    ) as c:
        yield c


LONG_BATCHES = 16  # 16 x 10 think calls: about 340 events


@pytest.fixture(scope="session")
def long_run(agent_server, fake_llm) -> Iterator[FollowedRun]:
    """The long conversation (over 300 events), started at its first use and followed live
    through ohtui's EventStream on a thread while the other tests go on (``followed_run``)."""
    script = fake_llm.add(long_run_steps(LONG_BATCHES))
    cid = uuid.uuid4().hex
    body = conversation_request(agent_server, fake_llm, cid)
    headers = {"X-Session-API-Key": agent_server.session_api_key}
    url = f"{agent_server.base_url}/api/conversations"
    r = httpx.post(url, json=body, headers=headers, timeout=60)
    assert r.status_code in (200, 201), r.text
    message = f"{script.tag} Run many small steps."
    run = FollowedRun(agent_server.base_url, agent_server.session_api_key, cid, message).start()
    yield run
    run.stop()


@pytest.fixture(scope="session", autouse=True)
def _long_run_starts_first(request) -> None:
    """Start the long run with the first integration test, so it runs while the others do;
    the tests that read it are sorted last (``pytest_collection_modifyitems``). A failure to
    start it is left to those tests to report."""
    try:
        request.getfixturevalue("long_run")
    except Exception:  # noqa: BLE001, S110 - pytest raises it again for each reader
        pass


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    mine = [i for i in items if here in Path(i.path).parents]
    if not mine:
        return
    late = [i for i in mine if "long_run" in getattr(i, "fixturenames", ())]
    # keep the others' order; the long run's readers after them (each group stays contiguous)
    first_at = items.index(mine[0])
    rest = [i for i in items if i not in mine]
    early = [i for i in mine if i not in late]
    items[:] = rest[:first_at] + early + late + rest[first_at:]
