"""The keys a request carries, checked once and added per request.

Kept apart from the request core because the event stream and the agent endpoints check
keys too, and a key is a secret even when malformed: no message here ever echoes one.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import httpx

from .errors import InvalidParameter


def check_key(value: Any, name: str) -> str | None:
    """``value`` as a key (None when absent); :class:`InvalidParameter` when it cannot be
    sent as a header value."""
    if value is None or value == "":
        return None
    # The messages never echo the value: it is a secret even when malformed.
    if not isinstance(value, str):
        raise InvalidParameter(f"{name} must be a string")
    if any(ch in value for ch in "\r\n\0") or value != value.strip():
        raise InvalidParameter(f"{name} contains whitespace or control characters")
    return value


class KeyAuth(httpx.Auth):
    """Adds ``Authorization: Bearer`` and/or ``X-Session-API-Key`` to each request (not
    default headers, so the keys are not in the client's header repr)."""

    def __init__(self, api_key: str | None, session_api_key: str | None) -> None:
        self.api_key = check_key(api_key, "api_key")
        self.session_api_key = check_key(session_api_key, "session_api_key")

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers.update(self.headers())
        yield request

    def headers(self) -> dict[str, str]:
        """The keys as request headers (also for requests made outside httpx: the index's
        helper process, ``page_fetch.py``)."""
        headers = {}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if self.session_api_key:
            headers["X-Session-API-Key"] = self.session_api_key
        return headers

    def secrets(self) -> list[str]:
        return [s for s in (self.api_key, self.session_api_key) if s]

    def describe(self) -> str:
        names = [
            n for n, v in (("bearer", self.api_key), ("session-key", self.session_api_key)) if v
        ]
        return "+".join(names) or "none"

    def __repr__(self) -> str:
        return f"KeyAuth({self.describe()})"
