"""Loads that outlast outages, listed for the screen to say what is waited for.

The client spends its own quick retries on each request; a load that still fails with a
server or network error is tried again through the client's one patient loop
(``tui.client.backoff.outlast``: the backoff, or the server's ``Retry-After`` up to
``MAX_RETRY_AFTER``), up to :data:`OUTAGE_TRIES` times. The loop keeps each load's
:class:`Waiting` up to date (which try, why, until when); the oldest is
:attr:`PatientLoads.waiting`, for the screen to say.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from tui.client.backoff import (
    MAX_RETRY_AFTER,
    Backoff,
    JitteredBackoff,
    RetryNotice,
    Waiting,
    outlast,
)

#: The client's one backoff policy and patient loop (``tui.client.backoff``), named here
#: for the store.
__all__ = [
    "MAX_RETRY_AFTER",
    "OUTAGE_TRIES",
    "Backoff",
    "JitteredBackoff",
    "PatientLoads",
    "RetryNotice",
    "Waiting",
]

#: Tries of one load through a server or network outage (each try is a whole client call,
#: with its own quick retries) before the failure is shown and the load given up.
OUTAGE_TRIES = 8
T = TypeVar("T")


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
        """``call()``, tried again while the server or network fails (``outlast``), until
        the screen is gone. Listed in :attr:`waiting` meanwhile, as ``what``.

        ``quiet``: no ``on_retry`` notice (the caller shows its own progress)."""
        wait = Waiting(what, self.clock())
        self._waits.append(wait)
        try:
            return await outlast(
                call,
                self.backoff,
                what=what,
                tries=OUTAGE_TRIES,
                on_retry=None if quiet else self.on_retry,
                waiting=wait,
                clock=self.clock,
                stop=lambda: self._closed,
            )
        finally:
            self._waits.remove(wait)
