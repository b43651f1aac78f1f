"""Give the C allocator's free memory back to the system after a big load.

Walking a 100,000-event log parses ~1,000 pages: their bodies and pydantic's work buffers
are freed, but glibc keeps the freed pages inside its heap (free, yet resident). So does
what the next full garbage collection frees (the requests' reference cycles): ~10 MB of
the app's RSS after the bench's 100,000 events. ``malloc_trim`` hands them back (~1 ms),
now and once more after that collection. Elsewhere (macOS, musl) nothing is done.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import sys
from collections.abc import Callable

_after_collection = False


def release_free_memory() -> bool:
    """Return the allocator's free pages to the system, now and after the next full
    collection; False where it cannot be asked."""
    global _after_collection
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    if _collected not in gc.callbacks:
        gc.callbacks.append(_collected)
    _after_collection = True
    return True


def _collected(phase: str, info: dict) -> None:
    global _after_collection
    if _after_collection and phase == "stop" and info.get("generation") == 2:
        _after_collection = False
        trim = _malloc_trim()
        if trim is not None:
            trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim  # the process's own C library (glibc)
    except (OSError, AttributeError):  # musl has no malloc_trim
        return None
