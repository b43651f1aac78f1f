"""After a walk the allocator's free pages go back to the system, now and once more after
the next full collection (where there is a glibc to ask)."""

from __future__ import annotations

import gc
import sys

import pytest

from tui.app import heap


def test_free_memory_is_released_now_and_after_the_next_full_collection(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(heap, "_malloc_trim", lambda: calls.append)
    assert heap.release_free_memory() is True
    assert calls == [0]
    gc.collect(1)  # not a full collection: nothing more
    assert calls == [0]
    gc.collect()
    assert calls == [0, 0]
    gc.collect()  # once
    assert calls == [0, 0]


def test_nothing_is_asked_where_there_is_no_malloc_trim(monkeypatch):
    monkeypatch.setattr(heap, "_malloc_trim", lambda: None)
    assert heap.release_free_memory() is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_glibc_is_asked_for_real():
    heap._malloc_trim.cache_clear()
    trim = heap._malloc_trim()
    assert trim is None or trim(0) in (0, 1)  # musl: None
