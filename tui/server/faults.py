"""Fault injection: make the reference server fail the way real deployments do.

Real services answer 500 (with or without a body), 429 with ``Retry-After``, 401 when a key
is revoked, hang past a client's timeout, send a truncated JSON page, or hand out a
``next_page_id`` that leads back to a page already seen. Tests queue such faults on a running
server (``app.state.faults``) and check that the client and UI recover with nothing lost;
``ohtui serve --chaos RATE`` injects them at random so the recovery can be watched by hand.

Faults that need the TCP connection itself (a dropped keep-alive connection, a websocket
closed without a close frame, 1006) are made by a loopback proxy in the tests: an ASGI app
cannot abort its own transport.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode

FaultKind = Literal["status", "slow", "malformed", "repeat_page"]

#: what ``--chaos`` picks from, with weights: the faults a flaky deployment shows most
CHAOS_MENU: tuple[tuple[str, int, float], ...] = (
    ("status", 500, 4.0),
    ("status", 502, 1.0),
    ("status", 503, 1.0),
    ("status", 429, 2.0),
    ("slow", 0, 1.0),
    ("malformed", 0, 1.0),
)


@dataclass
class Fault:
    """One fault, hitting the next ``times`` requests whose path starts with ``path``.

    - ``status``: answer ``status`` at once; ``body`` (JSON text or ``None`` for an empty
      body) and ``headers`` (e.g. ``{"retry-after": "1"}``) as given.
    - ``slow``: wait ``delay`` seconds, then answer normally (a timeout on the client side).
    - ``malformed``: answer 200 with a truncated JSON body.
    - ``repeat_page``: drop ``page_id`` from the query, so the first page and its
      ``next_page_id`` come back again (a cursor that loops).
    """

    kind: FaultKind
    path: str = "/"
    times: int = 1  # -1: until cleared
    status: int = 500
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    methods: tuple[str, ...] = ("GET", "POST", "DELETE", "PUT", "PATCH")

    def matches(self, method: str, path: str) -> bool:
        return self.times != 0 and method in self.methods and path.startswith(self.path)


class Faults:
    """The queue of faults of one server; thread-safe (tests add faults from their own thread)."""

    def __init__(
        self, *, chaos_rate: float = 0.0, seed: int = 0, chaos_path: str = "/api/"
    ) -> None:
        self._lock = threading.Lock()
        self._queue: list[Fault] = []
        self.hits: Counter[str] = Counter()
        self.chaos_rate = chaos_rate
        self.chaos_path = chaos_path
        self._rng = random.Random(seed)

    def add(self, kind: FaultKind, path: str = "/", **options: Any) -> Fault:
        fault = Fault(kind, path, **options)
        with self._lock:
            self._queue.append(fault)
        return fault

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()

    @property
    def pending(self) -> int:
        with self._lock:
            return sum(1 for f in self._queue if f.times != 0)

    def take(self, method: str, path: str) -> Fault | None:
        """The fault for this request, if any (counting it down)."""
        with self._lock:
            for fault in self._queue:
                if fault.matches(method, path):
                    if fault.times > 0:
                        fault.times -= 1
                    self._queue = [f for f in self._queue if f.times != 0]
                    self.hits[fault.kind] += 1
                    return fault
            if (
                self.chaos_rate
                and method == "GET"
                and path.startswith(self.chaos_path)
                and self._rng.random() < self.chaos_rate
            ):
                kind, status, _ = self._rng.choices(
                    CHAOS_MENU, weights=[w for *_, w in CHAOS_MENU]
                )[0]
                fault = Fault(
                    kind,
                    path,
                    status=status,
                    delay=3.0,  # type: ignore[arg-type]
                    headers={"retry-after": "1"} if status == 429 else {},
                    body='{"detail": "injected fault"}' if status >= 500 else None,
                )
                self.hits[f"chaos-{kind}"] += 1
                return fault
        return None


class FaultMiddleware:
    """Pure ASGI middleware applying :class:`Faults` to HTTP requests (websockets pass)."""

    def __init__(self, app: Any, faults: Faults) -> None:
        self.app = app
        self.faults = faults

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        fault = self.faults.take(scope["method"], scope["path"])
        if fault is None:
            await self.app(scope, receive, send)
        elif fault.kind == "status":
            body = fault.body.encode() if fault.body is not None else b""
            await _respond(send, fault.status, body, fault.headers)
        elif fault.kind == "slow":
            await asyncio.sleep(fault.delay)
            await self.app(scope, receive, send)
        elif fault.kind == "malformed":
            await _respond(send, 200, b'{"items": [{"kind": "MessageEvent", "id": ', {})
        elif fault.kind == "repeat_page":
            query = [(k, v) for k, v in parse_qsl(scope["query_string"].decode()) if k != "page_id"]
            await self.app({**scope, "query_string": urlencode(query).encode()}, receive, send)


async def _respond(send: Any, status: int, body: bytes, headers: dict[str, str]) -> None:
    raw = [(b"content-length", str(len(body)).encode())]
    if body:
        raw.append((b"content-type", b"application/json"))
    raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
