"""Pieces every route module shares: dependencies, auth, parameter types, error shapes."""

from __future__ import annotations

import hmac
import uuid
from enum import Enum
from typing import Annotated, Any

from fastapi import HTTPException, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from tui.models import EVENT_KINDS

from .lifecycle import Lifecycle, LifecycleError
from .records import BadPageId
from .store import Store

#: The ``kind__eq`` enum: exactly the 19 kind names, so anything else is FastAPI's 422.
EventKind = Enum("EventKind", {name: name for name in EVENT_KINDS}, type=str)  # type: ignore[misc]

#: ``limit``: greater than 0, at most 100, default 100 (422 outside).
Limit = Annotated[int, Query(gt=0, le=100)]

#: Request body keys whose values never appear in an error body.
SECRET_KEYS = frozenset({"api_key", "session_api_key", "secret", "secrets", "password", "token"})
MASK = "**********"


def get_store(request: Request) -> Store:
    return request.app.state.store


def get_lifecycle(request: Request) -> Lifecycle:
    return request.app.state.lifecycle


def advanced_lifecycle(request: Request) -> Lifecycle:
    """The lifecycle, with every due transition applied (for control-plane reads)."""
    lifecycle: Lifecycle = request.app.state.lifecycle
    lifecycle.advance()
    return lifecycle


def require_session_key(request: Request) -> None:
    """``X-Session-API-Key: <key>`` or ``Authorization: Bearer <key>`` when a key is set.

    Compared in constant time; the key is never logged or echoed.
    """
    expected: str | None = request.app.state.session_key
    if not expected:
        return
    offered = request.headers.get("x-session-api-key")
    if offered is None:
        scheme, _, token = (request.headers.get("authorization") or "").partition(" ")
        if scheme.lower() == "bearer":
            offered = token.strip()
    if offered is None or not hmac.compare_digest(offered.encode(), expected.encode()):
        raise HTTPException(status_code=401, detail="Unauthorized")


def raise_bad_page_id(exc: BadPageId, value: str, loc: str = "page_id") -> None:
    """A malformed page id is a 422 in FastAPI's own shape, never a 500."""
    raise RequestValidationError(
        [
            {
                "type": "value_error",
                "loc": ("query", loc),
                "msg": f"Value error, {exc}",
                "input": value if len(value) <= 200 else value[:200] + "…",
                "ctx": {"error": str(exc)},
            }
        ]
    )


def raise_http(exc: LifecycleError) -> None:
    raise HTTPException(status_code=exc.status, detail=exc.detail)


def too_many(count: int, maximum: int) -> None:
    """Batch gets answer 400 past their maximum, like the real server."""
    if count > maximum:
        raise HTTPException(status_code=400, detail=f"Too many ids: {count}. Maximum is {maximum}")


def json_text(body: str, status_code: int = 200) -> Response:
    """A response whose body is already JSON text (stored events are spliced in as is)."""
    return Response(content=body, status_code=status_code, media_type="application/json")


def page_body(items: list[str], next_page_id: str | None) -> str:
    nxt = "null" if next_page_id is None else f'"{next_page_id}"'
    return '{"items":[' + ",".join(items) + '],"next_page_id":' + nxt + "}"


def normalize_hex_id(value: str) -> str:
    """A UUID in any accepted spelling as 32 hex digits; anything else unchanged."""
    try:
        return uuid.UUID(value).hex
    except (ValueError, AttributeError, TypeError):
        return value


def strict_hex_id(value: str) -> str:
    """Like :func:`normalize_hex_id`, but a non-UUID is a 400 (app-conversation batch get)."""
    try:
        return uuid.UUID(value).hex
    except (ValueError, AttributeError, TypeError):
        raise HTTPException(status_code=400, detail=f"Invalid UUID: {value[:80]!r}") from None


def _redact(value: Any, depth: int = 0) -> Any:
    if depth > 50:
        return "…"
    if isinstance(value, dict):
        return {
            k: (
                MASK
                if isinstance(k, str) and k.lower() in SECRET_KEYS and v
                else _redact(v, depth + 1)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact(v, depth + 1) for v in value]
    return value


async def validation_error_handler(request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's default 422 body, minus secrets.

    Request bodies may carry API keys (profile validation), and FastAPI echoes the failing
    ``input``: secret-named keys are masked everywhere, and on the profile routes inputs are
    dropped entirely, since a malformed body there could be the key itself.
    """
    errors = []
    hide_input = request.url.path.startswith("/api/profiles")
    for error in exc.errors():
        error = dict(error)
        loc = [str(part).lower() for part in error.get("loc", ())]
        if "input" in error:
            if hide_input or SECRET_KEYS.intersection(loc):
                error["input"] = MASK
            else:
                error["input"] = _redact(error["input"])
        errors.append(error)
    return JSONResponse(status_code=422, content={"detail": jsonable_encoder(errors)})
