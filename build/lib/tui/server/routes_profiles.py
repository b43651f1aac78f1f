"""LLM profiles as the real agent server 1.58.2 keeps them (issue 30 item 4).

What the real server answered (``openhands-agent-server`` 1.58.2):

- ``GET /api/profiles``: ``{profiles: [{name, model, base_url, provider_connection_id,
  provider_connection_broken, api_key_set}], active_profile}`` (no key, no limit).
- ``POST /api/profiles/{name} {llm: {model, base_url?, api_key?}, include_secrets}``: 201
  ``{name, message: "Profile 'x' saved"}``; it overwrites a profile of that name; a new one
  past the limit (50) is 409 ``Profile limit reached (50). Delete a profile before saving a
  new one.``
- ``DELETE /api/profiles/{name}`` (200 ``Profile 'x' deleted`` for an unknown name too),
  ``POST …/rename {new_name}`` (404 ``Profile 'x' not
  found``, 409 ``Profile 'y' already exists``), ``POST …/activate`` (``{name, message,
  llm_applied}``).
- ``POST /api/conversations/{id}/switch_profile {profile_name}``: ``{"success": true}``; an
  unknown profile 404 ``Profile 'x' not found``. The app server's
  ``POST /api/v1/app-conversations/{id}/switch_profile`` is 409 while the sandbox is paused.

This server also says its limit (``max_profiles``), which the real one says only at it. A key
is kept in memory, never served and never logged (``responses.py`` hides the inputs of
``/api/profiles`` requests in its validation errors).
"""

from __future__ import annotations

import logging
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path
from pydantic import BaseModel, ConfigDict, Field

from .deps import get_store
from .routes_agent import PROFILE_NAME, LLMConfig
from .store import Store

log = logging.getLogger("tui.server")

router = APIRouter(tags=["Agent server (LLM profiles)"])
MAX_PROFILES = 50
Name = Annotated[str, Path(min_length=1, max_length=64, pattern=PROFILE_NAME)]


class SaveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    llm: LLMConfig
    include_secrets: bool = True


class RenameRequest(BaseModel):
    new_name: str = Field(min_length=1, max_length=64, pattern=PROFILE_NAME)


class SwitchRequest(BaseModel):
    profile_name: str


def _limit(store: Store) -> int:
    return getattr(store, "max_profiles", MAX_PROFILES)


def _known(store: Store, name: str) -> dict[str, Any]:
    profile = store.profiles.get(name)
    if profile is None:
        raise HTTPException(status_code=404, detail=f"Profile '{name}' not found")
    return profile


@router.get("/api/profiles", summary="The LLM profiles and the active one")
def list_profiles(store: Store = Depends(get_store)) -> dict[str, Any]:
    rows = [
        {
            "name": name,
            "model": p.get("model"),
            "base_url": p.get("base_url"),
            "provider_connection_id": None,
            "provider_connection_broken": False,
            "api_key_set": bool(p.get("api_key")),
        }
        for name, p in sorted(store.profiles.items())
    ]
    active = store.active_profile
    return {"profiles": rows, "active_profile": active, "max_profiles": _limit(store)}


@router.post("/api/profiles/{name}", status_code=201, summary="Save an LLM profile")
def save_profile(name: Name, body: SaveRequest, store: Store = Depends(get_store)) -> dict:
    if name not in store.profiles and len(store.profiles) >= _limit(store):
        raise HTTPException(
            status_code=409,
            detail=f"Profile limit reached ({_limit(store)}). "
            "Delete a profile before saving a new one.",
        )
    key = body.llm.api_key.get_secret_value() if body.llm.api_key and body.include_secrets else None
    store.profiles[name] = {"model": body.llm.model, "base_url": body.llm.base_url, "api_key": key}
    log.info("Saved profile '%s' (include_secrets=%s)", name, body.include_secrets)
    return {"name": name, "message": f"Profile '{name}' saved"}


@router.delete("/api/profiles/{name}", summary="Delete an LLM profile")
def delete_profile(name: Name, store: Store = Depends(get_store)) -> dict[str, str]:
    store.profiles.pop(name, None)  # an unknown name is "deleted" too, as the real server says
    if store.active_profile == name:
        store.active_profile = None
    return {"name": name, "message": f"Profile '{name}' deleted"}


@router.post("/api/profiles/{name}/rename", summary="Rename an LLM profile")
def rename_profile(
    name: Name, body: RenameRequest, store: Store = Depends(get_store)
) -> dict[str, str]:
    profile = _known(store, name)
    if body.new_name in store.profiles:
        raise HTTPException(status_code=409, detail=f"Profile '{body.new_name}' already exists")
    store.profiles[body.new_name] = profile
    del store.profiles[name]
    if store.active_profile == name:
        store.active_profile = body.new_name
    return {"name": body.new_name, "message": f"Profile '{name}' renamed to '{body.new_name}'"}


@router.post("/api/profiles/{name}/activate", summary="Make an LLM profile the active one")
def activate_profile(name: Name, store: Store = Depends(get_store)) -> dict[str, Any]:
    _known(store, name)
    store.active_profile = name
    return {
        "name": name,
        "message": f"Profile '{name}' activated and applied to current settings",
        "llm_applied": True,
    }


def _switch(store: Store, conversation_id: uuid.UUID, name: str, *, app: bool) -> dict:
    info = store.get_conversation(conversation_id.hex)
    if info is None:
        raise HTTPException(status_code=404, detail="Not Found")
    _known(store, name)
    sandbox = store.get_sandbox(info.get("sandbox_id") or "") if app else None
    if sandbox is not None and sandbox.get("status") == "PAUSED":
        raise HTTPException(
            status_code=409, detail="The conversation's sandbox is paused: resume it first."
        )
    store.conversation_profiles[conversation_id.hex] = name
    return {"success": True}


@router.post("/api/conversations/{conversation_id}/switch_profile", summary="Switch its profile")
def switch_profile(
    conversation_id: uuid.UUID, body: SwitchRequest, store: Store = Depends(get_store)
) -> dict[str, Any]:
    return _switch(store, conversation_id, body.profile_name, app=False)


@router.post(
    "/api/v1/app-conversations/{conversation_id}/switch_profile", summary="Switch its profile"
)
def switch_app_profile(
    conversation_id: uuid.UUID, body: SwitchRequest, store: Store = Depends(get_store)
) -> dict[str, Any]:
    return _switch(store, conversation_id, body.profile_name, app=True)


def install(app: FastAPI, protected: list[Any]) -> None:
    app.include_router(router, dependencies=protected)
