"""All live conversations of one app, bound to the event loop uvicorn runs it in."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hmac
import json
import logging
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

from ..demo.agent_scripts import Fail
from ..demo.events_builder import text
from ..lifecycle import Lifecycle
from ..store import Store
from .autoplay import play_loop, play_stories
from .conversation import LiveConversation
from .errors import ConversationNotFound, LiveError
from .frames import Close
from .state import dashed
from .swarm import play_agent
from .webhook import WebhookCopy

log = logging.getLogger("tui.server.live")

T = TypeVar("T")

#: At most this many websocket subscribers per conversation (the agent server's limit).
MAX_SUBSCRIBERS = 50


class LiveHub:
    """All live conversations of one app, bound to the event loop uvicorn runs it in."""

    def __init__(
        self,
        store: Store,
        lifecycle: Lifecycle,
        *,
        pace: float | None = None,
        autoplay: Iterable[str] = (),
        looping: Iterable[str] = (),
        auth_timeout: float = 10.0,
        max_subscribers: int = MAX_SUBSCRIBERS,
        session_key: str | None = None,
        store_transient: bool = False,
        swarm: Iterable[str] = (),
        webhook_batch: int | None = None,
    ) -> None:
        """``store_transient``: runs also store their StreamingDeltaEvents and ``full_state``
        updates in the searchable history (the real app server does, facts §10).
        ``swarm``: conversations each played as one agent of many (``swarm.py``).
        ``webhook_batch``: the app server's stored copy of a live run's events is filled
        this many at a time, the rest on :meth:`flush_webhook_sync` (``webhook.py``)."""
        self.store = store
        self.lifecycle = lifecycle
        self.clock = lifecycle.clock
        self.pace = None if pace is None else max(0.0, pace)
        self.autoplay_ids = [str(cid) for cid in autoplay]
        self.looping_ids = [str(cid) for cid in looping]
        self.swarm_ids = [str(cid) for cid in swarm]
        self.auth_timeout = auth_timeout
        self.max_subscribers = max_subscribers
        self.session_key = session_key
        self.store_transient = store_transient
        self.webhook = WebhookCopy(webhook_batch)
        self.conversations: dict[str, LiveConversation] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        lifecycle.listeners.append(self.notify)

    # -- loop binding and thread-safe entry points ------------------------------------------

    def bind(self) -> None:
        """Remember the running loop (called on startup and by every async route)."""
        loop = asyncio.get_running_loop()
        if self.loop is None or self.loop.is_closed():
            self.loop = loop

    @property
    def bound(self) -> bool:
        return self.loop is not None and self.loop.is_running() and not self.loop.is_closed()

    def call(self, make: Callable[[], Coroutine[Any, Any, T]], timeout: float = 10.0) -> T:
        """Run a coroutine in the hub's loop from another thread and wait for its result."""
        if not self.bound:
            raise RuntimeError("the live hub is not running in an event loop")
        assert self.loop is not None
        future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(make(), self.loop)
        return future.result(timeout)

    def notify(self, kind: str, subject_id: str, **data: Any) -> None:
        """Lifecycle listener: hands the news to the loop, never blocks."""
        if self.bound:
            assert self.loop is not None
            self.loop.call_soon_threadsafe(self._spawn, self._on_change(kind, subject_id, **data))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _on_change(self, kind: str, subject_id: str, **data: Any) -> None:
        try:
            if kind in ("sandbox_paused", "sandbox_deleted"):
                reason = "Sandbox paused" if kind == "sandbox_paused" else "Sandbox deleted"
                for conv in self._on_sandbox(subject_id):
                    await conv.freeze(Close(1001, reason))
            elif kind == "sandbox_running":
                for conv in self._on_sandbox(subject_id):
                    conv.thaw()
            elif kind == "conversation_started" and data.get("run"):
                conv = self.get(subject_id)
                if conv is not None:
                    await conv.run()
            elif kind == "conversation_deleted":
                await self.forget(subject_id)
        except LiveError:
            pass
        except Exception:
            log.exception("live hub: handling %s %s failed", kind, subject_id)

    async def forget(self, conversation_id: str) -> None:
        """The conversation was deleted: close its followers, stop its run."""
        conv = self.conversations.pop(conversation_id, None)
        if conv is not None:
            conv.close_all(Close(1001, "Conversation deleted"))
            await conv._cancel_runner()

    def _on_sandbox(self, sandbox_id: str) -> list[LiveConversation]:
        return [c for c in self.conversations.values() if c.sandbox_id == sandbox_id]

    # -- conversations ----------------------------------------------------------------------

    def get(self, conversation_id: str) -> LiveConversation | None:
        conv = self.conversations.get(conversation_id)
        if conv is None:
            info = self.store.get_conversation(conversation_id)
            if info is None:
                return None
            conv = self.conversations[conversation_id] = LiveConversation(
                self, conversation_id, info
            )
            conv.ensure_runner()  # a conversation stored as running goes on (with a pace)
        return conv

    def require(self, conversation_id: str) -> LiveConversation:
        conv = self.get(conversation_id)
        if conv is None:
            raise ConversationNotFound(f"Conversation not found: {dashed(conversation_id)}")
        return conv

    def accepted_keys(self, info: dict[str, Any] | None) -> list[str]:
        """Keys the agent-server routes accept: the sandbox's key and the app's global key."""
        keys = []
        if info is not None and info.get("sandbox_id"):
            sandbox = self.store.get_sandbox(info["sandbox_id"])
            if sandbox and sandbox.get("session_api_key"):
                keys.append(sandbox["session_api_key"])
        if self.session_key:
            keys.append(self.session_key)
        return keys

    @staticmethod
    def key_ok(offered: str | None, keys: list[str]) -> bool:
        if not keys:
            return True
        if not isinstance(offered, str):
            return False
        return any(hmac.compare_digest(offered.encode(), key.encode()) for key in keys)

    # -- app lifetime -----------------------------------------------------------------------

    async def startup(self) -> None:
        self.bind()
        if self.pace is None:
            return
        for cid in self.looping_ids:
            self._spawn(play_loop(self, cid))
        for cid in self.autoplay_ids:
            self._spawn(play_stories(self, cid))
        for index, cid in enumerate(self.swarm_ids):
            self._spawn(play_agent(self, cid, index))
        for conv in list(self.conversations.values()):
            conv.ensure_runner()

    async def shutdown(self) -> None:
        for conv in list(self.conversations.values()):
            conv.close_all(Close(1001, "Server shutting down"))
            await conv._cancel_runner()
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    # -- helpers for tests and tools (call from any thread but the loop's) --------------------

    def step_sync(
        self, conversation_id: str, steps: int = 1, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        """Advance a running conversation ``steps`` steps; returns the frames sent, decoded."""

        async def go() -> list[str]:
            conv = self.require(conversation_id)
            frames: list[str] = []
            for _ in range(steps):
                frames += await conv.step()
            return frames

        return [json.loads(f) for f in self.call(go, timeout)]

    def run_until_idle_sync(
        self, conversation_id: str, max_steps: int = 500, timeout: float = 30.0
    ) -> list[dict[str, Any]]:
        """Step until the conversation is no longer running; returns every frame sent."""

        async def go() -> list[str]:
            conv = self.require(conversation_id)
            frames: list[str] = []
            for _ in range(max_steps):
                if conv.status != "running":
                    break
                frames += await conv.step()
            return frames

        return [json.loads(f) for f in self.call(go, timeout)]

    def flush_webhook_sync(self, conversation_id: str) -> None:
        """The webhook's idle flush: the app server's copy gets the rest of the log."""

        async def go() -> None:
            self.webhook.flush(conversation_id, self.store.last_seq(conversation_id))

        self.call(go)

    def status_sync(self, conversation_id: str) -> str:
        async def go() -> str:
            return self.require(conversation_id).status

        return self.call(go)

    def fail_sync(self, conversation_id: str, fail: Fail | None = None) -> None:
        """Make the conversation's next step fail with a ConversationErrorEvent."""
        self.call(lambda: self.require(conversation_id).fail(fail))

    def send_message_sync(
        self, conversation_id: str, message: str, *, run: bool = True, script: str | None = None
    ) -> str:
        return self.call(
            lambda: self.require(conversation_id).send_message(
                [text(message)], run=run, script=script
            )
        )
