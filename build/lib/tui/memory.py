"""The garbage collector and the C heap: every place ohtui tunes them is a call into here.

Each measure below stays because a ``python -m bench`` row is worse without it (the pairs
of figures are in ``bench/NOTES.md``); a docstring names its row. Rows, events and widgets
hold no reference cycles that need collecting, so freezing what exists (``gc.freeze``:
later collections scan only what came after) loses nothing. Bottom floor (imports nothing
of ``tui``): the command line, the app, its helper processes and the bundled servers'
child processes all call it.
"""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import Callable

#: live rows after which the newest are frozen too (a full collection then scans at most these)
FREEZE_EVERY = 5_000

#: a helper process's young-generation threshold: a page's objects die by their counts, and
#: the older generations are still collected, only less often (bench: "walk: all 100k events")
HELPER_THRESHOLD = (10_000, 10, 10)

#: Blocks at least this large are mapped on their own and unmapped when freed (see
#: :func:`map_big_blocks`); a page of a hundred usual events stays far below it.
BIG_BLOCK = 1024 * 1024
#: glibc's ``mallopt`` parameter for that size (``M_MMAP_THRESHOLD``).
_M_MMAP_THRESHOLD = -3

_trim_after_collection = False


def pause_collector() -> None:
    """A process starts: its imports (Textual, pydantic's schemas, a server's routes) allocate
    much and free little, and full collections would scan it all again and again (bench:
    "app start → first rows", "ohtui → first paint of the demo"). Ended by :func:`started`."""
    gc.disable()


def started() -> None:
    """The start is over: what it built lives as long as the process, so it is frozen out
    of the collector's sight, and collecting resumes."""
    gc.freeze()
    gc.enable()


def resume_collector() -> None:
    """Collect again however the start ended (a no-op once :func:`started` ran)."""
    gc.enable()


def freeze_long_lived() -> None:
    """Everything alive now is treated as permanent by the collector (a list splice): an
    indexed conversation's rows, a long stream's every :data:`FREEZE_EVERY` rows (bench:
    "live 5,000/s send→screen": full collections froze the screen mid-stream)."""
    gc.freeze()


def helper_started() -> None:
    """A helper process has imported what it needs: those modules stay (frozen), and young
    collections come less often (bench: "walk: all 100k events loaded by the UI")."""
    gc.freeze()
    gc.set_threshold(*HELPER_THRESHOLD)


def map_big_blocks() -> bool:
    """Every block of :data:`BIG_BLOCK` bytes or more gets its own mapping, given back to the
    system the moment it is freed; False where the C library cannot be asked (bench: "big
    payloads": the app's and the folder server's peak RSS with twenty 20 MB outputs).

    Why: glibc raises its mapping threshold to the size of each mapped block freed (up to
    32 MB), so after the first 20 MB output every later one came from the heap, and the
    freed ones stayed resident as holes between live blocks (after twenty of them the
    folder server kept ~95 MB it had freed, the app ~80 MB, and each peaked ~50 MB
    higher). Setting the threshold keeps it fixed."""
    mallopt = _mallopt()
    return mallopt is not None and mallopt(_M_MMAP_THRESHOLD, BIG_BLOCK) == 1


def release_free_memory() -> bool:
    """Return the C allocator's free pages to the system, now and once more after the next
    full collection (what it frees: the pages' reference cycles); False where it cannot be
    asked. After a big walk glibc keeps the freed pages of ~1,000 parsed pages resident
    (bench: "memory: RSS growth with all 100k rows"). Elsewhere (macOS, musl) nothing is done."""
    global _trim_after_collection
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    if _collected not in gc.callbacks:
        gc.callbacks.append(_collected)
    _trim_after_collection = True
    return True


def _collected(phase: str, info: dict) -> None:
    global _trim_after_collection
    if _trim_after_collection and phase == "stop" and info.get("generation") == 2:
        _trim_after_collection = False
        trim = _malloc_trim()
        if trim is not None:
            trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: the command line imports this module before anything else

    try:
        return ctypes.CDLL(None).malloc_trim  # the process's own C library (glibc)
    except (OSError, AttributeError):  # musl has no malloc_trim
        return None


@functools.cache
def _mallopt() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None).mallopt  # glibc's; musl has none
    except (OSError, AttributeError):
        return None
