"""Agent-server mode: the reference server as a bare OpenHands agent server (facts §1c, §10).

``create_app(kind="agent")`` serves these routes instead of ``/api/v1/*`` and
``/api/shared-events/*``, over the same :class:`Store`; the live routes (websocket, run
controls) stay as they are. What the real agent server 1.58 does and this copies:

- ``GET /server_info`` (public): version, uptime, usable tools…; ``GET /health``.
- ``/api/conversations/search|count``, ``GET /api/conversations?ids=``, ``GET|PATCH
  /api/conversations/{id}``, ``POST /api/conversations`` (201 new, 200 when the id exists):
  ``ConversationInfo`` records with the whole agent (LLM key masked), ``stats`` per usage id
  and ``metrics: null``, nulls kept. Newest first; page ids are the next item's hex id.
- ``/api/conversations/{id}/events/search|count``: ``kind`` short or qualified
  (``openhands.sdk.event….MessageEvent``), page ids are the *event id of the first item of
  the page* (an unknown one starts from the beginning), ``limit`` over 100 is a 422, events
  served with null fields left out, in log order: ``TIMESTAMP`` is the log forward and
  ``TIMESTAMP_DESC`` backward, whatever the timestamps say (facts §1c; a stats update
  logged after an event may carry an earlier stamp). An app-mode server serves this search
  too, as each sandbox's agent server does (``routes_live.py``). ``GET …/events/{event_id}`` (404 unknown) and the batch
  ``GET …/events`` with a JSON array body (``null`` for unknown ids).
- Conversation ids are UUIDs in any spelling (422 otherwise); unknown ones are 404.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime
from enum import Enum
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict

from tui import __version__
from tui.models import EventSortOrder, ExecutionStatus, SandboxStatus

from .demo.events_builder import WORKDIR
from .deps import get_store
from .live.state import agent_block
from .params import Limit
from .responses import json_array, json_text, page_body
from .store import Store, dumps
from .store.base import PAGE_BYTES
from .times import event_filter_time, utc_from_clock

SANDBOX_ID = "agent-server"
#: a conversation's runtime as a local agent server always has it (a test may set another)
RUNTIME_AVAILABLE = {"runtime_status": "available", "can_resume": True, "runtime_error": None}
TOOLS = ("terminal", "file_editor", "task_tracker", "think", "finish")
MAX_IDS = 99


class ConversationSortOrder(str, Enum):
    CREATED_AT = "CREATED_AT"
    UPDATED_AT = "UPDATED_AT"
    CREATED_AT_DESC = "CREATED_AT_DESC"
    UPDATED_AT_DESC = "UPDATED_AT_DESC"


class UpdateConversationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str | None = None
    tags: dict[str, str] | None = None


class StartConversationRequest(BaseModel):
    """The parts of the real request this server uses; everything else is accepted."""

    model_config = ConfigDict(extra="allow")

    workspace: dict[str, Any]
    conversation_id: uuid.UUID | None = None
    agent: dict[str, Any] | None = None
    agent_settings: dict[str, Any] | None = None
    initial_message: dict[str, Any] | None = None
    tags: dict[str, str] | None = None


public_router = APIRouter(tags=["Agent server (bare)"])
router = APIRouter(prefix="/api/conversations", tags=["Agent server (bare)"])


# -- records ----------------------------------------------------------------------------------


def _dashed(hex_id: str | None) -> str | None:
    try:
        return str(uuid.UUID(hex_id)) if hex_id else None
    except ValueError:
        return hex_id


def _stats(metrics: Any) -> dict[str, Any]:
    if not isinstance(metrics, dict):
        return {"usage_to_metrics": {}}
    full = {**metrics, "costs": [], "response_latencies": [], "token_usages": []}
    return {"usage_to_metrics": {"agent": full}}


def conversation_record(info: dict[str, Any], children: list[str]) -> dict[str, Any]:
    """A ``ConversationInfo`` as the real agent server serves it (nulls kept, key masked)."""
    hex_id = info["id"]
    return {
        "id": _dashed(hex_id),
        "workspace": {"working_dir": WORKDIR, "kind": "LocalWorkspace"},
        "persistence_dir": f"workspace/conversations/{hex_id}",
        "max_iterations": 500,
        "stuck_detection": True,
        "execution_status": info.get("execution_status") or ExecutionStatus.IDLE.value,
        "confirmation_policy": info.get("confirmation_policy") or {"kind": "NeverConfirm"},
        "security_analyzer": info.get("security_analyzer"),
        "activated_knowledge_skills": [],
        "invoked_skills": [],
        "blocked_actions": {},
        "blocked_messages": {},
        "last_user_message_id": None,
        "leaf_event_id": info.get("leaf_event_id"),
        "stats": _stats(info.get("metrics")),
        "secret_registry": {"secret_sources": {}},
        "agent_state": {},
        "hook_config": None,
        "title": info.get("title"),
        "metrics": None,
        "created_at": info.get("created_at"),
        "updated_at": info.get("updated_at"),
        "forked_from_conversation_id": _dashed(info.get("forked_from_conversation_id")),
        "forked_from_event_id": info.get("forked_from_event_id"),
        "parent_conversation_id": _dashed(info.get("parent_conversation_id")),
        "sub_conversation_ids": [_dashed(c) for c in children],
        "tags": info.get("tags") or {},
        "agent": agent_block(info.get("llm_model") or "openai/fake-model"),
        "tool_module_qualnames": {},
        "runtime_info": info.get("runtime_info") or RUNTIME_AVAILABLE,
    }


def _records(store: Store, infos: list[dict[str, Any] | None]) -> list[dict[str, Any] | None]:
    children = store.sub_conversation_ids([i["id"] for i in infos if i])
    return [conversation_record(i, children.get(i["id"], [])) if i else None for i in infos]


def _require(store: Store, conversation_id: uuid.UUID) -> dict[str, Any]:
    info = store.get_conversation(conversation_id.hex)
    if info is None:
        raise HTTPException(status_code=404, detail="Not Found")
    return info


def _all_conversations(store: Store) -> list[dict[str, Any]]:
    return [i for i in store.get_conversations(store.conversation_ids()) if i]


def _without_nulls(value: Any) -> Any:
    """The SDK's ``exclude_none`` dump: null fields left out (list items kept)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _event_text(text: str) -> str:
    return dumps(_without_nulls(json.loads(text)))


def _short_kind(kind: str | None) -> str | None:
    return kind.rsplit(".", 1)[-1] if kind else None


# -- server ------------------------------------------------------------------------------------


@public_router.get("/server_info", summary="Server information (public)")
def server_info(request: Request) -> dict[str, Any]:
    state = request.app.state
    now = time.time()
    return {
        "uptime": round(now - state.agent_started, 1),
        "idle_time": round(now - state.agent_started, 1),
        "title": "OpenHands Agent Server",
        "version": f"ohtui-reference-{__version__}",
        "sdk_version": __version__,
        "tools_version": __version__,
        "workspace_version": "unknown",
        "python_version": "reference",
        "usable_tools": list(TOOLS),
        "conversation_runtime": "local",
        "available_conversation_runtimes": [],
        "capabilities": ["conversation_runtime_routes_v1", "idempotent_conversation_create_v1"],
        "docs": "/docs",
        "redoc": "/redoc",
    }


@public_router.get("/health", summary="Liveness")
def health() -> dict[str, str]:
    return {"status": "ok"}


# -- conversations ----------------------------------------------------------------------------


@router.get("/search", summary="Search conversations")
def search_conversations(
    page_id: str | None = None,
    limit: Limit = 100,
    status: ExecutionStatus | None = None,
    sort_order: ConversationSortOrder = ConversationSortOrder.CREATED_AT_DESC,
    store: Store = Depends(get_store),
) -> dict[str, Any]:
    infos = _all_conversations(store)
    if status is not None:
        infos = [i for i in infos if (i.get("execution_status") or "idle") == status.value]
    field = "updated_at" if sort_order.value.startswith("UPDATED") else "created_at"
    infos.sort(key=lambda i: (i.get(field) or "", i["id"]), reverse="DESC" in sort_order.value)
    start = 0
    if page_id:
        wanted = uuid.UUID(page_id).hex if _is_uuid(page_id) else page_id
        start = next((n for n, i in enumerate(infos) if i["id"] == wanted), 0)
    chosen = infos[start : start + limit]
    rest = infos[start + limit : start + limit + 1]
    return {"items": _records(store, chosen), "next_page_id": rest[0]["id"] if rest else None}


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


@router.get("/count", summary="Count conversations")
def count_conversations(
    status: ExecutionStatus | None = None, store: Store = Depends(get_store)
) -> int:
    infos = _all_conversations(store)
    if status is None:
        return len(infos)
    return sum(1 for i in infos if (i.get("execution_status") or "idle") == status.value)


@router.get("", summary="Batch get conversations")
def batch_get_conversations(
    ids: Annotated[list[uuid.UUID], Query(max_length=MAX_IDS)],
    store: Store = Depends(get_store),
) -> list[dict[str, Any] | None]:
    return _records(store, store.get_conversations([i.hex for i in ids]))


@router.post("", summary="Start a conversation (201; 200 when it exists)")
def start_conversation(
    body: StartConversationRequest, request: Request, store: Store = Depends(get_store)
) -> JSONResponse:
    hex_id = (body.conversation_id or uuid.uuid4()).hex
    existing = store.get_conversation(hex_id)
    if existing is not None:
        return JSONResponse(_records(store, [existing])[0], status_code=200)
    lifecycle = request.app.state.lifecycle
    _ensure_sandbox(store, lifecycle.clock())
    llm = ((body.agent or body.agent_settings or {}).get("llm") or {}).get("model")
    task = {
        "sandbox_id": SANDBOX_ID,
        "request": {
            "conversation_id": hex_id,
            "initial_message": body.initial_message,
            "llm_model": llm if isinstance(llm, str) else None,
        },
    }
    created = lifecycle.tasks.create_conversation(task, lifecycle.clock())
    info = store.get_conversation(created)
    assert info is not None
    info["title"] = None  # a bare agent server names nothing until asked (PATCH, autotitle)
    info["tags"] = body.tags or {}
    store.put_conversation(info)
    return JSONResponse(_records(store, [info])[0], status_code=201)


def _ensure_sandbox(store: Store, now: float) -> None:
    """The one always-running "sandbox" a bare agent server's new conversations live on."""
    if store.get_sandbox(SANDBOX_ID) is None:
        store.put_sandbox(
            {
                "id": SANDBOX_ID,
                "created_at": utc_from_clock(now),
                "created_by_user_id": None,
                "sandbox_spec_id": "agent-server",
                "status": SandboxStatus.RUNNING.value,
                "session_api_key": None,
                "status_detail": None,
                "port": store.next_sandbox_port(),
                "due_status": None,
                "due_at": None,
            }
        )


@router.get("/{conversation_id}", summary="Get one conversation")
def get_conversation(conversation_id: uuid.UUID, store: Store = Depends(get_store)) -> Any:
    return _records(store, [_require(store, conversation_id)])[0]


@router.patch("/{conversation_id}", summary="Update title and tags")
def update_conversation(
    conversation_id: uuid.UUID,
    body: UpdateConversationRequest,
    request: Request,
    store: Store = Depends(get_store),
) -> dict[str, bool]:
    info = _require(store, conversation_id)
    if body.title is not None:
        if not 1 <= len(body.title) <= 200:
            raise HTTPException(status_code=422, detail="title must be 1 to 200 characters")
        info["title"] = body.title
    if body.tags is not None:
        info["tags"] = body.tags
    info["updated_at"] = utc_from_clock(request.app.state.lifecycle.clock())
    store.put_conversation(info)
    return {"success": True}


# -- events -----------------------------------------------------------------------------------


class EventQuery:
    def __init__(
        self,
        kind: str | None = None,
        timestamp__gte: datetime | None = None,
        timestamp__lt: datetime | None = None,
    ) -> None:
        self.kind = _short_kind(kind)
        self.gte = event_filter_time(timestamp__gte)
        self.lt = event_filter_time(timestamp__lt)


@router.get("/{conversation_id}/events/search", summary="Search events (event-id page ids)")
def search_events(
    conversation_id: uuid.UUID,
    filters: Annotated[EventQuery, Depends()],
    page_id: str | None = None,
    limit: Limit = 100,
    sort_order: EventSortOrder = EventSortOrder.TIMESTAMP,
    store: Store = Depends(get_store),
) -> Response:
    _require(store, conversation_id)
    descending = sort_order == EventSortOrder.TIMESTAMP_DESC
    return agent_log_page(store, conversation_id.hex, filters, page_id, limit, descending)


def agent_log_page(
    store: Store,
    cid: str,
    filters: EventQuery,
    page_id: str | None,
    limit: int,
    descending: bool,
) -> Response:
    """One page of a conversation's log as an agent server serves it (see the module doc)."""
    after = None
    position = store.event_position(cid, page_id) if page_id else None
    if position is not None:  # the page starts at that event (inclusive)
        timestamp, seq = position
        after = (timestamp, seq + 1) if descending else (timestamp, seq - 1)
    rows, following = store.search_events(
        cid,
        kind=filters.kind,
        timestamp_gte=filters.gte,
        timestamp_lt=filters.lt,
        descending=descending,
        after=after,
        limit=limit,
        log_order=True,
        max_bytes=PAGE_BYTES,
    )
    next_id = store.event_id_at(cid, following.seq) if following is not None else None
    items = [_event_text(row.json) for row in rows]
    return json_text(page_body(items, next_id))


@router.get("/{conversation_id}/events/count", summary="Count events")
def count_events(
    conversation_id: uuid.UUID,
    filters: Annotated[EventQuery, Depends()],
    store: Store = Depends(get_store),
) -> int:
    _require(store, conversation_id)
    return store.count_events(
        conversation_id.hex, kind=filters.kind, timestamp_gte=filters.gte, timestamp_lt=filters.lt
    )


@router.get("/{conversation_id}/events/{event_id}", summary="Get one event (404 unknown)")
def get_event(
    conversation_id: uuid.UUID, event_id: str, store: Store = Depends(get_store)
) -> Response:
    (found,) = store.get_events(conversation_id.hex, [event_id])
    if found is None:
        raise HTTPException(status_code=404, detail="Not Found")
    return json_text(_event_text(found))


@router.get("/{conversation_id}/events", summary="Batch get events (JSON array body)")
def batch_get_events(
    conversation_id: uuid.UUID,
    event_ids: Annotated[list[str], Body(max_length=100)],
    store: Store = Depends(get_store),
) -> Response:
    found = (store.get_events(conversation_id.hex, [event_id])[0] for event_id in event_ids)
    return json_array(None if text is None else _event_text(text) for text in found)


# -- installing -------------------------------------------------------------------------------


def install(app: FastAPI, protected: list[Any]) -> None:
    """Serve the bare agent server's routes on ``app`` (``protected``: the key check)."""
    app.state.agent_started = time.time()
    app.include_router(public_router)
    app.include_router(router, dependencies=protected)


__all__ = ["SANDBOX_ID", "EventQuery", "agent_log_page", "conversation_record", "install"]
