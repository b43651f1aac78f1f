"""One backoff policy and one patient loop for every retry: the request core's quick
retries, the event stream's reconnects, and the longer waits above them (a walk through many
pages, the event store through an outage).

Why one: separate formulas drift apart (one had no jitter), and a caller that wraps the
client's retries in a loop of its own multiplies the requests one call can make. Every
wait here is ``base`` seconds doubling per attempt up to ``cap``, times a random 0.5–1.0
(so clients that failed together do not come back together); a server's ``Retry-After``
overrides it. Callers above the client wait through :func:`outlast`, never a loop of their
own; a screen that says how the wait goes passes a :class:`Waiting` that the loop keeps up
to date.
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
from typing import Protocol, TypeVar

from .errors import is_retryable

log = logging.getLogger("tui.client")

#: Whole calls :func:`outlast` makes by default (each with its own quick retries).
WALK_TRIES = 5
#: The longest pause a server's ``Retry-After`` is waited out for by work that outlasts an
#: outage (:func:`outlast`: the event store, walks through many pages), counted down where a
#: screen shows it. A server asking for longer is not waited for: the failure ends the wait,
#: carrying the pause asked for. The service's spec sets no bound (an OSS app server asks
#: for 1 s); five minutes covers a restart, not a maintenance window.
MAX_RETRY_AFTER = 300.0
#: The longest ``Retry-After`` one call waits out among its own quick retries (the request
#: core, ``http.py``), which nobody sees: a longer one ends the call, so that the patience
#: above it (:func:`outlast`) waits it out where the wait is said and counted down. Not a
#: second bound on what a server may ask (that is :data:`MAX_RETRY_AFTER`): how long one call
#: may sit silent, well inside its deadline.
IN_CALL_RETRY_AFTER = 30.0
T = TypeVar("T")
#: Told before each pause of :func:`outlast`: (the failure, seconds until the next try).
RetryNotice = Callable[[BaseException, float], None]


class Backoff(Protocol):
    """What :func:`outlast` needs of a policy: seconds to wait before retry ``attempt``."""

    def delay(self, attempt: int) -> float: ...


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


@dataclass
class Waiting:
    """One patient call on its way, as :func:`outlast` goes: ``what`` it fetches, since
    when, which try, and (after a failure) why and when it is tried again; times are the
    clock given to :func:`outlast` (``time.monotonic`` unless a test gives its own)."""

    what: str
    since: float
    tries: int = 1
    failure: BaseException | None = None
    retry_at: float | None = None
    asked: bool = False  # the pause is the server's Retry-After, not our backoff


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
    policy: Backoff,
    *,
    what: str = "a request",
    tries: int = WALK_TRIES,
    on_retry: RetryNotice | None = None,
    waiting: Waiting | None = None,
    clock: Callable[[], float] = time.monotonic,
    stop: Callable[[], bool] | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """``await call()``, made again after a pause while the server or the network fails
    (:func:`~tui.client.errors.is_retryable`), up to ``tries`` calls. Each call has spent
    its own quick retries; this is for work that must outlast a restarting server. A
    ``Retry-After`` is waited out when it asks for at most :data:`MAX_RETRY_AFTER`.

    The progress, for a caller that shows it: ``on_retry`` is told of each pause before it
    starts, and ``waiting`` (on ``clock``) holds the try, the failure and when the next try
    is due. ``stop()`` is asked before each pause: True ends the wait with the failure (the
    caller has gone)."""
    for attempt in range(1, tries + 1):
        if waiting is not None:
            waiting.tries, waiting.retry_at = attempt, None
        try:
            return await call()
        except Exception as exc:
            if attempt == tries or not is_retryable(exc) or (stop is not None and stop()):
                raise
            asked = asked_pause(exc)
            if asked is not None and asked > MAX_RETRY_AFTER:
                raise
            delay = asked if asked is not None else policy.delay(attempt)
            log.info("%s failed (%s); trying again in %.1fs", what, exc, delay)
            if waiting is not None:
                waiting.failure, waiting.asked = exc, asked is not None
                waiting.retry_at = clock() + delay
            if on_retry is not None:
                on_retry(exc, delay)
            await sleep(delay)
    raise AssertionError("unreachable")
