"""Fault injection: make the reference server fail the way real deployments do.

Real services answer 500 (with or without a body), 429 with ``Retry-After``, 401 when a key
is revoked, hang past a client's timeout, send a truncated JSON page, or hand out a
``next_page_id`` that leads back to a page already seen. Tests queue such faults on a running
server (``app.state.faults``) and check that the client and UI recover with nothing lost;
``ohtui serve --chaos RATE`` injects them at random so the recovery can be watched by hand.

One fault reaches the TCP connection: ``status_then_close`` answers ``500 text/plain``
without ``Connection: close`` and then the connection is closed, as uvicorn does after an
unhandled error on the real app server (facts §10), so the client's next request on that
pooled connection fails. Here the close comes when that next request arrives (so it fails
every time, not only when it wins a race with the FIN): :class:`CloseDoomedConnections`,
around the whole app (``runner.py``), drops it unanswered. Other connection faults (a
websocket closed without a close frame, 1006) are made by a loopback proxy in the tests.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode

FaultKind = Literal[
    "status", "slow", "hold", "malformed", "repeat_page", "status_then_close", "cut_body"
]

#: How long a connection marked by ``status_then_close`` stays marked (its client port may
#: be reused by a later connection after that).
DOOM_SECONDS = 60.0
#: What :class:`CloseDoomedConnections` returns to uvicorn to make it drop the connection.
CLOSE_CONNECTION = "close the connection"

#: what ``--chaos`` picks from, with weights: the faults a flaky deployment shows most
CHAOS_MENU: tuple[tuple[str, int, float], ...] = (
    ("status", 500, 4.0),
    ("status", 502, 1.0),
    ("status", 503, 1.0),
    ("status", 429, 2.0),
    ("slow", 0, 1.0),
    ("malformed", 0, 1.0),
    ("status_then_close", 500, 1.0),
)


@dataclass
class Fault:
    """One fault, hitting the next ``times`` requests whose path starts with ``path``.

    - ``status``: answer ``status`` at once; ``body`` (JSON text, bytes as they are — a
      gzip bomb with its ``content-encoding`` — or ``None`` for an empty body) and ``headers`` (e.g. ``{"retry-after": "1"}``, a redirect's ``location``, a
      ``content-type`` other than JSON for a login page) as given.
    - ``slow``: wait ``delay`` seconds, then answer normally (a timeout on the client side).
    - ``hold``: wait until the test sets ``gate`` (a ``threading.Event``; at most ``delay``
      seconds, 60 if 0), then answer normally: a request held at a known point, so a test
      can look at what the client shows meanwhile without timing anything.
    - ``malformed``: answer 200 with a truncated JSON body.
    - ``repeat_page``: drop ``page_id`` from the query, so the first page and its
      ``next_page_id`` come back again (a cursor that loops).
    - ``status_then_close``: answer ``status`` (500) as ``text/plain`` ("Internal Server
      Error", or ``body``) without ``Connection: close``, then close the connection: the next
      request on it gets no answer at all.
    - ``cut_body``: answer normally, but stop after half of the body's first chunk, its
      declared length unmet (the server closes the connection): what a sandbox's agent
      server does with a file that changes while it sends it (its own growing log).
    """

    kind: FaultKind
    path: str = "/"
    times: int = 1  # -1: until cleared
    status: int = 500
    body: str | bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    methods: tuple[str, ...] = ("GET", "POST", "DELETE", "PUT", "PATCH")
    gate: threading.Event = field(default_factory=threading.Event)

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
        self._doomed: dict[tuple[str, int], float] = {}

    def doom(self, client: Any) -> None:
        """Close the connection from ``client`` (ASGI ``scope["client"]``) at its next request."""
        if client:
            with self._lock:
                self._doomed[(client[0], client[1])] = time.monotonic() + DOOM_SECONDS

    def doomed(self, client: Any) -> bool:
        """Is this connection to be closed now? (forgets it: one close per mark)"""
        if not client or not self._doomed:
            return False
        with self._lock:
            until = self._doomed.pop((client[0], client[1]), None)
            now = time.monotonic()
            self._doomed = {k: v for k, v in self._doomed.items() if v > now}
        if until is not None and until > now:
            self.hits["closed_connection"] += 1
            return True
        return False

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
            body = fault.body.encode() if isinstance(fault.body, str) else fault.body or b""
            await _respond(send, fault.status, body, fault.headers)
        elif fault.kind == "slow":
            await asyncio.sleep(fault.delay)
            await self.app(scope, receive, send)
        elif fault.kind == "hold":
            await asyncio.to_thread(fault.gate.wait, fault.delay or 60.0)
            await self.app(scope, receive, send)
        elif fault.kind == "malformed":
            await _respond(send, 200, b'{"items": [{"kind": "MessageEvent", "id": ', {})
        elif fault.kind == "status_then_close":
            self.faults.doom(scope.get("client"))  # before the answer: the next request races it
            text = fault.body if fault.body is not None else "Internal Server Error"
            body = text.encode() if isinstance(text, str) else text
            await _respond(
                send, fault.status, body, fault.headers, media=b"text/plain; charset=utf-8"
            )
        elif fault.kind == "cut_body":
            await self.app(scope, receive, _cut_after_half(send))
        elif fault.kind == "repeat_page":
            query = [(k, v) for k, v in parse_qsl(scope["query_string"].decode()) if k != "page_id"]
            await self.app({**scope, "query_string": urlencode(query).encode()}, receive, send)


class CloseDoomedConnections:
    """Outermost ASGI wrapper (around the whole app, given to uvicorn): a request arriving on a
    connection marked by ``status_then_close`` is dropped unanswered, the connection closed.

    How: uvicorn closes the transport when an ASGI callable returns something other than
    None (the same ``transport.close()`` it does after an unhandled error), and only the
    outermost callable's result reaches it; FastAPI's own ``__call__`` returns None.
    """

    def __init__(self, app: Any, faults: Faults) -> None:
        self.app = app
        self.faults = faults

    async def __call__(self, scope: dict, receive: Any, send: Any) -> Any:
        if scope["type"] == "http" and self.faults.doomed(scope.get("client")):
            return CLOSE_CONNECTION
        await self.app(scope, receive, send)
        return None


def with_connection_faults(app: Any) -> Any:
    """``app`` wrapped for the connection faults of its ``app.state.faults`` (if it has any)."""
    faults = getattr(getattr(app, "state", None), "faults", None)
    return CloseDoomedConnections(app, faults) if isinstance(faults, Faults) else app


def _cut_after_half(send: Any) -> Any:
    """``send``, stopping the body after half its first chunk: the response is left
    incomplete, so uvicorn closes the connection once the app returns."""
    cut = False

    async def cutting(message: dict) -> None:
        nonlocal cut
        if message["type"] != "http.response.body":
            await send(message)
        elif not cut:
            cut = True
            body = message.get("body", b"")
            await send({**message, "body": body[: len(body) // 2], "more_body": True})

    return cutting


async def _respond(
    send: Any,
    status: int,
    body: bytes,
    headers: dict[str, str],
    *,
    media: bytes = b"application/json",
) -> None:
    given = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    raw = [(b"content-length", str(len(body)).encode())]
    if body and not any(name == b"content-type" for name, _ in given):
        raw.append((b"content-type", media))  # unless the fault gives its own (an HTML page)
    raw += given
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
