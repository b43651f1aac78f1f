"""Waiting on the real server: poll a condition until it holds, never sleep for a fixed time."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

TIMEOUT = 60.0  # generous: a failing condition fails the test, a passing one returns at once


async def until(check: Callable[[], Awaitable[T]], what: str, timeout: float = TIMEOUT) -> T:
    """Await ``check()`` until it returns something truthy, and return that."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = await check()
        if result:
            return result
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what} (last: {result!r})")
        await asyncio.sleep(0.05)


async def status_in(agent, cid: str, wanted: set[str], timeout: float = TIMEOUT) -> str:
    """Wait until the conversation's REST status is one of ``wanted``."""

    async def check() -> str | None:
        status = await agent.status(cid)
        return status if status in wanted else None

    return await until(check, f"status in {sorted(wanted)}", timeout)


async def until_set(event: threading.Event, what: str, timeout: float = TIMEOUT) -> None:
    """Wait for a ``threading.Event`` another thread sets (a followed run ending)."""

    async def check() -> bool:
        return event.is_set()

    await until(check, what, timeout)
