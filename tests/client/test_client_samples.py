"""Real response samples served through a MockTransport: every record and event parses, none raw."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.helpers.samples import SAMPLES
from tui.client import OpenHandsClient
from tui.models import (
    AppConversation,
    AppConversationStartTask,
    EventBase,
    RawEvent,
    SandboxInfo,
    SandboxSpecInfo,
    SandboxStatus,
    StartTaskStatus,
)

APP = SAMPLES / "constructed" / "app_server"
REST = SAMPLES / "agent-server-capture" / "rest"


def read(path) -> Any:
    assert path.is_file(), f"missing sample {path}"
    return json.loads(path.read_text())


def serving(body: Any) -> OpenHandsClient:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=body)

    return OpenHandsClient("http://samples.test", transport=httpx.MockTransport(handler), backoff=0)


def agent_server_search_bodies() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(REST.glob("*events_search*.json")):
        data = read(path)
        records = data if isinstance(data, list) else [data]
        for n, record in enumerate(records):
            if record.get("status") == 200 and isinstance(record.get("body"), dict):
                out.append((f"{path.name}#{n}", record["body"]))
    return out


AGENT_BODIES = agent_server_search_bodies()


def test_sample_files_present() -> None:
    assert len(AGENT_BODIES) >= 20, "agent-server capture search bodies are missing"
    for name in (
        "app_conversation_page.json",
        "app_conversation_batch_get.json",
        "sandbox_page.json",
        "sandbox_batch_get.json",
        "sandbox_spec_page.json",
        "start_task_page.json",
        "start_task_ready.json",
        "start_task_waiting.json",
        "events_search_offset0_limit5.json",
        "events_search_offset5_limit5.json",
        "shared_events_search_example.json",
    ):
        assert (APP / name).is_file(), f"missing sample {APP / name}"


def assert_all_typed(items: list[Any], originals: list[Any]) -> None:
    assert len(items) == len(originals) > 0
    raw = [(i.kind, i.error) for i in items if isinstance(i, RawEvent)]
    assert raw == []
    assert all(isinstance(i, EventBase) for i in items)
    assert [type(i).__name__ for i in items] == [o["kind"] for o in originals]
    assert [i.id for i in items] == [o["id"] for o in originals]


@pytest.mark.parametrize(
    "name",
    [
        "events_search_offset0_limit5.json",
        "events_search_offset5_limit5.json",
        "shared_events_search_example.json",
    ],
)
async def test_app_server_event_pages(name: str) -> None:
    body = read(APP / name)
    async with serving(body) as client:
        v1 = await client.search_events("697ecf519eef41b2bdca3fa62e1da900", limit=5)
        shared = await client.search_shared_events("697ecf519eef41b2bdca3fa62e1da900", limit=5)
        collected = (
            [e async for e in client.iter_events("697ecf519eef41b2bdca3fa62e1da900", limit=5)]
            if body.get("next_page_id") is None
            else None
        )
    for result in (v1, shared):
        assert_all_typed(result.items, body["items"])
        assert result.next_page_id == body.get("next_page_id")
    if collected is not None:
        assert_all_typed(collected, body["items"])


@pytest.mark.parametrize("name, body", AGENT_BODIES, ids=[n for n, _ in AGENT_BODIES])
async def test_agent_server_event_pages(name: str, body: dict) -> None:
    async with serving(body) as client:
        result = await client.search_events("697ecf51-9eef-41b2-bdca-3fa62e1da900")
    if body["items"]:
        assert_all_typed(result.items, body["items"])
    else:
        assert result.items == []
    assert result.next_page_id == body.get("next_page_id")


async def test_app_conversation_page_and_batch() -> None:
    page_body = read(APP / "app_conversation_page.json")
    async with serving(page_body) as client:
        page = await client.search_conversations()
    assert len(page.items) == len(page_body["items"])
    assert all(isinstance(c, AppConversation) for c in page.items)
    assert page.next_page_id == page_body["next_page_id"]
    first = page.items[0]
    assert first.id == page_body["items"][0]["id"]
    assert (
        first.metrics is not None and first.metrics.accumulated_token_usage.prompt_tokens == 183220
    )
    assert (
        "acp_server" in first.model_extra and "launched_agent_profile" in first.model_extra
    )  # kept
    assert first.session_api_key not in repr(first)

    batch_body = read(APP / "app_conversation_batch_get.json")
    async with serving(batch_body) as client:
        batch = await client.get_conversations(["697ecf519eef41b2bdca3fa62e1da900", "missing"])
    assert isinstance(batch[0], AppConversation) and batch[1] is None
    assert batch[0].sandbox_status == SandboxStatus.RUNNING


async def test_sandbox_page_and_batch() -> None:
    page_body = read(APP / "sandbox_page.json")
    async with serving(page_body) as client:
        page = await client.search_sandboxes()
    assert [b.status for b in page.items] == [SandboxStatus.RUNNING, SandboxStatus.PAUSED]
    assert page.next_page_id == "2"
    assert {u.name for u in page.items[0].exposed_urls} == {
        "AGENT_SERVER",
        "VSCODE",
        "WORKER_1",
        "WORKER_2",
    }

    batch_body = read(APP / "sandbox_batch_get.json")
    async with serving(batch_body) as client:
        batch = await client.get_sandboxes(["oh-agent-server-5Qm2wXyZ8aBcDeFgHiJkLm", "gone"])
    assert isinstance(batch[0], SandboxInfo) and batch[1] is None


async def test_sandbox_spec_page() -> None:
    body = read(APP / "sandbox_spec_page.json")
    async with serving(body) as client:
        page = await client.search_sandbox_specs()
        specs = [s async for s in client.iter_sandbox_specs()]
    assert all(isinstance(s, SandboxSpecInfo) for s in page.items) and len(specs) == len(
        body["items"]
    )
    assert page.items[0].working_dir == "/workspace/project"
    assert page.items[0].command == ["--port", "8000"]


@pytest.mark.parametrize("name", ["start_task_ready.json", "start_task_waiting.json"])
async def test_start_tasks(name: str) -> None:
    body = read(APP / name)
    async with serving([body, None]) as client:
        tasks = await client.get_start_tasks([body["id"], "unknown"])
    assert isinstance(tasks[0], AppConversationStartTask) and tasks[1] is None
    assert tasks[0].status == StartTaskStatus(body["status"])
    async with serving(body) as client:
        started = await client.start_conversation(body["request"])
    assert started.id == body["id"]


async def test_start_task_page_parses() -> None:
    # no client method lists start tasks; the page model still has to read the real shape
    from tui.models import AppConversationStartTaskPage

    body = read(APP / "start_task_page.json")
    page = AppConversationStartTaskPage.model_validate(body)
    assert page.items[0].status == StartTaskStatus.READY
