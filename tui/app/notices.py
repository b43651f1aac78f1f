"""Telling the user when a watched agent needs them: finished, failed, stuck, waiting.

The open conversation (over its stream) and the conversations list (by polling) report
status changes here; a change into one of the configured statuses becomes a notification,
a terminal bell, and optionally a desktop notification. The same change reported twice (by
the list and the stream) is announced once.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .format import status_value

DEFAULT_STATUSES = ("finished", "error", "stuck", "waiting_for_confirmation")
#: status → (what is said, notification severity)
WORDING = {
    "finished": ("finished", "information"),
    "error": ("stopped with an error", "error"),
    "stuck": ("is stuck", "warning"),
    "waiting_for_confirmation": ("waits for your confirmation", "warning"),
    "paused": ("paused", "information"),
    "idle": ("is idle", "information"),
}
REPEAT_S = 30.0  # the same conversation reaching the same status again within this is not news


@dataclass
class Notifier:
    statuses: frozenset[str] = frozenset(DEFAULT_STATUSES)
    bell: bool = True
    desktop: bool = False
    clock: Callable[[], float] = time.monotonic
    _said: dict[tuple[str, str], float] = field(default_factory=dict)

    def notice(
        self, conversation_id: str, title: str, old: object, new: object
    ) -> tuple[str, str] | None:
        """``(message, severity)`` when ``old → new`` is worth telling, else None.

        ``old`` None means the status was not known before (a first load): not a change."""
        before, after = status_value(old), status_value(new)
        if before is None or after is None or before == after or after not in self.statuses:
            return None
        now = self.clock()
        key = (conversation_id, after)
        if now - self._said.get(key, -REPEAT_S * 2) < REPEAT_S:
            return None
        self._said[key] = now
        words, severity = WORDING.get(after, (after, "information"))
        return f"{title}: the agent {words}.", severity


async def desktop_notify(title: str, body: str) -> bool:
    """Best effort ``notify-send``; False where there is none or it fails (never raises)."""
    program = shutil.which("notify-send")
    if program is None:
        return False
    try:
        process = await asyncio.create_subprocess_exec(
            program,
            "--app-name=ohtui",
            title,
            body,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        return await asyncio.wait_for(process.wait(), 5) == 0
    except (TimeoutError, OSError):
        return False
