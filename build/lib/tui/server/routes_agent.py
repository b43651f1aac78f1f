"""Agent-server routes the client uses: profile pre-flight validation, directory creation.

Nothing here reaches a model provider. Profile validation applies offline rules (provider
prefix, URL shape, key shape) and never puts the API key into a response or a log line;
directories live in an in-memory set on the store, and are made for real only inside the
demo's workspace (a temporary folder; ``routes_workspace.py``).
"""

from __future__ import annotations

import logging
import posixpath
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Path
from pydantic import BaseModel, ConfigDict, SecretStr

from .deps import get_store
from .store import Store

log = logging.getLogger("tui.server")

router = APIRouter(tags=["Agent server"])

PROFILE_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class LLMConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    model: str | None = None
    api_key: SecretStr | None = None
    base_url: str | None = None


class ValidateProfileRequest(LLMConfig):
    """``{model, api_key?, base_url?}``, or the agent server's ``{"llm": {...}}`` form."""

    llm: LLMConfig | None = None


def _problems(model: str | None, api_key: str | None, base_url: str | None) -> list[dict[str, str]]:
    errors = []
    if not model or not model.strip():
        errors.append({"type": "missing_model", "message": "No model is configured."})
    elif "/" not in model.strip("/"):
        errors.append(
            {
                "type": "invalid_model",
                "message": "The model needs a provider prefix, e.g. 'anthropic/claude-sonnet-4-5'.",
            }
        )
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        errors.append(
            {
                "type": "invalid_base_url",
                "message": "The base URL must start with http:// or https://.",
            }
        )
    if api_key is not None and (len(api_key.strip()) < 8 or any(c.isspace() for c in api_key)):
        errors.append(
            {"type": "authentication_error", "message": "The provider rejected the API key."}
        )
    return errors


@router.post("/api/profiles/{name}/validate", summary="Pre-flight check of an LLM profile")
def validate_profile(
    name: Annotated[str, Path(min_length=1, max_length=64, pattern=PROFILE_NAME)],
    body: Annotated[ValidateProfileRequest | None, Body()] = None,
    store: Store = Depends(get_store),
) -> dict[str, Any]:
    """Validate the submitted config, or the stored profile ``name`` when no body is sent."""
    if body is not None and body.llm is not None:
        config = body.llm
    elif body is not None and (body.model or body.api_key or body.base_url):
        config = body
    else:
        stored = store.profiles.get(name)
        if stored is None:
            raise HTTPException(status_code=404, detail=f"Profile not found: {name}")
        config = LLMConfig(**stored)
    key = config.api_key.get_secret_value() if config.api_key is not None else None
    errors = _problems(config.model, key, config.base_url)
    log.info(
        "profile %s validated: valid=%s model=%s errors=%s",
        name,
        not errors,
        config.model,
        [e["type"] for e in errors],
    )
    return {
        "valid": not errors,
        "name": name,
        "model": config.model,
        "errors": errors,
        "error": errors[0] if errors else None,
    }


class CreateDirectoryRequest(BaseModel):
    path: str


def _create_directory(store: Store, path: str) -> dict[str, Any]:
    if not path or not path.strip():
        raise HTTPException(status_code=400, detail="path must not be empty")
    if ".." in path.replace("\\", "/").split("/"):
        raise HTTPException(status_code=400, detail="path must not contain '..'")
    if "\x00" in path:
        raise HTTPException(status_code=400, detail="path must not contain NUL")
    normal = posixpath.normpath(path if path.startswith("/") else "/workspace/project/" + path)
    from .routes_workspace import make_directory

    make_directory(store, normal)  # for real inside the demo's workspace
    parts = normal.strip("/").split("/")
    for depth in range(1, len(parts) + 1):
        store.directories.add("/" + "/".join(parts[:depth]))
    return {"success": True, "path": normal}


@router.post("/api/file/create_directory", summary="Create a directory (in memory)")
@router.post("/file/create_directory", include_in_schema=False)
def create_directory(
    path: str | None = None,
    body: Annotated[CreateDirectoryRequest | None, Body()] = None,
    store: Store = Depends(get_store),
) -> dict[str, Any]:
    """Accepts ``{"path": ...}`` as a body or ``?path=`` (the agent server's form)."""
    wanted = body.path if body is not None else path
    if wanted is None:
        raise HTTPException(status_code=400, detail="path is required")
    return _create_directory(store, wanted)
