"""Secret-bearing values masked before anything is shown, logged or exported.

``encrypted_content`` (reasoning ciphertext) and API/session keys must never reach a screen
or a file; the VSCODE exposed URL embeds the sandbox key as ``tkn=``.
"""

from __future__ import annotations

import re
from typing import Any

MASK = "‹redacted›"
SECRET_KEYS = frozenset(
    {
        "encrypted_content",
        "api_key",
        "session_api_key",
        "x-session-api-key",
        "authorization",
        "secret",
        "password",
        "token",
        "access_token",
        "refresh_token",
    }
)
_TOKEN_IN_URL = re.compile(r"([?&](?:tkn|token|session_api_key|api_key)=)[^&#\s]+", re.IGNORECASE)


def mask_url(url: str) -> str:
    """Hide credentials carried in a URL's query string."""
    return _TOKEN_IN_URL.sub(lambda m: m.group(1) + "****", url)


def redact(value: Any, _depth: int = 0) -> Any:
    """A copy of JSON-like data with secret values masked (iterative depth is bounded)."""
    if _depth > 200:
        return "…"
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(key, str) and key.lower() in SECRET_KEYS and item not in (None, ""):
                out[key] = MASK
            else:
                out[key] = redact(item, _depth + 1)
        return out
    if isinstance(value, list):
        return [redact(v, _depth + 1) for v in value]
    if isinstance(value, str) and ("tkn=" in value or "api_key=" in value or "token=" in value):
        return mask_url(value)
    return value
