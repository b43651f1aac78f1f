"""Agent-server routes: the live event websocket and the run-control REST calls (facts §5, §6).

In the real deployment these live on each sandbox's agent server, reached through
``AppConversation.conversation_url`` (``/api/conversations/<hex>``, relative: the client
resolves it against the app server, as in Docker proxy mode) with the sandbox's
``session_api_key``. Here they share the app: the websocket is
``/sockets/events/{conversation_id}``, the control calls are under
``/api/conversations/{conversation_id}``.

Auth (both): the conversation's sandbox key or the app's global ``session_key``; when
neither exists everything is open. REST takes ``X-Session-API-Key`` (401
``{"detail": "Unauthorized"}``). The websocket takes ``?session_api_key=`` or the header
(a wrong one rejects the handshake: HTTP 403), else a first text frame
``{"type": "auth", "session_api_key": …}`` within ``ws_auth_timeout`` seconds (bad, late
or malformed: close 4001 "Authentication failed").

Websocket close codes: 4004 unknown conversation, 1013 sandbox not running or more than
``ws_max_subscribers`` subscribers, 1001 when the sandbox is paused or deleted (or the
conversation deleted). Replay: ``resend_mode=all`` (or the deprecated ``resend_all=true``)
sends the whole log, ``resend_mode=since&after_timestamp=T`` the events with timestamp ≥ T
(string comparison of naive timestamps, log order); ``since`` without a timestamp replays
nothing. REST control answers 503 while the sandbox is not RUNNING (its agent server is
unreachable; in Docker proxy mode the proxy says 503).

The sandbox's own log, ``GET /api/conversations/{id}/events/search`` (``log_router``, on an
app-mode server: a bare agent server serves the same from ``routes_agent_server.py``), is
complete where the app server's stored copy may lag (``live/webhook.py``): a client fills
a dropped socket's gap from it, by event id.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Request, Response, WebSocket
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tui.models import EventSortOrder, ImageContent, TextContent

from .live import (
    Close,
    LiveConversation,
    LiveError,
    LiveHub,
    SandboxNotRunning,
    Subscriber,
    replay_frames,
)
from .params import Limit, normalize_hex_id
from .read_only import REFUSAL
from .routes_agent_server import EventQuery, agent_log_page
from .store.base import PAGE_BYTES
from .times import event_time_from_clock

router = APIRouter(tags=["Agent server (live)"])

Content = Annotated[TextContent | ImageContent, Field(discriminator="type")]

AUTH_FAILED = Close(4001, "Authentication failed")
NOT_FOUND = Close(4004, "Conversation not found")
#: events read per turn of a replay, and at most PAGE_BYTES of them (the first whatever it
#: weighs): a replay of outputs of megabytes holds a few at a time, not 200
REPLAY_BATCH = 200


class Message(BaseModel):
    """A client frame (the SDK's ``Message``; the class name shows in error details)."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["user", "system", "assistant", "tool"]
    content: Sequence[Content]


class SendMessageRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["user"] = "user"
    content: list[Content] = Field(default_factory=list)
    run: bool = False


class ConfirmationResponseRequest(BaseModel):
    accept: bool
    reason: str = "User rejected the action."


def _hub(app: Any) -> LiveHub:
    hub: LiveHub = app.state.live
    hub.bind()
    return hub


def _http_error(exc: LiveError) -> HTTPException:
    if isinstance(exc, SandboxNotRunning):
        # the request never reaches a stopped agent server: the proxy answers 503
        return HTTPException(status_code=503, detail=exc.detail)
    return HTTPException(status_code=exc.status, detail=exc.detail)


async def live_conversation(
    conversation_id: str,
    request: Request,
    x_session_api_key: Annotated[str | None, Header()] = None,
) -> LiveConversation:
    hub = _hub(request.app)
    cid = normalize_hex_id(conversation_id)
    info = hub.store.get_conversation(cid)
    if not hub.key_ok(x_session_api_key, hub.accepted_keys(info)):
        raise HTTPException(status_code=401, detail="Unauthorized")
    try:
        return hub.require(cid)
    except LiveError as exc:
        raise _http_error(exc) from None


Conversation = Annotated[LiveConversation, Depends(live_conversation)]
SUCCESS = {"success": True}

#: the sandbox's log on an app-mode server (see the module doc)
log_router = APIRouter(tags=["Agent server (live)"])


@log_router.get(
    "/api/conversations/{conversation_id}/events/search",
    summary="Search the sandbox's own log (agent server; event-id page ids)",
)
def search_sandbox_log(
    conv: Conversation,
    filters: Annotated[EventQuery, Depends()],
    page_id: str | None = None,
    limit: Limit = 100,
    sort_order: EventSortOrder = EventSortOrder.TIMESTAMP,
) -> Response:
    try:
        conv.require_sandbox()
    except LiveError as exc:
        raise _http_error(exc) from None
    descending = sort_order == EventSortOrder.TIMESTAMP_DESC
    return agent_log_page(conv.hub.store, conv.id, filters, page_id, limit, descending)


@router.post("/api/conversations/{conversation_id}/events", summary="Send a message (agent server)")
async def send_message(conv: Conversation, body: SendMessageRequest) -> dict[str, bool]:
    try:
        await conv.send_message([c.model_dump(mode="json") for c in body.content], run=body.run)
    except LiveError as exc:
        raise _http_error(exc) from None
    return SUCCESS


@router.post("/api/conversations/{conversation_id}/run", summary="Run the agent (409 if running)")
async def run_conversation(conv: Conversation) -> dict[str, bool]:
    try:
        await conv.run()
    except LiveError as exc:
        raise _http_error(exc) from None
    return SUCCESS


@router.post("/api/conversations/{conversation_id}/pause", summary="Pause between steps")
async def pause_conversation(conv: Conversation) -> dict[str, bool]:
    try:
        await conv.pause()
    except LiveError as exc:
        raise _http_error(exc) from None
    return SUCCESS


@router.post("/api/conversations/{conversation_id}/interrupt", summary="Interrupt at once")
async def interrupt_conversation(conv: Conversation) -> dict[str, bool]:
    try:
        await conv.interrupt()
    except LiveError as exc:
        raise _http_error(exc) from None
    return SUCCESS


@router.post(
    "/api/conversations/{conversation_id}/events/respond_to_confirmation",
    summary="Accept or reject the pending action",
)
async def respond_to_confirmation(
    conv: Conversation, body: ConfirmationResponseRequest
) -> dict[str, bool]:
    try:
        await conv.respond(body.accept, body.reason)
    except LiveError as exc:
        raise _http_error(exc) from None
    return SUCCESS


# -- the websocket ----------------------------------------------------------------------------


def _filter_time(value: datetime) -> str:
    """The string event timestamps are compared with (naive wall-clock digits, microseconds)."""
    return value.replace(tzinfo=None).isoformat(timespec="microseconds")


def _server_error(hub: LiveHub, code: str, detail: str) -> str:
    event = {
        "id": str(uuid.uuid4()),
        "timestamp": event_time_from_clock(hub.clock()),
        "source": "environment",
        "code": code,
        "detail": detail,
        "kind": "ServerErrorEvent",
    }
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


async def _close(websocket: WebSocket, close: Close) -> None:
    with contextlib.suppress(Exception):
        await websocket.close(code=close.code, reason=close.reason)


@router.websocket("/sockets/events/{conversation_id}")
async def events_socket(
    websocket: WebSocket,
    conversation_id: str,
    resend_mode: Literal["all", "since"] | None = None,
    after_timestamp: datetime | None = None,
    resend_all: bool = False,
    session_api_key: str | None = None,
) -> None:
    hub = _hub(websocket.app)
    cid = normalize_hex_id(conversation_id)
    info = hub.store.get_conversation(cid)
    keys = hub.accepted_keys(info)
    offered = (
        session_api_key
        if session_api_key is not None
        else websocket.headers.get("x-session-api-key")
    )
    if keys and offered is not None and not hub.key_ok(offered, keys):
        await websocket.close(code=1008)  # before accept: the handshake is rejected with 403
        return
    await websocket.accept()
    if keys and offered is None and not await _first_frame_auth(websocket, hub, keys):
        return
    conv = hub.get(cid) if info is not None else None
    if conv is None:
        await _close(websocket, NOT_FOUND)
        return
    if not conv.sandbox_running():
        await _close(websocket, Close(1013, "Sandbox is not running"))
        return
    if len(conv.subscribers) >= hub.max_subscribers:
        await _close(websocket, Close(1013, "Too many connections for this conversation"))
        return

    mode = resend_mode or ("all" if resend_all else None)
    replay: tuple[int, str | None] | None = None
    if mode == "all":
        replay = (-1, None)
    elif mode == "since" and after_timestamp is not None:
        since = _filter_time(after_timestamp)
        first = hub.store.first_seq_since(cid, since)
        replay = (first - 1, since) if first is not None else None

    sub = conv.subscribe()
    sender = asyncio.create_task(_send(websocket, hub, cid, sub, replay))
    receiver = asyncio.create_task(_receive(websocket, hub, conv, sub))
    try:
        await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        conv.unsubscribe(sub)
        for task in (sender, receiver):
            task.cancel()
        await asyncio.gather(sender, receiver, return_exceptions=True)


async def _first_frame_auth(websocket: WebSocket, hub: LiveHub, keys: list[str]) -> bool:
    try:
        message = await asyncio.wait_for(websocket.receive(), timeout=hub.auth_timeout)
    except TimeoutError:
        await _close(websocket, AUTH_FAILED)
        return False
    if message.get("type") == "websocket.disconnect":
        return False
    raw = message.get("text")
    if raw is None:
        raw = (message.get("bytes") or b"").decode("utf-8", "replace")
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if (
        isinstance(data, dict)
        and data.get("type") == "auth"
        and isinstance(data.get("session_api_key"), str)
        and hub.key_ok(data["session_api_key"], keys)
    ):
        return True
    await _close(websocket, AUTH_FAILED)
    return False


async def _send(
    websocket: WebSocket,
    hub: LiveHub,
    cid: str,
    sub: Subscriber,
    replay: tuple[int, str | None] | None,
) -> None:
    """full_state, then the replay (log order, up to the subscription point), then live frames."""
    try:
        await websocket.send_text(sub.full_state)
        if replay is not None:
            after, since = replay

            def batch(after_seq: int) -> tuple[list[str], int | None, bool]:
                rows = hub.store.log_rows(
                    cid,
                    after_seq=after_seq,
                    upto_seq=sub.upto_seq,
                    timestamp_gte=since,
                    limit=REPLAY_BATCH,
                    max_bytes=PAGE_BYTES,
                )
                last = rows[-1].seq if rows else None
                return replay_frames(rows), last, not rows

            while sub.closing is None:
                frames, last, done = await asyncio.to_thread(batch, after)
                for frame in frames:
                    await websocket.send_text(frame)
                if last is None or done:
                    break
                after = last
        while True:
            item = await sub.queue.get()
            if isinstance(item, Close):
                await _close(websocket, item)
                return
            await websocket.send_text(item)
    except asyncio.CancelledError:
        raise
    except Exception:  # noqa: BLE001 - the client went away mid-send
        return


async def _receive(
    websocket: WebSocket, hub: LiveHub, conv: LiveConversation, sub: Subscriber
) -> None:
    """Client frames: extra auth frames are ignored, a Message is sent and run."""
    try:
        while True:
            message = await websocket.receive()
            if message.get("type") == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                raw = (message.get("bytes") or b"").decode("utf-8", "replace")
            await _handle_frame(raw, hub, conv, sub)
    except asyncio.CancelledError:
        raise
    except Exception:  # noqa: BLE001 - a broken connection ends the subscription
        return


async def _handle_frame(raw: str, hub: LiveHub, conv: LiveConversation, sub: Subscriber) -> None:
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if isinstance(data, dict) and data.get("type") == "auth":
        return
    try:
        message = Message.model_validate_json(raw)
    except ValidationError as exc:
        sub.put(_server_error(hub, "ValidationError", str(exc)))
        return
    if message.role != "user":
        sub.put(_server_error(hub, "ValueError", "Only user messages can be sent to the agent."))
        return
    if getattr(hub.store, "read_only", False):  # local folders: there is no agent to tell
        sub.put(_server_error(hub, "ReadOnly", REFUSAL))
        return
    try:
        await conv.send_message([c.model_dump(mode="json") for c in message.content], run=True)
    except LiveError as exc:
        sub.put(_server_error(hub, type(exc).__name__, exc.detail))
