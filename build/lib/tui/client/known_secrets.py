"""Every key the clients of this process were given, for text that outlives the call that
made it (the app's log file): the client's own masking, over all its clients at once.

A client masks its own keys in what it raises and logs (``HttpCore.redact_text``); a
traceback written to the log later may hold a key some other way (an exception's words, a
local's repr in a message). Keys are remembered here as each client is made, and
:func:`redact_known` masks them all. Standard library and ``tui.models.redact`` only: the log's
formatter may use it before httpx is imported.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from tui.models.redact import mask_url

MASK = "****"
#: Shorter values are not remembered: masking every "a" or "dev" would garble the whole log
#: and hide nothing a key that short could protect.
MIN_CHARS = 6
_known: set[str] = set()
_lock = threading.Lock()


def remember(values: Iterable[str | None]) -> None:
    """Keys (and other secrets, e.g. an LLM key in agent settings) never to write out."""
    with _lock:
        _known.update(v for v in values if isinstance(v, str) and len(v) >= MIN_CHARS)


def redact_known(text: str) -> str:
    """``text`` with every remembered key masked (longest first), then credentials in URLs."""
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    return mask_url(text)
