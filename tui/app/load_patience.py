"""Loads that outlast outages: how long to wait before trying again, and what is waited for.

The client spends its own quick retries on each request; a load that still fails with a
server or network error (``is_retryable``) is tried again after the backoff
(:class:`JitteredBackoff`), or after the server's ``Retry-After`` (up to
:data:`MAX_RETRY_AFTER`), up to :data:`OUTAGE_TRIES` times. What is being waited for, since
when and until when, is in :attr:`PatientLoads.waiting` for the screen to say.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from tui.client import JitteredBackoff, is_retryable

#: The client's one backoff policy (``tui.client.backoff``), named here for the store.
__all__ = [
    "MAX_RETRY_AFTER",
    "OUTAGE_TRIES",
    "Backoff",
    "JitteredBackoff",
    "PatientLoads",
    "RetryNotice",
    "Waiting",
    "retry_after",
]

#: Tries of one load through a server or network outage (each try is a whole client call,
#: with its own quick retries) before the failure is shown and the load given up.
OUTAGE_TRIES = 8
#: The longest pause a server's ``Retry-After`` gets (a longer one is waited this long).
MAX_RETRY_AFTER = 300.0
T = TypeVar("T")


class Backoff(Protocol):
    """What the store needs of a backoff policy: seconds to wait before retry ``attempt``."""

    def delay(self, attempt: int) -> float: ...


#: Told when a load failed and will be tried again: (the failure, seconds until the next try).
RetryNotice = Callable[[BaseException, float], None]


@dataclass
class Waiting:
    """One load on its way: ``what`` it fetches, since when, and (after a failure) why and
    when it is tried again; times are the store's clock (``time.monotonic``)."""

    what: str
    since: float
    tries: int = 1
    failure: BaseException | None = None
    retry_at: float | None = None
    asked: bool = False  # the pause is the server's Retry-After, not our backoff


def retry_after(exc: BaseException) -> float | None:
    """The pause a failure's server asked for (``Retry-After`` on a 429 or a 503), if any."""
    asked = getattr(exc, "retry_after", None)
    return float(asked) if isinstance(asked, (int, float)) and asked >= 0 else None


class PatientLoads:
    """Part of :class:`~.conversation_events.ConversationEvents`: loads tried through outages."""

    clock: Callable[[], float]
    backoff: Backoff
    on_retry: RetryNotice | None
    _waits: list[Waiting]
    _closed: bool

    @property
    def waiting(self) -> Waiting | None:
        """The oldest load still on its way (None: nothing is being waited for)."""
        return self._waits[0] if self._waits else None

    async def _tracked(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        """``await call()`` listed in :attr:`waiting` meanwhile (one try, no patience)."""
        wait = Waiting(what, self.clock())
        self._waits.append(wait)
        try:
            return await call()
        finally:
            self._waits.remove(wait)

    async def _patiently(
        self, call: Callable[[], Awaitable[T]], *, quiet: bool = False, what: str = "events"
    ) -> T:
        """``call()``, tried again while the server or network fails: after the server's
        ``Retry-After`` when it gave one (up to :data:`MAX_RETRY_AFTER`), else the backoff.
        Listed in :attr:`waiting` meanwhile, as ``what``.

        ``quiet``: no ``on_retry`` notice (the caller shows its own progress)."""
        wait = Waiting(what, self.clock())
        self._waits.append(wait)
        try:
            for attempt in range(1, OUTAGE_TRIES + 1):
                wait.tries = attempt
                try:
                    return await call()
                except Exception as exc:
                    if not is_retryable(exc) or attempt == OUTAGE_TRIES or self._closed:
                        raise
                    asked = retry_after(exc)
                    delay = (
                        min(asked, MAX_RETRY_AFTER)
                        if asked is not None
                        else self.backoff.delay(attempt)
                    )
                    wait.failure, wait.asked = exc, asked is not None
                    wait.retry_at = self.clock() + delay
                    if not quiet and self.on_retry is not None:
                        self.on_retry(exc, delay)
                    await asyncio.sleep(delay)
                    wait.retry_at = None
            raise AssertionError("unreachable")
        finally:
            self._waits.remove(wait)
