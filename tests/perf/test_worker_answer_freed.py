"""An answer from the helper process is freed once it has been taken, without waiting for
a garbage collection: a page batch kept by a reference cycle (the answered future → its
callback → a closure over the future) lived until a full collection, or for good once the
app froze the heap (gc.freeze) after the walk: 2–4 MB of a 100,000-event walk."""

from __future__ import annotations

import asyncio
import gc
import weakref
from concurrent.futures import Future

import pytest

from tui.client.process_worker import answer


class _Batch:
    """Stands for a batch of pages (lists cannot be weakly referenced)."""


async def _a_loop_turn() -> None:
    """Let the loop run the callbacks it holds (the handed-over answer's among them)."""


async def test_an_answer_is_freed_once_taken_without_a_collection():
    future: Future[_Batch] = Future()
    batch = _Batch()
    gone = weakref.ref(batch)
    gc.disable()
    try:
        # answered while awaited, as the helper's reader thread answers
        asyncio.get_running_loop().call_soon(future.set_result, batch)
        del batch
        taken = await answer(future)
        assert gone() is taken
        del taken, future
        await asyncio.create_task(_a_loop_turn())
        assert gone() is None  # freed by reference counting alone: no cycle held it
    finally:
        gc.enable()


async def test_a_failed_answer_still_raises():
    future: Future[int] = Future()
    asyncio.get_running_loop().call_soon(future.set_exception, RuntimeError("helper failed"))
    with pytest.raises(RuntimeError, match="helper failed"):
        await answer(future)
