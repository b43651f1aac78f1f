"""The collector's and the heap's tuning (``tui/memory.py``): a start pauses the collector
and freezes what it built; a helper collects its young generation less often; after a walk
the allocator's free pages go back to the system, now and once more after the next full
collection (where there is a glibc to ask); blocks of a megabyte or more are mapped on
their own, so a 20 MB output freed is given back at once."""

from __future__ import annotations

import gc
import platform
import sys

import pytest

from tui import memory


@pytest.fixture
def collector_restored():
    enabled, threshold = gc.isenabled(), gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    if enabled:
        gc.enable()


def test_a_start_pauses_the_collector_then_freezes_what_it_built(collector_restored):
    memory.pause_collector()
    assert not gc.isenabled()
    built = [object() for _ in range(10)]
    frozen = gc.get_freeze_count()
    memory.started()
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen
    assert built


def test_the_collector_resumes_however_the_start_ended(collector_restored):
    memory.pause_collector()
    memory.resume_collector()
    assert gc.isenabled()


def test_a_helper_freezes_its_imports_and_collects_young_objects_less_often(
    collector_restored,
):
    frozen = gc.get_freeze_count()
    memory.helper_started()
    assert gc.get_freeze_count() > frozen
    assert gc.get_threshold() == memory.HELPER_THRESHOLD


def test_free_memory_is_released_now_and_after_the_next_full_collection(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(memory, "_malloc_trim", lambda: calls.append)
    assert memory.release_free_memory() is True
    assert calls == [0]
    assert memory._collected in gc.callbacks  # told of every collection (a full one of this
    # process's heap takes seconds: the collector's own calls are made here as it makes them)
    memory._collected("stop", {"generation": 1})  # not a full collection: nothing more
    assert calls == [0]
    memory._collected("start", {"generation": 2})
    memory._collected("stop", {"generation": 2})
    assert calls == [0, 0]
    memory._collected("stop", {"generation": 2})  # once
    assert calls == [0, 0]


def test_nothing_is_asked_where_there_is_no_malloc_trim(monkeypatch):
    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)
    assert memory.release_free_memory() is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_glibc_is_asked_for_real():
    memory._malloc_trim.cache_clear()
    trim = memory._malloc_trim()
    assert trim is None or trim(0) in (0, 1)  # musl: None


def test_big_blocks_are_mapped_on_their_own(monkeypatch):
    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(memory, "_mallopt", lambda: lambda *args: asked.append(args) or 1)
    assert memory.map_big_blocks() is True
    assert asked == [(memory._M_MMAP_THRESHOLD, memory.BIG_BLOCK)]
    monkeypatch.setattr(memory, "_mallopt", lambda: None)  # macOS, musl: nothing asked
    assert memory.map_big_blocks() is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_glibc_takes_the_threshold_for_real():
    memory._mallopt.cache_clear()
    assert memory.map_big_blocks() is True
