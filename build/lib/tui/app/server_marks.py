"""What the app is connected to, as one short mark ("agent server 1.58.2") and durations.

The client finds out what kind of server a URL is (``tui.client.kinds``); the lists' titles
and the conversation header say it in a few words, so nobody wonders why a screen
offers sandboxes here and a server screen there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.text import one_line

if TYPE_CHECKING:
    from tui.client import ServerInfo

#: The clock of elapsed times on screen ("starting… 12 s"); tests replace it to draw fixed
#: times. Read through the module (``server_marks.monotonic()``) so a replacement counts.
monotonic: Callable[[], float] = time.monotonic

#: kind → how the mark names it
KIND_MARKS = {"app": "app server", "agent": "agent server", "shared": "shared link"}


def server_mark(info: ServerInfo | None, *, local: bool = False) -> str:
    """``agent server 1.58.2``, ``app server``, ``local folders``; "" while unknown."""
    if local:
        return "local folders"
    if info is None:
        return ""
    mark = KIND_MARKS.get(info.kind, str(info.kind))
    if info.version:
        mark += f" {one_line(info.version, 24)}"
    return mark


def duration(seconds: float | None, units: int = 2) -> str:
    """``3 d 4 h``, ``1 h 36 min``, ``4 min 12 s``, ``12 s``: ``units`` units at most
    (``1 h 36 min 12 s`` with three), from the largest that is not zero."""
    if seconds is None or seconds < 0:
        return "—"
    whole = int(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "min"), (secs, "s")]
    while len(parts) > 1 and parts[0][0] == 0:
        parts.pop(0)
    return " ".join(f"{value} {unit}" for value, unit in parts[:units])


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 sandbox``, ``2 sandboxes``, ``1,204 conversations``."""
    if count == 1:
        return f"1 {word}"
    return f"{count:,} {many or word + 's'}"
