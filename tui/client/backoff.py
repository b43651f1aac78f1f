"""One backoff policy for every retry: the request core's quick retries, the event
stream's reconnects, and the longer waits above them (a walk through many pages, the
event store through an outage).

Why one: separate formulas drift apart (one had no jitter), and a caller that wraps the
client's retries in a loop of its own multiplies the requests one call can make. Every
wait here is ``base`` seconds doubling per attempt up to ``cap``, times a random 0.5–1.0
(so clients that failed together do not come back together); a server's ``Retry-After``
overrides it. Callers above the client wait through :func:`outlast`, never a loop of their
own.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TypeVar

from .errors import is_retryable

log = logging.getLogger("tui.client")

#: Whole calls :func:`outlast` makes, and the longest pause a ``Retry-After`` may ask for.
WALK_TRIES = 5
MAX_WALK_WAIT = 120.0
T = TypeVar("T")
#: Told before each pause of :func:`outlast`: (the failure, seconds until the next try).
RetryNotice = Callable[[BaseException, float], None]


@dataclass(frozen=True)
class JitteredBackoff:
    """``base`` seconds doubling per attempt up to ``cap``, times a random 0.5–1.0. The
    defaults are the app's pauses through an outage; the request core and the event stream
    pass their own ``base`` and ``cap``."""

    base: float = 0.25
    cap: float = 4.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (1 = the first retry)."""
        return min(self.cap, self.base * 2 ** max(0, attempt - 1)) * random.uniform(0.5, 1.0)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP-date); None if unusable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - time.time()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def asked_pause(exc: BaseException) -> float | None:
    """The pause a failure's server asked for (``Retry-After`` on a 429 or a 503), if any."""
    asked = getattr(exc, "retry_after", None)
    return float(asked) if isinstance(asked, (int, float)) and asked >= 0 else None


async def outlast(
    call: Callable[[], Awaitable[T]],
    policy: JitteredBackoff,
    *,
    what: str = "a request",
    tries: int = WALK_TRIES,
    max_wait: float = MAX_WALK_WAIT,
    on_retry: RetryNotice | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """``await call()``, made again after a pause while the server or the network fails
    (:func:`~tui.client.errors.is_retryable`), up to ``tries`` calls. Each call has spent
    its own quick retries; this is for work that must outlast a restarting server. A
    ``Retry-After`` is waited out when it asks for at most ``max_wait`` seconds."""
    for attempt in range(1, tries + 1):
        try:
            return await call()
        except Exception as exc:
            if attempt == tries or not is_retryable(exc):
                raise
            asked = asked_pause(exc)
            if asked is not None and asked > max_wait:
                raise
            delay = asked if asked is not None else policy.delay(attempt)
            log.info("%s failed (%s); trying again in %.1fs", what, exc, delay)
            if on_retry is not None:
                on_retry(exc, delay)
            await sleep(delay)
    raise AssertionError("unreachable")
