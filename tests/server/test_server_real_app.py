"""The reference server behaving like the real app server (openhands-ai 1.11.0, facts §10),
behind options: a synchronous sandbox start, every start-task status, an ignored title,
transient events in the stored history, 500 then a closed connection, sandboxes changed
elsewhere."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx
import pytest
import websockets

from tests.helpers.app_helpers import poll
from tui.models import AppConversationStartTask, SandboxInfo
from tui.server import Store, add_live_demo, load_demo
from tui.server.real_app_server import REAL_START_STATUSES, real_app_server_options
from tui.server.start_tasks import real_start_phases

CONV = "/api/v1/app-conversations"
SANDBOXES = "/api/v1/sandboxes"


class FakeClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


until = partial(poll, timeout=10.0, every=0.005)  # beside the server thread


def in_thread(call: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = call()
        except Exception as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def demo_store() -> tuple[Store, dict[str, str]]:
    store = Store()
    names = load_demo(store)
    return store, names


# -- POST /api/v1/sandboxes answers once RUNNING ----------------------------------------------


def test_sandbox_start_answers_only_once_running_and_a_second_post_starts_another(make_server):
    clock = FakeClock()
    store, _ = demo_store()
    server = make_server(store, clock=clock, sync_sandbox_start=True, sandbox_start_delay=27.0)
    before = {s["id"] for s in store.search_sandboxes()[0]}

    def starting() -> list[dict[str, Any]]:
        return [
            s
            for s in store.search_sandboxes()[0]
            if s["id"] not in before and s["status"] == "STARTING"
        ]

    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        first, first_out = in_thread(lambda: http.post(SANDBOXES))
        until(lambda: len(starting()) == 1)
        # listed meanwhile, as STARTING with no key and no URLs
        listed = {s["id"]: s for s in http.get(f"{SANDBOXES}/search").json()["items"]}
        pending = listed[starting()[0]["id"]]
        assert pending["status"] == "STARTING" and pending["session_api_key"] is None
        assert first.is_alive()  # no answer yet
        # a client that gave up and asked again starts a second sandbox (as the real one)
        second, second_out = in_thread(lambda: http.post(SANDBOXES))
        until(lambda: len(starting()) == 2)
        clock.now += 27.0
        first.join(10)
        second.join(10)
    answers = [first_out["value"], second_out["value"]]
    for answer in answers:
        assert answer.status_code == 200
        sandbox = SandboxInfo.model_validate(answer.json())
        assert sandbox.status == "RUNNING" and sandbox.session_api_key
        assert sandbox.exposed_urls
    assert answers[0].json()["id"] != answers[1].json()["id"]


def test_sandbox_start_is_immediate_by_default(make_server):
    store, _ = demo_store()
    server = make_server(store, clock=FakeClock())
    answer = httpx.post(server.base_url + SANDBOXES).json()
    assert answer["status"] == "STARTING"


def test_sandbox_deleted_while_starting_ends_the_wait(make_server):
    clock = FakeClock()
    store, _ = demo_store()
    server = make_server(store, clock=clock, sync_sandbox_start=True, sandbox_start_delay=27.0)
    before = {s["id"] for s in store.search_sandboxes()[0]}
    thread, out = in_thread(lambda: httpx.post(server.base_url + SANDBOXES, timeout=30))
    new = until(lambda: [s for s in store.search_sandboxes()[0] if s["id"] not in before])
    server.lifecycle.delete_sandbox(new[0]["id"])
    thread.join(10)
    assert out["value"].status_code == 200  # answers (the sandbox as it last was)


# -- start tasks: every real status, errors, the ignored title --------------------------------


def start_task(http: httpx.Client, **body: Any) -> dict[str, Any]:
    task = http.post(CONV, json=body).json()
    AppConversationStartTask.model_validate(task)
    return task


def task_of(http: httpx.Client, task_id: str) -> dict[str, Any]:
    return http.get(f"{CONV}/start-tasks", params={"ids": [task_id]}).json()[0]


def test_start_task_goes_through_every_real_status(make_server):
    clock = FakeClock()
    store, _ = demo_store()
    phases = [(status, 1.0) for status in REAL_START_STATUSES]
    server = make_server(store, clock=clock, start_phases=phases, ignore_start_title=True)
    with httpx.Client(base_url=server.base_url) as http:
        task = start_task(
            http,
            title="Typed in the dialog",
            initial_message={"content": [{"type": "text", "text": "Hello"}], "run": False},
        )
        seen = [task["status"]]
        for _ in range(len(REAL_START_STATUSES)):
            clock.now += 1.0
            current = task_of(http, task["id"])
            AppConversationStartTask.model_validate(current)
            seen.append(current["status"])
            if current["status"] == "WAITING_FOR_SANDBOX":
                assert current["sandbox_id"] is None  # named once it is up
            if current["status"] == "PREPARING_REPOSITORY":
                sandbox = store.get_sandbox(current["sandbox_id"])
                assert sandbox["status"] == "RUNNING"
        assert seen == [*REAL_START_STATUSES, "READY"]
        ready = task_of(http, task["id"])
        cid = ready["app_conversation_id"]
        conversation = http.get(CONV, params={"ids": [cid]}).json()[0]
        # the title sent at creation is ignored, as on the real server ...
        assert conversation["title"] == f"Conversation {cid[:5]}"
        # ... and a PATCH sets it
        patched = http.patch(f"{CONV}/{cid}", json={"title": "Typed in the dialog"}).json()
        assert patched["title"] == "Typed in the dialog"
        assert http.get(CONV, params={"ids": [cid]}).json()[0]["title"] == "Typed in the dialog"


def test_statuses_are_skipped_over_when_polled_late(make_server):
    clock = FakeClock()
    store, _ = demo_store()
    server = make_server(store, clock=clock, start_phases=real_start_phases(6.0))
    with httpx.Client(base_url=server.base_url) as http:
        task = start_task(http)
        clock.now += 100
        ready = task_of(http, task["id"])
        assert ready["status"] == "READY" and ready["app_conversation_id"]
        assert store.get_sandbox(ready["sandbox_id"])["status"] == "RUNNING"


def test_start_task_error_carries_the_servers_detail(make_server):
    clock = FakeClock()
    store, _ = demo_store()
    server = make_server(
        store,
        clock=clock,
        start_phases=real_start_phases(3.0),
        start_failure=("RUNNING_SETUP_SCRIPT", "Setup script exited with code 2"),
    )
    with httpx.Client(base_url=server.base_url) as http:
        task = start_task(http)
        clock.now += 100
        failed = task_of(http, task["id"])
    assert failed["status"] == "ERROR"
    assert "Setup script exited with code 2" in failed["detail"]
    assert failed["app_conversation_id"] is None


def test_fail_next_start_hook(make_server):
    clock = FakeClock()
    store, _ = demo_store()
    server = make_server(store, clock=clock, start_delay=3.0)
    server.lifecycle.tasks.fail_next("WAITING_FOR_SANDBOX", "No sandbox capacity")
    with pytest.raises(ValueError, match="not on this server's start path"):
        server.lifecycle.tasks.fail_next("SETTING_UP_SKILLS", "x")
    with httpx.Client(base_url=server.base_url) as http:
        failing, working = start_task(http), start_task(http)
        clock.now += 10
        assert task_of(http, failing["id"])["status"] == "ERROR"
        assert "No sandbox capacity" in task_of(http, failing["id"])["detail"]
        assert task_of(http, working["id"])["status"] == "READY"


def test_bad_start_phases_are_refused(make_server):
    with pytest.raises(ValueError, match="WORKING"):
        make_server(start_phases=[("WAITING_FOR_SANDBOX", 1.0)])
    with pytest.raises(ValueError, match="WAITING_FOR_SANDBOX"):
        make_server(start_phases=[("WORKING", 1.0)])
    with pytest.raises(ValueError, match="READY"):
        make_server(start_phases=[("WORKING", 1.0), ("READY", 1.0)])


def test_the_preset_behaves_like_the_real_server(make_server):
    store, _ = demo_store()
    server = make_server(store, **real_app_server_options(sandbox_start=0.05, start=0.05))
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        assert http.post(SANDBOXES).json()["status"] == "RUNNING"
        task = start_task(http, title="ignored")
        ready = until(
            lambda: task_of(http, task["id"])["status"] == "READY" and task_of(http, task["id"])
        )
        cid = ready["app_conversation_id"]
        assert http.get(CONV, params={"ids": [cid]}).json()[0]["title"].startswith("Conversation ")


# -- the stored history holds deltas and full_state updates -----------------------------------


def history(server, cid: str) -> list[dict[str, Any]]:
    items, page_id = [], None
    while True:
        params = {"limit": 100, **({"page_id": page_id} if page_id else {})}
        body = httpx.get(
            f"{server.base_url}/api/v1/conversation/{cid}/events/search", params=params
        ).json()
        items += body["items"]
        if not (page_id := body["next_page_id"]):
            return items


async def test_live_runs_store_deltas_and_full_state(live_server):
    server, names = live_server(store_transient_events=True)
    cid = names["live"]
    await asyncio.to_thread(server.live.send_message_sync, cid, "Please document the CLI [docs]")
    await asyncio.to_thread(server.live.run_until_idle_sync, cid)
    stored = await asyncio.to_thread(history, server, cid)
    kinds = [e["kind"] for e in stored]
    deltas = [e for e in stored if e["kind"] == "StreamingDeltaEvent"]
    full = [e for e in stored if e.get("key") == "full_state"]
    assert deltas and all(e["parent_id"] is None for e in deltas)
    assert full and all(e["parent_id"] is None for e in full)
    assert full[-1]["value"]["execution_status"] in ("finished", "idle")
    # sorted by the timestamp string, as the real server sorts
    stamps = [e["timestamp"] for e in stored]
    assert stamps == sorted(stamps)
    # some state updates are stamped before the event they hang under
    by_id = {e["id"]: e for e in stored}
    assert any(
        e["kind"] == "ConversationStateUpdateEvent"
        and e["parent_id"] in by_id
        and e["timestamp"] < by_id[e["parent_id"]]["timestamp"]
        for e in stored
    )
    # a count agrees with the search
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        count = (await http.get(f"/api/v1/conversation/{cid}/events/count")).json()
    assert count == len(kinds)

    # pausing twice gives two identical snapshots in a row (what a client must fold)
    key = server.store.get_sandbox(server.store.get_conversation(cid)["sandbox_id"])[
        "session_api_key"
    ]
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        for _ in range(2):
            paused = await http.post(
                f"/api/conversations/{cid}/pause", headers={"x-session-api-key": key}
            )
            paused.raise_for_status()
    after = await asyncio.to_thread(history, server, cid)
    last_two = [e for e in after if e.get("key") == "full_state"][-2:]
    assert last_two[0]["value"] == last_two[1]["value"]
    assert last_two[0]["id"] != last_two[1]["id"]

    # the agent server's websocket replay still leaves them out
    url = f"{server.ws_url}/sockets/events/{cid}?resend_mode=all&session_api_key={key}"
    async with websockets.connect(url) as ws:
        first = json.loads(await ws.recv())
        assert first.get("key") == "full_state"
        replayed = []
        persisted = [
            e for e in after if e["kind"] != "StreamingDeltaEvent" and e.get("key") != "full_state"
        ]
        while len(replayed) < len(persisted):
            replayed.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
    assert {e["id"] for e in replayed} == {e["id"] for e in persisted}


async def test_without_the_option_nothing_transient_is_stored(live_server):
    server, names = live_server()
    cid = names["live"]
    await asyncio.to_thread(server.live.send_message_sync, cid, "Please document the CLI [docs]")
    frames = await asyncio.to_thread(server.live.run_until_idle_sync, cid)
    assert any(f["kind"] == "StreamingDeltaEvent" for f in frames)
    stored = await asyncio.to_thread(history, server, cid)
    assert not [
        e for e in stored if e["kind"] == "StreamingDeltaEvent" or e.get("key") == "full_state"
    ]


def test_a_new_live_conversation_never_hangs_under_a_stored_delta(make_server):
    store, _ = demo_store()
    cid = add_live_demo(store)
    server = make_server(store, store_transient_events=True)
    server.live.run_until_idle_sync(cid)
    assert store.head_event_id(cid) is not None
    head = json.loads(store.get_events(cid, [store.head_event_id(cid)])[0])
    assert head["kind"] != "StreamingDeltaEvent"


# -- 500 then a closed connection -------------------------------------------------------------


def test_500_then_close_fails_the_next_request_on_that_connection(make_server):
    store, _ = demo_store()
    server = make_server(store)
    server.app.state.faults.add("status_then_close", f"{SANDBOXES}/search")
    with httpx.Client(base_url=server.base_url, timeout=5) as http:
        first = http.get(f"{SANDBOXES}/search")
        assert first.status_code == 500
        assert first.headers["content-type"].startswith("text/plain")
        assert first.text == "Internal Server Error"
        assert "close" not in first.headers.get("connection", "").lower()  # looks reusable
        with pytest.raises(httpx.TransportError):  # the pooled connection is gone
            http.get(f"{SANDBOXES}/search")
        assert http.get(f"{SANDBOXES}/search").status_code == 200  # a fresh one works
    assert server.app.state.faults.hits["closed_connection"] == 1


def test_500_then_close_on_a_post(make_server):
    store, _ = demo_store()
    server = make_server(store)
    sandbox = store.search_sandboxes()[0][0]["id"]
    server.app.state.faults.add("status_then_close", f"{SANDBOXES}/{sandbox}/pause")
    with httpx.Client(base_url=server.base_url, timeout=5) as http:
        assert http.post(f"{SANDBOXES}/{sandbox}/pause").status_code == 500
        with pytest.raises(httpx.TransportError):
            http.post(f"{SANDBOXES}/{sandbox}/resume")
    assert store.get_sandbox(sandbox)["status"] != "PAUSED"  # neither request did anything


# -- sandboxes changed elsewhere --------------------------------------------------------------


async def test_sandbox_paused_elsewhere_shows_at_once_and_drops_followers(live_server):
    server, names = live_server()
    cid = names["live"]
    info = server.store.get_conversation(cid)
    key = server.store.get_sandbox(info["sandbox_id"])["session_api_key"]
    url = f"{server.ws_url}/sockets/events/{cid}?session_api_key={key}"
    async with websockets.connect(url) as ws:
        await ws.recv()  # full_state: subscribed
        await asyncio.to_thread(server.lifecycle.pause_sandbox, info["sandbox_id"])
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd.code == 1001
    async with httpx.AsyncClient(base_url=server.base_url) as http:

        async def record() -> dict[str, Any]:
            return (await http.get(CONV, params={"ids": [cid]})).json()[0]

        paused = await record()
        assert paused["sandbox_status"] == "PAUSED" and paused["conversation_url"] is None
        await asyncio.to_thread(server.lifecycle.resume_sandbox, info["sandbox_id"])
        resumed = await record()
        assert resumed["sandbox_status"] == "RUNNING" and resumed["session_api_key"] == key
        await asyncio.to_thread(server.lifecycle.delete_sandbox, info["sandbox_id"])
        assert (await record())["sandbox_status"] == "MISSING"
