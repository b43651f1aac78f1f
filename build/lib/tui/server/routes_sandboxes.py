"""``/api/v1/sandboxes`` and ``/api/v1/sandbox-specs`` (facts §3, §4).

Starting answers at once with a STARTING sandbox, or (``sync_sandbox_start``, like the real
app server) only once it is RUNNING. Pause and resume answer ``{"success": true}`` at once;
the new status shows on the next read, as with the real server. DELETE takes the id from the path and/or ``?sandbox_id=``
(the query wins), so both published variants of that route work.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from tui.models import SandboxStatus

from .deps import advanced_lifecycle, get_store
from .lifecycle import Lifecycle, LifecycleError
from .page_ids import encode_page_id
from .params import Limit
from .responses import keyset_after, raise_http, too_many
from .store import Store
from .views import sandbox_view

MAX_IDS = 100
_TOKEN = "sb"
_SPEC_TOKEN = "sp"
DEFAULT_WORKING_DIR = "/home/openhands/workspace"

router = APIRouter(prefix="/api/v1/sandboxes", tags=["Sandboxes"])
specs_router = APIRouter(prefix="/api/v1/sandbox-specs", tags=["Sandbox specs"])


def _views(store: Store, sandboxes: list[dict[str, Any] | None]) -> list[dict[str, Any] | None]:
    spec_ids = list({sb["sandbox_spec_id"] for sb in sandboxes if sb})
    specs = {spec["id"]: spec for spec in store.get_specs(spec_ids) if spec}
    out: list[dict[str, Any] | None] = []
    for sb in sandboxes:
        if sb is None:
            out.append(None)
            continue
        spec = specs.get(sb["sandbox_spec_id"]) or {}
        out.append(sandbox_view(sb, spec.get("working_dir") or DEFAULT_WORKING_DIR))
    return out


@router.get("/search", summary="List sandboxes (newest first)")
def search_sandboxes(
    page_id: str | None = None,
    limit: Limit = 100,
    store: Store = Depends(get_store),
    _lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> dict[str, Any]:
    after = keyset_after(page_id, _TOKEN, (str, str))
    rows, more = store.search_sandboxes(after=after, limit=limit)
    next_page_id = encode_page_id(_TOKEN, rows[-1]["created_key"], rows[-1]["id"]) if more else None
    return {"items": _views(store, list(rows)), "next_page_id": next_page_id}


@router.get("", summary="Batch get sandboxes")
def batch_get_sandboxes(
    id: Annotated[list[str], Query()],
    store: Store = Depends(get_store),
    _lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> list[dict[str, Any] | None]:
    too_many(len(id), MAX_IDS)
    return _views(store, store.get_sandboxes(id))


@router.post("", summary="Start a sandbox")
async def start_sandbox(
    request: Request,
    sandbox_spec_id: str | None = None,
    store: Store = Depends(get_store),
    lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> dict[str, Any]:
    """A STARTING sandbox at once; with ``sync_sandbox_start`` (the real app server) the
    answer waits until it is RUNNING. Either way a second POST starts a second sandbox."""
    try:
        sandbox = await asyncio.to_thread(lifecycle.start_sandbox, sandbox_spec_id)
    except LifecycleError as exc:
        raise_http(exc)
    if request.app.state.options.get("sync_sandbox_start"):
        sandbox = await _until_started(lifecycle, store, sandbox)
    return _views(store, [sandbox])[0]  # type: ignore[return-value]


async def _until_started(
    lifecycle: Lifecycle, store: Store, sandbox: dict[str, Any]
) -> dict[str, Any]:
    """Wait (by the lifecycle's clock, which tests may drive) until the sandbox is no longer
    STARTING: RUNNING, or paused or deleted meanwhile."""
    poll = min(0.05, max(0.005, lifecycle.sandbox_start_delay / 20))
    while True:
        await asyncio.to_thread(lifecycle.advance)
        current = store.get_sandbox(sandbox["id"])
        if current is None or current["status"] != SandboxStatus.STARTING.value:
            return current or sandbox
        await asyncio.sleep(poll)


@router.post("/{sandbox_id}/pause", summary="Pause a sandbox")
def pause_sandbox(
    sandbox_id: str, lifecycle: Lifecycle = Depends(advanced_lifecycle)
) -> dict[str, bool]:
    try:
        lifecycle.pause_sandbox(sandbox_id)
    except LifecycleError as exc:
        raise_http(exc)
    return {"success": True}


@router.post("/{sandbox_id}/resume", summary="Resume a sandbox")
def resume_sandbox(
    sandbox_id: str, lifecycle: Lifecycle = Depends(advanced_lifecycle)
) -> dict[str, bool]:
    try:
        lifecycle.resume_sandbox(sandbox_id)
    except LifecycleError as exc:
        raise_http(exc)
    return {"success": True}


@router.delete("/{id}", summary="Delete a sandbox")
def delete_sandbox(
    id: str,
    sandbox_id: str | None = None,
    lifecycle: Lifecycle = Depends(advanced_lifecycle),
) -> dict[str, bool]:
    try:
        lifecycle.delete_sandbox(sandbox_id or id)
    except LifecycleError as exc:
        raise_http(exc)
    return {"success": True}


# -- specs ------------------------------------------------------------------------------------


@specs_router.get("/search", summary="List sandbox specs")
def search_specs(
    page_id: str | None = None, limit: Limit = 100, store: Store = Depends(get_store)
) -> dict[str, Any]:
    (after,) = keyset_after(page_id, _SPEC_TOKEN, (int,)) or (None,)
    rows, more = store.search_specs(after=after, limit=limit)
    next_page_id = encode_page_id(_SPEC_TOKEN, rows[-1][0]) if more else None
    return {"items": [spec for _, spec in rows], "next_page_id": next_page_id}


@specs_router.get("", summary="Batch get sandbox specs")
def batch_get_specs(
    id: Annotated[list[str], Query()], store: Store = Depends(get_store)
) -> list[dict[str, Any] | None]:
    too_many(len(id), MAX_IDS)
    return store.get_specs(id)
