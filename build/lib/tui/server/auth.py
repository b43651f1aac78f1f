"""Who may ask: the session key every protected route requires.

Compared in constant time; the key is never logged or echoed.
"""

from __future__ import annotations

import hmac

from fastapi import HTTPException, Request


def offered_key(request: Request) -> str | None:
    """``X-Session-API-Key: <key>``, else ``Authorization: Bearer <key>``, else None."""
    offered = request.headers.get("x-session-api-key")
    if offered is None:
        scheme, _, token = (request.headers.get("authorization") or "").partition(" ")
        if scheme.lower() == "bearer":
            offered = token.strip()
    return offered


def key_matches(offered: str | None, expected: str) -> bool:
    return offered is not None and hmac.compare_digest(offered.encode(), expected.encode())


def require_session_key(request: Request) -> None:
    """A route dependency: 401 unless the app's session key (when one is set) was offered."""
    expected: str | None = request.app.state.session_key
    if expected and not key_matches(offered_key(request), expected):
        raise HTTPException(status_code=401, detail="Unauthorized")
