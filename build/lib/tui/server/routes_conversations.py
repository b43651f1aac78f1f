"""``/api/v1/app-conversations``: search, count, batch get, start, start tasks (facts §2).

Listing is ``/search`` (CREATED_AT_DESC, keyset page ids); the bare path is a *batch get*
by ``ids``. Starting returns a start task at WORKING that advances to READY over
``start_delay`` seconds (``lifecycle.py``).
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from tui.models import ImageContent, TextContent

from .deps import advanced_lifecycle, get_store
from .lifecycle import Lifecycle, LifecycleError
from .live import LiveError, LiveHub
from .page_ids import BadPageId, decode_page_id, encode_page_id
from .params import Limit, normalize_hex_id, strict_hex_id
from .responses import keyset_after, raise_bad_page_id, raise_http, too_many
from .store import Store
from .times import sort_key, utc_from_clock
from .views import conversation_view

MAX_IDS = 99  # "<100 else 400 'Maximum is 99'" (facts §2)
_TOKEN = "cv"
_TASK_TOKEN = "st"

Content = Annotated[TextContent | ImageContent, Field(discriminator="type")]


class StartMessage(BaseModel):
    role: Literal["user"] = "user"
    content: list[Content] = Field(default_factory=list)
    run: bool = False


class AppConversationStartRequest(BaseModel):
    """Every field optional, as in the real request (facts §2); unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    sandbox_id: str | None = None
    conversation_id: str | None = None
    initial_message: StartMessage | None = None
    system_message_suffix: str | None = None
    processors: list[Any] | None = None
    llm_model: str | None = None
    agent_profile_id: str | None = None
    selected_repository: str | None = None
    selected_branch: str | None = None
    git_provider: str | None = None
    suggested_task: dict[str, Any] | None = None
    title: str | None = None
    trigger: str | None = None
    pr_number: list[int] = Field(default_factory=list)
    parent_conversation_id: str | None = None
    agent_type: Literal["default", "plan"] = "default"
    public: bool | None = None
    plugins: list[Any] | None = None
    secrets: dict[str, str] | None = None


class SendMessageRequest(BaseModel):
    role: Literal["user"] = "user"
    content: list[Content] = Field(min_length=1)
    run: bool = True


class ConversationPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str | None = None
    public: bool | None = None
    selected_repository: str | None = None
    selected_branch: str | None = None
    git_provider: str | None = None


class StartTaskSortOrder(str, Enum):
    CREATED_AT = "CREATED_AT"
    CREATED_AT_DESC = "CREATED_AT_DESC"
    UPDATED_AT = "UPDATED_AT"
    UPDATED_AT_DESC = "UPDATED_AT_DESC"


router = APIRouter(prefix="/api/v1/app-conversations", tags=["Conversations"])


def _views(store: Store, infos: list[dict[str, Any] | None]) -> list[dict[str, Any] | None]:
    present = [info for info in infos if info]
    sandboxes = {
        sb["id"]: sb
        for sb in store.get_sandboxes([i["sandbox_id"] for i in present if i.get("sandbox_id")])
        if sb
    }
    children = store.sub_conversation_ids([i["id"] for i in present])
    return [
        conversation_view(
            info, sandboxes.get(info.get("sandbox_id") or ""), children.get(info["id"], [])
        )
        if info
        else None
        for info in infos
    ]


def _key(value: datetime | None) -> str | None:
    return sort_key(value) if value is not None else None


class ConversationFilters:
    def __init__(
        self,
        title__contains: str | None = None,
        created_at__gte: datetime | None = None,
        created_at__lt: datetime | None = None,
        updated_at__gte: datetime | None = None,
        updated_at__lt: datetime | None = None,
        sandbox_id__eq: str | None = None,
        include_sub_conversations: bool = False,
    ) -> None:
        self.kwargs = {
            "title_contains": title__contains,
            "created_gte": _key(created_at__gte),
            "created_lt": _key(created_at__lt),
            "updated_gte": _key(updated_at__gte),
            "updated_lt": _key(updated_at__lt),
            "sandbox_id": sandbox_id__eq,
            "include_sub_conversations": include_sub_conversations,
        }


@router.get("/search", summary="Search app conversations (newest first)")
def search_conversations(
    filters: Annotated[ConversationFilters, Depends()],
    page_id: str | None = None,
    limit: Limit = 100,
    store: Store = Depends(get_store),
    _lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> dict[str, Any]:
    after = keyset_after(page_id, _TOKEN, (str, str))
    rows, more = store.search_conversations(**filters.kwargs, after=after, limit=limit)
    next_page_id = encode_page_id(_TOKEN, rows[-1][0], rows[-1][1]) if more else None
    return {"items": _views(store, [info for _, _, info in rows]), "next_page_id": next_page_id}


@router.get("/count", summary="Count app conversations")
def count_conversations(
    filters: Annotated[ConversationFilters, Depends()],
    store: Store = Depends(get_store),
    _lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> int:
    return store.count_conversations(**filters.kwargs)


@router.get("", summary="Batch get app conversations")
def batch_get_conversations(
    ids: Annotated[list[str], Query()],
    store: Store = Depends(get_store),
    _lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> list[dict[str, Any] | None]:
    too_many(len(ids), MAX_IDS)
    # a non-UUID is a 400, as on the real service, but where the store names conversations
    # by their folders (a local folder tree)
    spelled = normalize_hex_id if getattr(store, "named_ids", False) else strict_hex_id
    return _views(store, store.get_conversations([spelled(i) for i in ids]))


@router.post("", summary="Start an app conversation")
def start_conversation(
    request: Annotated[AppConversationStartRequest | None, Body()] = None,
    lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> dict[str, Any]:
    """Every field is optional, and so is the body itself."""
    body = (request or AppConversationStartRequest()).model_dump(mode="json")
    if body.get("secrets"):
        body["secrets"] = {name: "**********" for name in body["secrets"]}
    return _task_view(lifecycle.start_conversation(body))


# -- start tasks ------------------------------------------------------------------------------


def _task_view(task: dict[str, Any] | None) -> dict[str, Any] | None:
    if task is None:
        return None
    return {k: v for k, v in task.items() if not k.startswith("_")}


@router.get("/start-tasks", summary="Batch get start tasks")
def batch_get_start_tasks(
    ids: Annotated[list[str], Query()],
    store: Store = Depends(get_store),
    _lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> list[dict[str, Any] | None]:
    too_many(len(ids), MAX_IDS)
    return [_task_view(t) for t in store.get_tasks([strict_hex_id(i) for i in ids])]


@router.get("/start-tasks/search", summary="Search start tasks")
def search_start_tasks(
    conversation_id__eq: str | None = None,
    created_at__gte: datetime | None = None,
    sort_order: StartTaskSortOrder = StartTaskSortOrder.CREATED_AT_DESC,
    page_id: str | None = None,
    limit: Limit = 100,
    store: Store = Depends(get_store),
    _lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> dict[str, Any]:
    order_by = "updated_key" if sort_order.value.startswith("UPDATED") else "created_key"
    after = None
    if page_id:
        try:
            order, key, tid = decode_page_id(page_id, _TASK_TOKEN, (str, str, str))
            if order != sort_order.value:
                raise BadPageId("page id belongs to another sort order")
            after = (key, tid)
        except BadPageId as exc:
            raise_bad_page_id(exc, page_id)
    rows, more = store.search_tasks(
        conversation_id=strict_hex_id(conversation_id__eq) if conversation_id__eq else None,
        created_gte=_key(created_at__gte),
        order_by=order_by,
        descending=sort_order.value.endswith("_DESC"),
        after=after,
        limit=limit,
    )
    next_page_id = (
        encode_page_id(_TASK_TOKEN, sort_order.value, rows[-1][0], rows[-1][1]) if more else None
    )
    return {"items": [_task_view(t) for _, _, t in rows], "next_page_id": next_page_id}


@router.get("/start-tasks/count", summary="Count start tasks")
def count_start_tasks(
    conversation_id__eq: str | None = None,
    created_at__gte: datetime | None = None,
    store: Store = Depends(get_store),
    _lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> int:
    return store.count_tasks(
        conversation_id=strict_hex_id(conversation_id__eq) if conversation_id__eq else None,
        created_gte=_key(created_at__gte),
    )


# -- one conversation -------------------------------------------------------------------------


@router.patch("/{conversation_id}", summary="Update an app conversation")
def patch_conversation(
    conversation_id: str,
    patch: ConversationPatch,
    store: Store = Depends(get_store),
    lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> dict[str, Any]:
    info = store.get_conversation(strict_hex_id(conversation_id))
    if info is None:
        raise HTTPException(status_code=404, detail="unknown_app_conversation")
    info.update(patch.model_dump(exclude_unset=True))
    info["updated_at"] = utc_from_clock(lifecycle.clock())
    store.put_conversation(info)
    return _views(store, [info])[0]  # type: ignore[return-value]


@router.delete("/{conversation_id}", summary="Delete an app conversation")
def delete_conversation(
    conversation_id: str, request: Request, store: Store = Depends(get_store)
) -> dict[str, bool]:
    cid = strict_hex_id(conversation_id)
    if not store.delete_conversation(cid):
        raise HTTPException(status_code=404, detail="unknown_app_conversation")
    request.app.state.live.notify("conversation_deleted", cid)
    return {"success": True}


@router.post("/{conversation_id}/send-message", summary="Send a user message")
def send_message(
    conversation_id: str,
    message: SendMessageRequest,
    request: Request,
    lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> dict[str, Any]:
    """Forwarded to the conversation's agent server (the live hub): the message reaches the
    websocket subscribers and, with ``run`` (default), the agent runs. Without a running hub
    (an app driven outside uvicorn) the message is only logged."""
    cid = strict_hex_id(conversation_id)
    content = [c.model_dump(mode="json") for c in message.content]
    hub: LiveHub = request.app.state.live
    if hub.bound:
        try:
            hub.call(lambda: hub.require(cid).send_message(content, run=message.run))
        except LiveError as exc:
            raise HTTPException(status_code=exc.status, detail=exc.detail) from None
    else:
        try:
            lifecycle.send_message(cid, content)
        except LifecycleError as exc:
            raise_http(exc)
    return {"success": True, "sandbox_status": "RUNNING", "message": None}
