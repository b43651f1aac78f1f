"""After an event socket dropped: connect again after a backoff, or end the stream.

Apart from the connection loop (``stream.py``) because it is a policy with a memory of its
own: attempts in a row that never went live (they turn the indicator ``offline`` and, with
``max_attempts``, end the stream) and failures since the last connection that stayed up
(they drive the backoff, which starts over after a stable one). The loop tells it when a
connection goes live and asks it what follows each drop; which drops are final and how a
person is told why are ``stream_failures.py``'s table. Drops that are not failures (a frame
over the size limit, a gap fill that failed) are the loop's own: it connects again at once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from .backoff import JitteredBackoff
from .errors import ConnectionLost
from .oversize_frames import mib
from .stream_failures import classify, too_big, why_not_live
from .stream_items import ConnectionState, StreamStatus

log = logging.getLogger("tui.client.stream")


class Reconnects:
    """One stream's reconnects (see the module docstring): ``after(error)`` is the status
    to yield and, unless it is ``failed``, the seconds to wait before the next attempt."""

    def __init__(
        self,
        policy: JitteredBackoff,
        *,
        max_attempts: int | None,
        offline_after: int,
        stable_after: float,
        skim_max: int,
        display_url: str,
        redact: Callable[[str], str],
    ) -> None:
        self.policy = policy
        self.max_attempts = max_attempts
        self.offline_after = offline_after
        self.stable_after = stable_after
        self.skim_max = skim_max
        self.display_url = display_url
        self.redact = redact
        self.failures = 0  # drives the backoff; reset after a stable connection
        self.dead = 0  # attempts in a row that never went live
        self.live_since: float | None = None  # when the current connection went live

    def connecting(self) -> None:
        """An attempt starts: not live (yet)."""
        self.live_since = None

    def went_live(self) -> None:
        self.live_since = time.monotonic()
        self.dead = 0

    def after(self, error: BaseException | None, shown: str) -> tuple[StreamStatus, float]:
        """The status after the connection to ``shown`` ended with ``error``: ``failed``
        (with its exception) when it is final or the attempts ran out, else ``reconnecting``
        or ``offline`` with the backoff's pause, returned beside it unrounded."""
        terminal, reason, code = classify(error, shown, self.redact)
        why = why_not_live(error, code)
        if terminal is None and too_big(error):  # over skim_max too
            why = f"an event over {mib(self.skim_max)} cannot be streamed; reopen to load it"
            terminal = ConnectionLost(f"event stream {shown}: {why}", url=shown, status=code)
        if terminal is not None:
            log.warning("event stream failed: %s", reason)
            failed = StreamStatus(
                "failed", self.dead + 1, reason, code, exception=terminal, why=why
            )
            return failed, 0.0
        if self.live_since is None:
            self.dead += 1
        elif time.monotonic() - self.live_since >= self.stable_after:
            self.failures = 0
        self.failures += 1
        dead = self.dead
        if self.max_attempts is not None and dead >= self.max_attempts:
            failure = ConnectionLost(
                f"event stream {self.display_url}: gave up after {dead} attempt(s): {reason}",
                url=self.display_url,
                status=code,
            )
            log.warning("%s", failure)
            why = f"gave up after {dead} tries: {why}"
            return StreamStatus("failed", dead, reason, code, exception=failure, why=why), 0.0
        delay = self.policy.delay(self.failures)
        state: ConnectionState = "offline" if dead >= self.offline_after else "reconnecting"
        log.info("event stream %s (%s); retry %d in %.2fs", state, reason, dead + 1, delay)
        return StreamStatus(state, dead + 1, reason, code, round(delay, 3), why=why), delay


__all__ = ["Reconnects"]
