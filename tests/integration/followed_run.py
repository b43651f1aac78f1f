"""A run followed live through ohtui's ``EventStream``, on a thread of its own.

The long conversation (over 300 events) takes a dozen seconds to run. The session starts it
early and follows it in the background, so other tests go on meanwhile: ``FollowedRun`` opens
ohtui's stream *before* the first message is sent (every event then arrives live or in the
replay/live overlap, the place where events get lost or doubled), sends the message through
ohtui's ``AgentServerClient``, and keeps every stream item until asked to stop. Tests wait on
``finished`` and then compare what the stream delivered with the server's stored log.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from tui.client import AgentEndpoint, AgentServerClient, EventStream, StreamEvent, StreamStatus
from tui.models import ConversationStateUpdateEvent

ENDED = {"finished", "error", "stuck"}


def endpoint(base_url: str, key: str, cid: str) -> AgentEndpoint:
    ws = base_url.replace("http://", "ws://", 1)
    return AgentEndpoint(
        http_base=base_url, ws_url=f"{ws}/sockets/events/{cid}", conversation_hex=cid, key=key
    )


class FollowedRun:
    """Follow conversation ``cid`` from before ``message`` is sent until ``stop()``."""

    def __init__(self, base_url: str, key: str, cid: str, message: str) -> None:
        self.endpoint = endpoint(base_url, key, cid)
        self.cid = cid
        self.message = message
        self.items: list[StreamEvent] = []
        self.statuses: list[StreamStatus] = []
        self.execution_statuses: list[str] = []  # as the stream told them, in order
        self.error: BaseException | None = None
        self.sent = threading.Event()
        self.ended = threading.Event()  # the stream said the run ended
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stream: EventStream | None = None
        self._thread = threading.Thread(target=self._main, name=f"follow-{cid[:8]}", daemon=True)

    def start(self) -> FollowedRun:
        self._thread.start()
        return self

    def stop(self) -> None:
        loop, stream = self._loop, self._stream
        if loop is not None and stream is not None and not loop.is_closed():
            try:
                asyncio.run_coroutine_threadsafe(stream.close(), loop).result(timeout=10)
            except (RuntimeError, TimeoutError):
                pass
        self._thread.join(timeout=15)

    @property
    def final_status(self) -> str | None:
        return self.execution_statuses[-1] if self.execution_statuses else None

    def _main(self) -> None:
        try:
            asyncio.run(self._follow())
        except BaseException as exc:  # noqa: BLE001 - reported by the tests
            self.error = exc
        finally:
            self.ended.set()  # also on failure: waiters then see ``error``

    def _note(self, item: StreamEvent) -> None:
        event = item.event
        if not isinstance(event, ConversationStateUpdateEvent):
            return
        value: Any = event.value
        if event.key == "full_state" and isinstance(value, dict):
            value = value.get("execution_status")
        elif event.key != "execution_status":
            return
        if isinstance(value, str):
            self.execution_statuses.append(value)
            if self.sent.is_set() and value in ENDED:
                self.ended.set()

    async def _follow(self) -> None:
        self._loop = asyncio.get_running_loop()
        stream = self._stream = EventStream(self.endpoint, max_attempts=5)
        live = asyncio.Event()

        async def send_when_live() -> None:
            await live.wait()
            async with AgentServerClient(self.endpoint) as control:
                await control.send_message(self.message)
            self.sent.set()

        sender = asyncio.create_task(send_when_live())
        try:
            async for item in stream:
                if isinstance(item, StreamStatus):
                    self.statuses.append(item)
                    if item.state == "live":
                        live.set()
                    continue
                self.items.append(item)
                self._note(item)
        finally:
            if not sender.done():
                sender.cancel()
            elif sender.exception() is not None:
                self.error = sender.exception()
