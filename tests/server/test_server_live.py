"""Reference server: live agent runs over the websocket event stream and the control routes.

Runs are stepped by hand (``agent_pace=None``, ``server.live.step_sync``) except where the
paced runner itself is under test; those use a tiny pace and wait for frames, never sleeps.
Frames are read with the ``websockets`` client, exactly as a client would see them.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.helpers.app_helpers import wait_for
from tui.models import RawEvent, parse_event
from tui.server import RunningServer, Store
from tui.server.demo import build_demo

CONV = "/api/v1/app-conversations"
TIMEOUT = 5.0


# -- helpers ----------------------------------------------------------------------------------


def record(server: RunningServer, cid: str) -> dict[str, Any]:
    return httpx.get(server.base_url + CONV, params={"ids": cid}, timeout=10).json()[0]


def rest_events(server: RunningServer, cid: str) -> list[dict[str, Any]]:
    items, page_id = [], None
    while True:
        params = {"limit": 100, **({"page_id": page_id} if page_id else {})}
        body = httpx.get(
            f"{server.base_url}/api/v1/conversation/{cid}/events/search", params=params, timeout=10
        ).json()
        items += body["items"]
        page_id = body["next_page_id"]
        if not page_id:
            return items


def app_call(server: RunningServer, method: str, path: str, **kwargs: Any) -> Any:
    """A blocking app-server request (the server runs in its own thread); the JSON body."""
    return httpx.request(method, server.base_url + path, timeout=10, **kwargs).json()


def sandbox_action(server: RunningServer, sandbox_id: str, action: str) -> Any:
    return app_call(server, "POST", f"/api/v1/sandboxes/{sandbox_id}/{action}")


def control(
    server: RunningServer, cid: str, action: str, key: str | None, **body: Any
) -> httpx.Response:
    headers = {"X-Session-API-Key": key} if key else {}
    return httpx.post(
        f"{server.base_url}/api/conversations/{cid}/{action}",
        json=body or None,
        headers=headers,
        timeout=10,
    )


async def open_ws(
    server: RunningServer,
    cid: str,
    key: str | None = None,
    *,
    how: str = "header",
    **params: Any,
) -> ClientConnection:
    query = {k: v for k, v in params.items() if v is not None}
    headers = {}
    if key is not None and how == "query":
        query["session_api_key"] = key
    elif key is not None and how == "header":
        headers["X-Session-API-Key"] = key
    url = f"{server.ws_url}/sockets/events/{cid}" + (f"?{urlencode(query)}" if query else "")
    # max_queue=None: frames a test leaves unread must not stall the closing handshake
    ws = await connect(
        url,
        additional_headers=headers,
        proxy=None,
        open_timeout=TIMEOUT,
        max_queue=None,
        close_timeout=2,
    )
    if key is not None and how == "frame":
        await ws.send(json.dumps({"type": "auth", "session_api_key": key}))
    return ws


async def recv(ws: ClientConnection, n: int = 1) -> list[dict[str, Any]]:
    return [json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT)) for _ in range(n)]


async def recv_until(
    ws: ClientConnection, pred: Callable[[dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    frames = []
    while True:
        (frame,) = await recv(ws)
        frames.append(frame)
        if pred(frame):
            return frames


async def close_of(ws: ClientConnection) -> tuple[int, str]:
    try:
        while True:
            await asyncio.wait_for(ws.recv(), TIMEOUT)
    except ConnectionClosed as exc:
        assert exc.rcvd is not None
        return exc.rcvd.code, exc.rcvd.reason


async def step(server: RunningServer, cid: str, steps: int = 1) -> list[dict[str, Any]]:
    return await asyncio.to_thread(server.live.step_sync, cid, steps)


async def run_to_end(server: RunningServer, cid: str) -> list[dict[str, Any]]:
    return await asyncio.to_thread(server.live.run_until_idle_sync, cid)


def is_status(value: str) -> Callable[[dict[str, Any]], bool]:
    return lambda f: f.get("key") == "execution_status" and f.get("value") == value


def persisted(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        f for f in frames if f["kind"] != "StreamingDeltaEvent" and f.get("key") != "full_state"
    ]


def has_nulls(value: Any) -> bool:
    """A null field of an event model (dict-typed values like ``hook_input`` may keep nulls)."""
    return isinstance(value, dict) and any(v is None for v in value.values())


@pytest.fixture
def live(live_server):
    """``(server, names, cid, key)`` for the live conversation, stepped by hand."""
    server, names = live_server()
    cid = names["live"]
    return server, names, cid, record(server, cid)["session_api_key"]


# -- conversation_url, auth, close codes ------------------------------------------------------


def test_conversation_url_and_key_only_while_running(live):
    server, names, cid, key = live
    conv = record(server, cid)
    assert conv["conversation_url"] == f"/api/conversations/{cid}"
    sandbox = httpx.get(
        server.base_url + "/api/v1/sandboxes", params={"id": conv["sandbox_id"]}
    ).json()[0]
    assert key and key == sandbox["session_api_key"] and conv["sandbox_status"] == "RUNNING"
    paused = record(server, names["branches"])
    assert paused["sandbox_status"] == "PAUSED"
    assert paused["conversation_url"] is None and paused["session_api_key"] is None


async def test_first_frame_auth_and_full_state_first(live):
    server, _names, cid, key = live
    ws = await open_ws(server, cid, key, how="frame")
    (first,) = await recv(ws)
    assert first["kind"] == "ConversationStateUpdateEvent" and first["key"] == "full_state"
    assert "parent_id" not in first and first["source"] == "environment"
    value = first["value"]
    assert value["id"].replace("-", "") == cid and len(value["id"]) == 36
    assert value["agent"]["llm"]["api_key"] == "**********"
    assert value["execution_status"] == "idle" and value["stats"] == {"usage_to_metrics": {}}
    assert {"workspace", "confirmation_policy", "leaf_event_id", "secret_registry"} <= set(value)
    assert not has_nulls(value) and key not in json.dumps(first)
    await ws.send(json.dumps({"type": "auth", "session_api_key": "ignored later"}))  # ignored
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(ws.recv(), 0.2)
    await ws.close()


@pytest.mark.parametrize("how", ["header", "query"])
async def test_header_and_query_auth_with_dashed_id(live, how):
    server, _names, cid, key = live
    dashed = f"{cid[:8]}-{cid[8:12]}-{cid[12:16]}-{cid[16:20]}-{cid[20:]}"
    ws = await open_ws(server, dashed, key, how=how)
    (first,) = await recv(ws)
    assert first["key"] == "full_state"
    await ws.close()


async def test_auth_failures_and_unknown_conversation(live_server):
    server, names = live_server(ws_auth_timeout=0.3)
    cid = names["live"]
    for how in ("query", "header"):
        with pytest.raises(InvalidStatus) as info:
            await open_ws(server, cid, "wrong-key", how=how)
        assert info.value.response.status_code == 403
    ws = await open_ws(server, cid, "wrong-key", how="frame")
    assert await close_of(ws) == (4001, "Authentication failed")
    ws = await open_ws(server, cid)
    await ws.send("not json")
    assert await close_of(ws) == (4001, "Authentication failed")
    ws = await open_ws(server, cid)  # says nothing: too late after ws_auth_timeout
    assert await close_of(ws) == (4001, "Authentication failed")
    ws = await open_ws(server, "0" * 32)
    assert await close_of(ws) == (4004, "Conversation not found")


async def test_global_session_key(live_server):
    server, names = live_server(session_key="global-key")
    cid = names["live"]
    ws = await open_ws(server, cid, "global-key", how="query")
    assert (await recv(ws))[0]["key"] == "full_state"
    await ws.close()
    ws = await open_ws(server, "0" * 32, "global-key")
    assert await close_of(ws) == (4004, "Conversation not found")
    with pytest.raises(InvalidStatus):
        await open_ws(server, "0" * 32, "wrong")
    assert control(server, cid, "pause", "global-key").json() == {"success": True}


async def test_too_many_subscribers(live_server):
    server, names = live_server(ws_max_subscribers=5)
    cid = names["live"]
    key = record(server, cid)["session_api_key"]
    sockets = [await open_ws(server, cid, key) for _ in range(5)]
    for ws in sockets:
        await recv(ws)
    extra = await open_ws(server, cid, key)
    assert await close_of(extra) == (1013, "Too many connections for this conversation")
    await sockets[0].close()
    for _ in range(50):  # the server notices the close on its own time
        again = await open_ws(server, cid, key)
        try:
            (first,) = await recv(again)
            break
        except ConnectionClosed:
            await asyncio.sleep(0.02)
    assert first["key"] == "full_state"
    for ws in [again, *sockets[1:]]:
        await ws.close()


async def test_default_subscriber_limit_is_50(live):
    server, _names, cid, key = live
    sockets = await asyncio.gather(*(open_ws(server, cid, key) for _ in range(50)))
    for ws in sockets:
        await recv(ws)
    extra = await open_ws(server, cid, key)
    assert (await close_of(extra))[0] == 1013
    await asyncio.gather(*(ws.close() for ws in sockets))


# -- replay -----------------------------------------------------------------------------------


async def test_resend_all_replays_the_log_in_order(live_server):
    server, names = live_server()
    cid = names["hello"]
    key = record(server, cid)["session_api_key"]
    stored = [json.loads(r.json) for r in server.store.iter_events(cid)]
    for params in ({"resend_mode": "all"}, {"resend_all": "true"}):
        ws = await open_ws(server, cid, key, **params)
        frames = await recv(ws, 1 + len(stored))
        assert frames[0]["key"] == "full_state"
        assert [f["id"] for f in frames[1:]] == [e["id"] for e in stored]
        for frame, event in zip(frames[1:], stored, strict=True):
            assert not has_nulls(frame) or frame["kind"] == "ConversationStateUpdateEvent"
            # stored as full dumps (nulls included), sent with nulls left out
            assert frame == parse_event(event).model_dump(mode="json", exclude_none=True)
            assert frame.get("parent_id") == event["parent_id"]  # hooks too, when replayed
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(ws.recv(), 0.1)
        await ws.close()


async def test_resend_since_timestamp(live_server):
    server, names = live_server()
    cid = names["long"]
    key = record(server, cid)["session_api_key"]
    stored = [json.loads(r.json) for r in server.store.iter_events(cid)]
    cut = stored[len(stored) - 40]["timestamp"]
    expected = [e["id"] for e in stored if e["timestamp"] >= cut]
    assert 40 <= len(expected) < len(stored)
    ws = await open_ws(server, cid, key, resend_mode="since", after_timestamp=cut)
    frames = await recv(ws, 1 + len(expected))
    assert frames[0]["key"] == "full_state" and [f["id"] for f in frames[1:]] == expected
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(ws.recv(), 0.1)
    await ws.close()


# -- a run, frame by frame ---------------------------------------------------------------------


async def test_live_run_frames_in_order_and_persisted(live):
    server, _names, cid, key = live
    before = server.store.count_events(cid)
    ws = await open_ws(server, cid, key)
    await recv(ws)  # full_state
    assert control(server, cid, "run", key).json() == {"success": True}
    started = await recv(ws)
    assert started[0]["key"] == "execution_status" and started[0]["value"] == "running"
    frames = await run_to_end(server, cid)
    received = await recv(ws, len(frames))
    assert [f["id"] for f in received] == [f["id"] for f in frames]

    kinds = [f["kind"] for f in received]
    assert {"ActionEvent", "ObservationEvent", "HookExecutionEvent", "AgentErrorEvent"} <= set(
        kinds
    )
    actions = {f["id"]: f for f in received if f["kind"] == "ActionEvent"}
    for obs in (f for f in received if f["kind"] == "ObservationEvent"):
        assert actions[obs["action_id"]]["tool_call_id"] == obs["tool_call_id"]
    hooks = [f for f in received if f["kind"] == "HookExecutionEvent"]
    assert hooks and all(
        "parent_id" not in h and h["hook_event_type"] == "PreToolUse" for h in hooks
    )
    error = next(f for f in received if f["kind"] == "AgentErrorEvent")
    assert error["classification"]["kind"] == "agent_action"
    assert (
        received[-1]["key"] == "full_state"
        and received[-1]["value"]["execution_status"] == "finished"
    )
    assert any(
        f["kind"] == "ActionEvent" and f.get("action", {}).get("kind") == "FinishAction"
        for f in received
    )
    for frame in received:
        assert not isinstance(parse_event(frame), RawEvent), frame

    # the persisted log is exactly the non-transient frames, in order, with parents
    live_frames = started + received
    rest = rest_events(server, cid)
    assert [e["id"] for e in rest[before:]] == [f["id"] for f in persisted(live_frames)]
    by_id = {e["id"]: e for e in rest}
    assert all(by_id[h["id"]]["parent_id"] for h in hooks)
    assert all(e["parent_id"] for e in rest[before:])

    # the app conversation follows: status and metrics from the last stats update
    conv = record(server, cid)
    last_stats = [f for f in received if f.get("key") == "stats"][-1]["value"]["usage_to_metrics"][
        "agent"
    ]
    assert conv["execution_status"] == "finished" and conv["metrics"] == last_stats
    assert 0 < conv["metrics"]["accumulated_cost"] < 5
    await ws.close()


async def test_deltas_are_transient_and_join_to_the_message(live):
    server, _names, cid, key = live
    ws = await open_ws(server, cid, key)
    await recv(ws)
    await ws.send(json.dumps({"role": "user", "content": [{"type": "text", "text": "Thanks!"}]}))
    opening = await recv(ws, 3)
    assert [f["kind"] for f in opening] == [
        "MessageEvent",
        "ConversationStateUpdateEvent",
        "ConversationStateUpdateEvent",
    ]
    assert opening[0]["source"] == "user" and opening[2]["value"] == "running"
    frames = await run_to_end(server, cid)
    assert await recv(ws, len(frames)) == frames
    deltas = [f for f in frames if f["kind"] == "StreamingDeltaEvent"]
    assert len(deltas) >= 3
    assert all("parent_id" not in d and d["source"] == "agent" for d in deltas)
    message = next(f for f in frames if f["kind"] == "MessageEvent")
    assert frames.index(message) > frames.index(deltas[-1])
    assert (
        "".join(d.get("content", "") for d in deltas)
        == message["llm_message"]["content"][0]["text"]
    )
    rest_ids = {e["id"] for e in rest_events(server, cid)}
    assert message["id"] in rest_ids and not rest_ids & {d["id"] for d in deltas}
    await ws.close()


async def test_reasoning_deltas_come_first(live):
    server, _names, cid, _key = live
    await asyncio.to_thread(server.live.send_message_sync, cid, "Fix the flaky test [flaky]")
    frames = await run_to_end(server, cid)
    deltas = [f for f in frames if f["kind"] == "StreamingDeltaEvent"]
    reasoning = [d for d in deltas if "reasoning_content" in d]
    assert reasoning and deltas.index(reasoning[-1]) < min(
        i for i, d in enumerate(deltas) if "content" in d
    )
    message = next(f for f in frames if f["kind"] == "MessageEvent" and f["source"] == "agent")
    assert (
        "".join(d["reasoning_content"] for d in reasoning)
        == message["llm_message"]["reasoning_content"]
    )
    assert any(f["kind"] == "LLMCompletionLogEvent" for f in frames)


async def test_invalid_client_frame_gets_a_server_error(live):
    server, _names, cid, key = live
    ws = await open_ws(server, cid, key)
    await recv(ws)
    await ws.send(json.dumps({"role": "nobody", "content": 5}))
    (error,) = await recv(ws)
    assert error["kind"] == "ServerErrorEvent" and error["source"] == "environment"
    assert (
        error["code"] == "ValidationError" and "2 validation errors for Message" in error["detail"]
    )
    assert "parent_id" not in error and error["id"] not in {
        e["id"] for e in rest_events(server, cid)
    }
    await ws.close()


# -- control: pause, interrupt, run, fail, confirmation ---------------------------------------


async def test_pause_run_interrupt_and_409(live):
    server, _names, cid, key = live
    ws = await open_ws(server, cid, key)
    await recv(ws)
    assert control(
        server,
        cid,
        "events",
        key,
        role="user",
        content=[{"type": "text", "text": "[hello] go"}],
        run=True,
    ).json() == {"success": True}
    await recv_until(ws, is_status("running"))
    first = await step(server, cid)  # the plan action goes out
    assert [f["kind"] for f in first] == ["ActionEvent"]
    await recv(ws, len(first))

    assert control(server, cid, "pause", key).json() == {"success": True}
    paused = await recv_until(ws, lambda f: f.get("key") == "full_state")
    assert [(f["kind"], f.get("value")) for f in paused[:2]] == [
        ("ConversationStateUpdateEvent", "paused"),
        ("PauseEvent", None),
    ]
    assert paused[1]["source"] == "user" and paused[-1]["value"]["execution_status"] == "paused"
    assert await step(server, cid) == []  # nothing runs while paused
    assert record(server, cid)["execution_status"] == "paused"

    assert control(server, cid, "run", key).json() == {"success": True}
    assert control(server, cid, "run", key).status_code == 409
    resumed = await step(server, cid)  # the same script goes on: the plan's observation
    assert resumed[0]["kind"] == "ObservationEvent" and resumed[0]["action_id"] == first[0]["id"]

    assert control(server, cid, "interrupt", key).json() == {"success": True}
    interrupted = await recv_until(ws, lambda f: f["kind"] == "InterruptEvent")
    assert interrupted[-2]["key"] == "execution_status" and interrupted[-2]["value"] == "paused"
    assert (await recv(ws))[0]["key"] == "full_state"
    assert server.live.status_sync(cid) == "paused"
    assert control(server, cid, "run", key).status_code == 200
    frames = await run_to_end(server, cid)
    assert frames[-1]["value"]["execution_status"] == "finished"
    await ws.close()


async def test_fail_on_demand_and_by_script(live):
    server, _names, cid, key = live
    assert control(server, cid, "run", key).status_code == 200
    await step(server, cid)
    await asyncio.to_thread(server.live.fail_sync, cid)
    failed = await step(server, cid)
    assert [
        f.get("value") if f["kind"] != "ConversationErrorEvent" else f["kind"] for f in failed[:2]
    ] == ["error", "ConversationErrorEvent"]
    error = failed[1]
    assert error["code"] == "LLMServiceUnavailableError" and error["parent_id"]
    assert error["classification"] == {
        "kind": "transient",
        "retryable": True,
        "user_action": "retry",
    }
    assert failed[-1]["key"] == "full_state" and record(server, cid)["execution_status"] == "error"

    ws = await open_ws(server, cid, key)
    await recv(ws)
    await ws.send(
        json.dumps({"role": "user", "content": [{"type": "text", "text": "[fail] again"}]})
    )
    await recv_until(ws, is_status("running"))
    frames = await run_to_end(server, cid)
    assert any(f["kind"] == "ConversationErrorEvent" for f in frames)
    assert server.live.status_sync(cid) == "error"
    await ws.close()


async def test_confirmation_reject_and_accept(live):
    server, _names, cid, key = live
    await asyncio.to_thread(server.live.send_message_sync, cid, "Clean up [confirm]")
    frames = await run_to_end(server, cid)
    risky = [f for f in frames if f["kind"] == "ActionEvent"][-1]
    assert risky["security_risk"] == "HIGH"
    assert frames[-1]["value"]["execution_status"] == "waiting_for_confirmation"
    assert frames[-1]["value"]["confirmation_policy"]["kind"] == "ConfirmRisky"
    ws = await open_ws(server, cid, key)
    await recv(ws)
    assert control(
        server, cid, "events/respond_to_confirmation", key, accept=False, reason="Too risky"
    ).json() == {"success": True}
    rejected = await recv(ws, 2)
    assert rejected[0]["value"] == "idle" and rejected[1]["kind"] == "UserRejectObservation"
    assert (
        rejected[1]["action_id"] == risky["id"] and rejected[1]["rejection_reason"] == "Too risky"
    )

    await asyncio.to_thread(server.live.send_message_sync, cid, "Clean up [confirm]")
    await run_to_end(server, cid)
    assert (
        control(server, cid, "events/respond_to_confirmation", key, accept=True).status_code == 200
    )
    frames = await run_to_end(server, cid)
    assert (
        frames[0]["kind"] == "ObservationEvent"
        and frames[-1]["value"]["execution_status"] == "finished"
    )
    await ws.close()


@pytest.mark.parametrize("accept", [True, False])
async def test_stored_pending_confirmation_can_be_answered(live_server, accept):
    server, names = live_server()
    cid = names["confirm"]  # the demo leaves its last action waiting for confirmation
    key = record(server, cid)["session_api_key"]
    pending = json.loads(server.store.last_event_of(cid, "ActionEvent"))
    assert record(server, cid)["execution_status"] == "waiting_for_confirmation"
    response = control(server, cid, "events/respond_to_confirmation", key, accept=accept)
    assert response.json() == {"success": True}
    if accept:
        frames = await run_to_end(server, cid)
        assert frames[0]["kind"] == "ObservationEvent" and frames[0]["action_id"] == pending["id"]
        assert frames[-1]["value"]["execution_status"] == "finished"
    else:
        rejection = json.loads(server.store.last_event_of(cid, "UserRejectObservation"))
        assert rejection["action_id"] == pending["id"]
        assert rejection["rejection_reason"] == "User rejected the action."
        assert record(server, cid)["execution_status"] == "idle"


async def test_control_routes_auth_and_errors(live):
    server, names, cid, key = live
    assert control(server, cid, "pause", None).status_code == 401
    wrong = control(server, cid, "pause", "nope")
    assert wrong.status_code == 401 and wrong.json() == {"detail": "Unauthorized"}
    missing = control(server, "0" * 32, "pause", None)
    assert missing.status_code == 404 and "Conversation not found" in missing.json()["detail"]
    assert control(server, cid, "events", key, content=[{"type": "nope"}]).status_code == 422
    # a conversation on a paused sandbox: its agent server is out of reach
    branches = names["branches"]
    sandbox_key = server.store.get_sandbox(server.store.get_conversation(branches)["sandbox_id"])[
        "session_api_key"
    ]
    assert control(server, branches, "run", sandbox_key).status_code == 503


# -- sandboxes --------------------------------------------------------------------------------


async def test_pausing_the_sandbox_closes_subscribers_and_freezes_the_run(live):
    server, _names, cid, key = live
    sandbox_id = record(server, cid)["sandbox_id"]
    ws = await open_ws(server, cid, key)
    await recv(ws)
    assert control(server, cid, "run", key).status_code == 200
    await step(server, cid)  # an action is out, its observation pending
    count = server.store.count_events(cid)
    assert sandbox_action(server, sandbox_id, "pause") == {"success": True}
    code, reason = await close_of(ws)
    assert code == 1001 and reason == "Sandbox paused"
    conv = record(server, cid)
    assert conv["conversation_url"] is None and conv["session_api_key"] is None
    assert conv["execution_status"] is None
    with pytest.raises(Exception, match="not running"):
        await step(server, cid)
    again = await open_ws(server, cid, key)
    assert await close_of(again) == (1013, "Sandbox is not running")
    assert control(server, cid, "pause", key).status_code == 503
    assert server.store.count_events(cid) == count

    assert sandbox_action(server, sandbox_id, "resume") == {"success": True}
    assert record(server, cid)["execution_status"] == "running"
    frames = await run_to_end(server, cid)  # the frozen run goes on where it stopped
    assert (
        frames[0]["kind"] == "ObservationEvent"
        and frames[-1]["value"]["execution_status"] == "finished"
    )


async def test_paced_run_pause_sandbox_and_resume(live_server):
    server, names = live_server(agent_pace=0.04)  # ~17 steps: the run outlasts the requests
    cid = names["live"]
    key = record(server, cid)["session_api_key"]
    sandbox_id = record(server, cid)["sandbox_id"]
    ws = await open_ws(server, cid, key)
    await recv(ws)
    assert control(server, cid, "run", key).status_code == 200
    seen = await recv_until(ws, lambda f: f["kind"] == "ObservationEvent")
    assert seen[0]["value"] == "running"

    # pause: takes effect between steps, then nothing more
    assert control(server, cid, "pause", key).status_code == 200
    frames = await recv_until(ws, lambda f: f["kind"] == "PauseEvent")
    assert frames[-2]["value"] == "paused"
    assert (await recv(ws))[0]["key"] == "full_state"
    count = server.store.count_events(cid)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(ws.recv(), 0.2)
    assert server.store.count_events(cid) == count

    # run again; pausing the sandbox stops the autonomous run, resuming continues it
    assert control(server, cid, "run", key).status_code == 200
    await recv_until(ws, lambda f: f["kind"] == "ActionEvent")
    sandbox_action(server, sandbox_id, "pause")
    assert (await close_of(ws))[0] == 1001
    frozen = server.store.count_events(cid)
    # several paces: nothing happens while the sandbox is paused (a look, not a wait: no
    # assertion depends on how long it lasts, only on nothing happening meanwhile)
    await asyncio.sleep(0.2)
    assert server.store.count_events(cid) == frozen
    sandbox_action(server, sandbox_id, "resume")
    ws = await open_ws(server, cid, key)
    await recv_until(
        ws, lambda f: f.get("key") == "full_state" and f["value"]["execution_status"] == "finished"
    )
    assert server.store.count_events(cid) > frozen
    await ws.close()


# -- the app server's view --------------------------------------------------------------------


async def test_app_send_message_reaches_subscribers_and_runs(live):
    server, _names, cid, key = live
    ws = await open_ws(server, cid, key)
    await recv(ws)
    body = {"role": "user", "content": [{"type": "text", "text": "Thanks!"}]}
    response = app_call(server, "POST", f"{CONV}/{cid}/send-message", json=body)
    assert response == {"success": True, "sandbox_status": "RUNNING", "message": None}
    frames = await recv(ws, 3)
    assert frames[0]["llm_message"]["content"][0]["text"] == "Thanks!"
    assert frames[2]["value"] == "running" and record(server, cid)["execution_status"] == "running"
    await ws.close()


async def test_start_with_initial_message_runs(live_server):
    server, _names = live_server(start_delay=0, sandbox_start_delay=0)
    task = app_call(
        server,
        "POST",
        CONV,
        json={
            "initial_message": {
                "role": "user",
                "content": [{"type": "text", "text": "Hi [chat]"}],
                "run": True,
            }
        },
    )
    ready = app_call(server, "GET", f"{CONV}/start-tasks", params={"ids": task["id"]})[0]
    cid = ready["app_conversation_id"]
    await wait_for(lambda: server.live.status_sync(cid) == "running", timeout=30)
    frames = await run_to_end(server, cid)
    assert any(f["kind"] == "MessageEvent" and f["source"] == "agent" for f in frames)
    assert record(server, cid)["execution_status"] == "finished"


async def test_deleting_the_conversation_closes_subscribers(live):
    server, _names, cid, key = live
    ws = await open_ws(server, cid, key)
    await recv(ws)
    assert app_call(server, "DELETE", f"{CONV}/{cid}") == {"success": True}
    assert (await close_of(ws))[0] == 1001


def test_runs_are_deterministic(live_server):
    def play() -> list[tuple[str, str]]:
        server, names = live_server()
        cid = names["live"]
        server.live.send_message_sync(cid, "Please go on")
        frames = server.live.run_until_idle_sync(cid)
        return [(f["kind"], f["id"]) for f in frames if f.get("key") != "full_state"]

    first, second = play(), play()
    assert first == second and len(first) > 20


# -- the demo ---------------------------------------------------------------------------------


async def test_autoplay_plays_one_story_per_conversation(monkeypatch):
    """The demo's live agent finishes a story, rests, and starts the next one as a fresh
    conversation: no endless log, realistic cost per run, a bounded list."""
    from tui.server import add_live_demo, load_demo, start_server
    from tui.server.live import autoplay
    from tui.server.live.autoplay import KEEP

    monkeypatch.setattr(autoplay, "REST_PACES", 3)  # the rest, shortened for the test

    store = Store()
    load_demo(store)
    cid = add_live_demo(store)
    demo = start_server(store, agent_pace=0.005, autoplay=[cid])
    try:
        key = record(demo, cid)["session_api_key"]
        ws = await open_ws(demo, cid, key, resend_mode="all")  # from the start, whatever the timing
        frames = await recv_until(ws, is_status("finished"))
        await ws.close()
        users = [f for f in frames if f["kind"] == "MessageEvent" and f["source"] == "user"]
        assert len(users) == 1  # one request, one story

        def live_ids() -> list[str]:
            rows, _ = store.search_conversations(limit=100)
            return [cid for _, cid, info in rows if info["title"].startswith("Live:")]

        def made_more_than_kept() -> bool:
            return cid not in live_ids() and len(live_ids()) == KEEP

        deadline = asyncio.get_running_loop().time() + 60
        while not made_more_than_kept():
            assert asyncio.get_running_loop().time() < deadline, live_ids()
            await asyncio.sleep(0.02)
        # the first story's log ended with it: nothing was appended after it finished
        stored = (
            [json.loads(r.json) for r in store.iter_events(cid)]
            if store.get_conversation(cid)
            else []
        )
        assert not stored  # deleted: older than the KEEP newest, and nobody followed it
        for live in live_ids():
            info = store.get_conversation(live)
            if info is None:  # deleted meanwhile: autoplay goes on
                continue
            events = [json.loads(r.json) for r in store.iter_events(live)]
            asked = [e for e in events if e["kind"] == "MessageEvent" and e["source"] == "user"]
            assert len(asked) == 1, info["title"]
            metrics = info.get("metrics") or {}
            usage = metrics.get("accumulated_token_usage") or {}
            assert metrics.get("accumulated_cost", 0) < 0.5, info["title"]  # cents, not dollars
            assert usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0) < 200_000
    finally:
        demo.stop()
        store.close()


async def test_autoplay_never_deletes_a_conversation_someone_follows(monkeypatch):
    from tui.server import add_live_demo, load_demo, start_server
    from tui.server.live import autoplay

    monkeypatch.setattr(autoplay, "REST_PACES", 1)
    monkeypatch.setattr(autoplay, "KEEP", 1)
    # the stories wait until the first conversation is followed: at this pace its story could
    # otherwise end, and it be deleted, before the test's socket is in
    followed = threading.Event()
    play_one = autoplay.play_one

    async def play_once_followed(conv, pace):
        await asyncio.to_thread(followed.wait, 60)
        await play_one(conv, pace)

    monkeypatch.setattr(autoplay, "play_one", play_once_followed)
    store = Store()
    load_demo(store)
    cid = add_live_demo(store)
    demo = start_server(store, agent_pace=0.005, autoplay=[cid])

    seen: set[str] = set()

    def stories() -> int:
        """Live conversations made so far, deleted ones included."""
        rows, _ = store.search_conversations(limit=100)
        seen.update(c for _, c, info in rows if info["title"].startswith("Live:"))
        return len(seen)

    async def until(predicate) -> None:
        deadline = asyncio.get_running_loop().time() + 60
        while not predicate():
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.02)

    try:
        key = record(demo, cid)["session_api_key"]
        ws = await open_ws(demo, cid, key)
        followed.set()
        await until(lambda: stories() >= 4)  # three newer ones made, older ones deleted ...
        assert store.get_conversation(cid) is not None  # ... but not the one followed
        assert len([c for c in seen if store.get_conversation(c)]) <= 3
        await ws.close()
        await until(lambda: store.get_conversation(cid) is None)  # unfollowed: it goes
    finally:
        followed.set()
        demo.stop()
        store.close()


def test_demo_metrics_are_realistic():
    demo = build_demo()
    for conv in demo.conversations:
        metrics = conv["metrics"]
        usage = metrics["accumulated_token_usage"]
        assert 0 < metrics["accumulated_cost"] < 20, conv["title"]
        assert usage["prompt_tokens"] + usage["completion_tokens"] < 10_000_000
        for event in demo.events[conv["id"]]:
            if event.get("key") == "stats":
                snapshot = event["value"]["usage_to_metrics"]["agent"]
                assert snapshot["accumulated_cost"] <= metrics["accumulated_cost"]
                assert (
                    snapshot["accumulated_token_usage"]["prompt_tokens"] <= usage["prompt_tokens"]
                )
    long = demo.conversations[[c["id"] for c in demo.conversations].index(demo.names["long"])]
    assert long["metrics"]["accumulated_cost"] > 1


def test_start_demo_server_has_a_followable_live_run():
    from tui.server.embedded import start_demo_server

    url, stop = start_demo_server()
    try:
        items = httpx.get(url + CONV + "/search").json()["items"]
        live = [c for c in items if c["title"].startswith("Live:")]
        assert len(live) == 2  # the long session and the first short story
        for conv in live:
            assert conv["sandbox_status"] == "RUNNING" and conv["session_api_key"]
            assert conv["conversation_url"] == f"/api/conversations/{conv['id']}"
    finally:
        stop()
