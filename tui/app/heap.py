"""Give the C allocator's free memory back to the system after a big load.

Walking a 100,000-event log parses ~1,000 pages: their bodies and pydantic's work buffers
are freed, but glibc keeps the freed pages inside its heap (free, yet resident: ~6 MB of
the app's RSS after the walk, on the bench's 100,000 events). ``malloc_trim`` hands them
back. Elsewhere (macOS, musl) there is nothing to call and nothing is done.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable


def release_free_memory() -> bool:
    """Return the allocator's free pages to the system; False where it cannot be asked."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None).malloc_trim  # the process's own C library (glibc)
    except (OSError, AttributeError):  # musl has no malloc_trim
        return None
