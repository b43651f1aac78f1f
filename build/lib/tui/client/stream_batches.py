"""Items of an async source in lists, at most one list per ``interval``.

Why a module of its own: a Textual worker repaints once per list (every ~50 ms), not once
per event, and the timing must never cancel a pending read (cancelling a websocket read
ends the stream), so reading runs in a helper task that fills a queue.

Why the interval runs from the previous list, not from a list's first item: an event after
a quiet spell is handed over at once (not 50 ms later), and in a steady stream an item
waits at most ``interval`` — counted from its list's first item, the items that came while
the consumer worked on the previous list waited that work and then the whole interval.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from .errors import InvalidParameter

log = logging.getLogger("tui.client.stream")
T = TypeVar("T")


async def batched(
    source: AsyncIterable[T],
    close: Callable[[], Awaitable[None]],
    interval: float = 0.05,
    max_items: int = 1000,
    name: str = "event-stream",
) -> AsyncIterator[list[T]]:
    """``source``'s items in lists: each list holds what arrived until ``interval`` seconds
    after the previous list was handed over (at once after a quiet spell; at most
    ``max_items``). Leaving the loop (or cancelling it) calls ``close`` (which must end
    ``source``) and waits for the helper task."""
    if not isinstance(interval, (int, float)) or interval < 0:
        raise InvalidParameter("interval must be a non-negative number of seconds")
    if isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 1:
        raise InvalidParameter("max_items must be a positive integer")
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=max_items * 4)
    done = object()

    async def pump() -> None:
        try:
            async for item in source:
                await queue.put(item)
        except Exception as exc:  # noqa: BLE001 - handed to the consumer below
            await queue.put(exc)
        await queue.put(done)

    task = asyncio.create_task(pump(), name=f"{name}-pump")
    loop = asyncio.get_running_loop()
    handed = -math.inf  # loop time the previous list was handed over
    try:
        while True:
            item = await queue.get()
            batch: list[T] = []
            deadline = handed + interval
            while True:
                if item is done:
                    if batch:
                        yield batch
                    return
                if isinstance(item, BaseException):
                    if batch:
                        yield batch
                    raise item
                batch.append(item)
                if len(batch) >= max_items:
                    break
                try:
                    item = queue.get_nowait()
                    continue
                except asyncio.QueueEmpty:
                    pass
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                try:
                    item = await asyncio.wait_for(queue.get(), remaining)
                except TimeoutError:
                    break
            handed = loop.time()
            yield batch
    finally:
        await close()
        if not task.done():
            task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
        except Exception as exc:  # noqa: BLE001 - already handed over through the queue
            log.debug("%s pump ended with %s", name, type(exc).__name__)
