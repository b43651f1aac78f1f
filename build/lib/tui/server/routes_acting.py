"""Acting on a conversation as the real agent server 1.58 does (issue 30): fork, navigate,
side questions, the confirmation policy and the security analyzer.

What the real server answered (checked against ``openhands-agent-server`` 1.58.2):

- ``POST /api/conversations/{id}/fork {from_event_id?, title?, tags?, reset_metrics, id?}``:
  201 with the new ``ConversationInfo`` (``forked_from_conversation_id`` and
  ``forked_from_event_id`` set, ``leaf_event_id`` the event forked at, status ``idle``); its
  log is the branch from the root to that event; an unknown event is 404
  ``Unknown from_event_id: X``; an id already taken is 409. The original is unchanged.
- ``POST …/navigate {event_id}``: 200 with the ``ConversationInfo``, ``leaf_event_id`` moved
  (the next event hangs there); an unknown event is 404 ``Unknown event_id: X``.
- ``POST …/ask_agent {question}``: 200 ``{"response": …}``; nothing is added to the log.
- ``GET …/runtime`` and ``POST …/runtime/reprovision`` (named by the server's capability
  ``conversation_runtime_routes_v1``): ``{runtime_status, can_resume, runtime_error}``; a
  local server's is always ``available`` ("local mode has no infrastructure to provision").
- ``POST …/confirmation_policy {policy: {kind}}`` and ``POST …/security_analyzer
  {security_analyzer: {kind} | null}``: 200 ``{"success": true}``; the conversation's info
  says the new ones.

Fork and navigate are a bare agent server's (``install_agent``: an app server has neither);
the other three are every agent server's, so they share the live routes' auth
(``routes_live.live_conversation``) and are served in both modes (``install_live``).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from tui.models import ROOT_PARENT, ExecutionStatus

from .deps import get_store
from .routes_agent_server import RUNTIME_AVAILABLE, _records, _require
from .routes_live import SUCCESS, Conversation
from .store import Store
from .times import utc_from_clock

agent_router = APIRouter(prefix="/api/conversations", tags=["Agent server (acting)"])
live_router = APIRouter(prefix="/api/conversations", tags=["Agent server (acting)"])

#: the confirmation policies and security analyzers this server accepts by ``kind``
POLICIES = frozenset({"NeverConfirm", "AlwaysConfirm", "ConfirmRisky"})
ANALYZERS = frozenset(
    {"LLMSecurityAnalyzer", "PatternSecurityAnalyzer", "PolicyRailSecurityAnalyzer"}
)


#: a fork's id when the request names none (a test pins it)
new_conversation_id = uuid.uuid4


class ForkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: uuid.UUID | None = None
    title: str | None = Field(default=None, max_length=200)
    tags: dict[str, str] | None = None
    reset_metrics: bool = True
    from_event_id: str | None = None


class NavigateRequest(BaseModel):
    event_id: str | None = None


class AskRequest(BaseModel):
    question: str


class PolicyRequest(BaseModel):
    policy: dict[str, Any]


class AnalyzerRequest(BaseModel):
    security_analyzer: dict[str, Any] | None


# -- the branch an event ends ----------------------------------------------------------------


def branch_events(store: Store, hex_id: str, event_id: str | None) -> list[str] | None:
    """The log's events (JSON text, log order) from the root to ``event_id``: the effective
    parent rule (``parent_id``, ``__root__``, a legacy null chains to the event before);
    the whole log when ``event_id`` is None; None when the log has no such event."""
    texts: list[str] = []
    parents: dict[str, str | None] = {}
    order: list[str] = []
    previous: str | None = None
    for row in store.iter_events(hex_id):
        event = json.loads(row.json)
        eid = event.get("id")
        if not isinstance(eid, str):
            continue
        parent = event.get("parent_id")
        parents[eid] = previous if parent is None else parent
        order.append(eid)
        texts.append(row.json)
        previous = eid
    if event_id is None:
        return texts
    if event_id not in parents:
        return None
    on_branch: set[str] = set()
    at: str | None = event_id
    while at is not None and at != ROOT_PARENT and at not in on_branch and at in parents:
        on_branch.add(at)
        at = parents[at]
    return [text for eid, text in zip(order, texts, strict=True) if eid in on_branch]


def _known_event(store: Store, hex_id: str, event_id: str) -> bool:
    return store.get_events(hex_id, [event_id])[0] is not None


# -- fork and navigate (a bare agent server's) -----------------------------------------------


@agent_router.post("/{conversation_id}/fork", summary="Fork from an event (201; 409 taken id)")
def fork_conversation(
    conversation_id: uuid.UUID,
    body: ForkRequest,
    request: Request,
    store: Store = Depends(get_store),
) -> JSONResponse:
    source = _require(store, conversation_id)
    new_id = (body.id or new_conversation_id()).hex
    if store.get_conversation(new_id) is not None:
        raise HTTPException(status_code=409, detail=f"Conversation already exists: {new_id}")
    texts = branch_events(store, conversation_id.hex, body.from_event_id)
    if texts is None:
        raise HTTPException(status_code=404, detail=f"Unknown from_event_id: {body.from_event_id}")
    now = utc_from_clock(request.app.state.lifecycle.clock())
    info = {
        **source,
        "id": new_id,
        "title": body.title,
        "tags": body.tags or {},
        "execution_status": ExecutionStatus.IDLE.value,
        "created_at": now,
        "updated_at": now,
        "forked_from_conversation_id": conversation_id.hex,
        "forked_from_event_id": body.from_event_id,
        "leaf_event_id": body.from_event_id,
        "parent_conversation_id": None,
    }
    if body.reset_metrics:
        info["metrics"] = None
    with store.transaction():
        store.put_conversation(info)
        store.append_events(new_id, (json.loads(t) for t in texts), normalize=False)
    return JSONResponse(_records(store, [info])[0], status_code=201)


@agent_router.post("/{conversation_id}/navigate", summary="Move the conversation's head")
def navigate(
    conversation_id: uuid.UUID,
    body: NavigateRequest,
    request: Request,
    store: Store = Depends(get_store),
) -> Any:
    info = _require(store, conversation_id)
    hex_id = conversation_id.hex
    if body.event_id is not None and not _known_event(store, hex_id, body.event_id):
        raise HTTPException(status_code=404, detail=f"Unknown event_id: {body.event_id}")
    info["leaf_event_id"] = body.event_id or ROOT_PARENT
    store.put_conversation(info)
    live = request.app.state.live.conversations.get(hex_id)
    if live is not None:  # a run under way hangs its next event there
        live.navigated(info["leaf_event_id"])
    return _records(store, [info])[0]


@agent_router.get("/{conversation_id}/runtime", summary="The conversation's runtime")
def runtime(conversation_id: uuid.UUID, store: Store = Depends(get_store)) -> Any:
    return _require(store, conversation_id).get("runtime_info") or RUNTIME_AVAILABLE


@agent_router.post("/{conversation_id}/runtime/reprovision", summary="Provision it again")
def reprovision(conversation_id: uuid.UUID, store: Store = Depends(get_store)) -> Any:
    """The reference server's runtime is this process: provisioning makes it available."""
    info = _require(store, conversation_id)
    info["runtime_info"] = dict(RUNTIME_AVAILABLE)
    store.put_conversation(info)
    return info["runtime_info"]


# -- every agent server's: side questions and policies ---------------------------------------


@live_router.post("/{conversation_id}/ask_agent", summary="A side question (not logged)")
async def ask_agent(conv: Conversation, body: AskRequest) -> dict[str, str]:
    question = " ".join(body.question.split())
    if not question:
        raise HTTPException(status_code=422, detail="The question is empty")
    store = conv.hub.store
    count = store.last_seq(conv.id) + 1
    last = store.last_event_of(conv.id, "MessageEvent", "agent")
    said = ""
    if last:
        content = (json.loads(last).get("llm_message") or {}).get("content") or []
        said = next((c.get("text", "") for c in content if isinstance(c, dict)), "")
    answer = f"You asked: “{question[:200]}”. This conversation has {count} events so far."
    if said:
        answer += f" The last thing I said was: “{' '.join(said.split())[:300]}”."
    return {"response": answer}


@live_router.post("/{conversation_id}/confirmation_policy", summary="Set the confirmation policy")
async def set_confirmation_policy(conv: Conversation, body: PolicyRequest) -> dict[str, bool]:
    kind = body.policy.get("kind")
    if kind not in POLICIES:
        raise HTTPException(status_code=422, detail=f"Unknown confirmation policy: {kind}")
    conv.set_policy(confirmation_policy=dict(body.policy))
    return SUCCESS


@live_router.post("/{conversation_id}/security_analyzer", summary="Set the security analyzer")
async def set_security_analyzer(conv: Conversation, body: AnalyzerRequest) -> dict[str, bool]:
    analyzer = body.security_analyzer
    if analyzer is not None and analyzer.get("kind") not in ANALYZERS:
        raise HTTPException(
            status_code=422, detail=f"Unknown security analyzer: {analyzer.get('kind')}"
        )
    conv.set_policy(security_analyzer=analyzer)
    return SUCCESS


def install_agent(app: FastAPI, protected: list[Any]) -> None:
    app.include_router(agent_router, dependencies=protected)


def install_live(app: FastAPI) -> None:
    app.include_router(live_router)  # the live routes' own auth: sandbox key or session_key


__all__ = ["branch_events", "install_agent", "install_live"]
