"""Figures in words: money, token counts, durations, shares (for the view and the report)."""

from __future__ import annotations

UNKNOWN = "—"


def money(cost: float | None) -> str:
    if cost is None:
        return UNKNOWN
    if cost == 0 or cost >= 0.01:
        return f"${cost:,.2f}"
    return f"${cost:.4f}"


def tokens(count: int | None) -> str:
    if count is None:
        return UNKNOWN
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def duration(seconds: float | None) -> str:
    """``12 ms``, ``3.4 s``, ``5 min 02 s``, ``2 h 05 min``, ``3 d 4 h``."""
    if seconds is None:
        return UNKNOWN
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes:02d} min"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h"


def share(part: float | None, whole: float | None) -> str:
    if part is None or not whole:
        return UNKNOWN
    return f"{100 * part / whole:.0f}%"


def rate(value: float | None) -> str:
    return UNKNOWN if value is None else f"{100 * value:.0f}%"


def clock(timestamp: str | None) -> str:
    """``YYYY-MM-DD HH:MM:SS`` of a timestamp as sent (no zone conversion: servers send
    their local time)."""
    if not timestamp:
        return UNKNOWN
    return timestamp[:19].replace("T", " ")


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def every(seconds: int) -> str:
    """A bucket width in words: ``minute``, ``5 minutes``, ``hour``, ``2 days``."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return unit if n == 1 else f"{n} {unit}s"
    return plural(seconds, "second")


def clock_after(start: str | None, offset_s: float, *, seconds: bool = False) -> str:
    """``start`` moved on by ``offset_s``, as ``YYYY-MM-DD HH:MM`` (the timeline's rows),
    ``…:SS`` with ``seconds`` (buckets shorter than a minute, which would read alike)."""
    from datetime import datetime, timedelta

    try:
        moment = datetime.fromisoformat(start or "") + timedelta(seconds=offset_s)
    except (ValueError, OverflowError):
        return UNKNOWN
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
