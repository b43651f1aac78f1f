"""``EventStream``: a reconnecting subscriber of an agent server's ``/sockets/events/{id}``.

Usage (one consumer per stream)::

    async with EventStream(endpoint) as stream:          # or client.event_stream()
        async for item in stream:                         # StreamEvent | StreamStatus
            state.apply(item)                             # StreamState (stream_state.py)

or, in a Textual worker that repaints every ~50 ms, ``async for batch in
stream.batches(0.05): ...`` (lists of items). Do not wrap ``__anext__`` in
``asyncio.wait_for``: cancelling a pending item ends the stream (that is how cancellation
safety works); :meth:`EventStream.batches` is the timed way.

Items
  :class:`StreamEvent` — one event (``parse_event``: invalid frames become ``RawEvent``,
  nothing is dropped except exact duplicates). ``replaces=True`` means an event with this id
  was yielded before and this copy (which carries ``parent_id``) supersedes it.
  ``transient=True`` marks frames the server never persists: the ``full_state`` snapshot,
  ``StreamingDeltaEvent`` and ``ServerErrorEvent``; they are passed through as they come.

  :class:`StreamStatus` — the connection: ``connecting`` (first attempt), ``live`` (the
  server has spoken: first frame received, or the socket stayed open for ``live_grace``
  seconds after auth), ``reconnecting`` (dropped; ``retry_in`` seconds until attempt
  ``attempt``), ``offline`` (the same, once ``offline_after`` attempts in a row never went
  live), ``failed`` (terminal; the stream ends).

Policy (facts §5, §6)
  * First connection: ``resend_mode=all`` (or ``since`` with ``after_timestamp`` when the
    caller passes ``since``). Auth by first frame ``{"type": "auth", "session_api_key": …}``
    by default, so the key never appears in a URL or a log line; ``auth="header"`` sends
    ``X-Session-API-Key``; ``auth="query"`` (the frontend's way) only when asked for.
  * De-duplication by event id across replays and reconnects. A later copy that carries
    ``parent_id`` replaces an earlier one without it (live hook events arrive without it;
    their persisted copies have one). Transient frames and id-less frames skip dedup.
  * Any drop (close 1000/1001/1006/1011/1012/1013…, network errors, handshake 408/429/5xx,
    open timeout) is retried with exponential backoff and jitter (``backoff_base`` doubling
    up to ``backoff_max``, times a random 0.5–1.0). The backoff restarts after a connection
    that stayed up ``stable_after`` seconds. ``max_attempts`` (None = forever) bounds the
    attempts in a row that never went live; then ``failed`` with :class:`ConnectionLost`.
  * Reconnects fill the gap with ``resend_mode=since&after_timestamp=<newest persisted
    timestamp seen − resume_margin>``. The margin (default 60 s) is there because log order
    is not timestamp order: a stats update can be logged after events with later
    timestamps (facts §1c), and ``since`` is a string ``≥`` on naive timestamps. The
    overlap comes back as duplicates, which dedup removes. ``resume_margin=None`` repeats
    the first connection's query instead (full replay).
  * A frame over ``max_size`` (16 MiB) is not a reason to reconnect forever: the next
    connection reads frames up to ``skim_max`` (128 MiB) and any frame over ``max_size``
    becomes a placeholder :class:`RawEvent` (``reason`` :data:`OVERSIZE`, its id, kind and
    time read from the frame's ends) that the app fetches by id over REST; the rest of
    the frame is never parsed. A frame over ``skim_max`` ends the stream with ``failed``,
    saying so. Every status carries ``why``: the reason in a few words for the header
    ("the server refused the key (4001)", "server busy (1013: …)").
  * Not retried, ending the stream with ``failed``: close 4001 and handshake 401/403 →
    :class:`AuthError`; close 4004 and handshake 404 → :class:`NotFound`; other handshake
    4xx (and refused redirects) → :class:`HTTPStatusError`; TLS certificate failure →
    :class:`ConnectionLost`. The exception is ``status.exception`` and
    :attr:`EventStream.failure`; it is raised from the iterator after the ``failed`` item
    only with ``raise_on_failure=True``.

Keys never reach a status, an exception, a ``repr`` or a log line: websockets' own debug
log (which prints request lines, headers and frames) goes through a redacting adapter.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import ssl
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, Self
from urllib.parse import urlencode

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.protocol import State

from tui.models import ConversationStateUpdateEvent, StreamingDeltaEvent
from tui.models.events import ServerErrorEvent
from tui.models.parse import AnyEvent, RawEvent, parse_event_json, raw_event
from tui.models.redact import mask_url

from . import params as P
from .agent import AgentEndpoint
from .errors import (
    AuthError,
    ConnectionLost,
    HTTPStatusError,
    InvalidParameter,
    NotFound,
    OpenHandsError,
)
from .http import _check_key

log = logging.getLogger("tui.client.stream")

StreamState_ = Literal["connecting", "live", "reconnecting", "offline", "failed"]
AuthMode = Literal["message", "header", "query"]

#: Close codes that end the stream instead of reconnecting.
TERMINAL_CLOSE_CODES: Mapping[int, type[OpenHandsError]] = {4001: AuthError, 4004: NotFound}
#: Handshake statuses worth another attempt (proxies answer these while a sandbox starts).
RETRY_HANDSHAKE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
MIB = 1024 * 1024
_MASK = "****"
#: The reason of a placeholder for a frame over the stream's size limit.
OVERSIZE = "too large for the live stream"
#: Close code a client sends when a message is over its limit.
MESSAGE_TOO_BIG = 1009
#: Characters read at each end of an oversize frame for its id, kind and time.
_ENDS = 65_536
_WANTED = frozenset({"id", "timestamp", "parent_id", "source", "kind"})
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_STRING_VALUE = re.compile(r'\s*:\s*("(?:[^"\\]|\\.){0,400}")')
_PARENT = re.compile(r'"parent_id"\s*:\s*("(?:[^"\\]|\\.){0,400}")')
_LAST_KIND = re.compile(r'"kind"\s*:\s*("(?:[^"\\]|\\.){0,400}")\s*}\s*$')
_CLOSE_WORDS = {
    1000: "closed by the server",
    1001: "the server is going away",
    1006: "the connection dropped",
    1011: "server error",
    1012: "the server is restarting",
    1013: "server busy",
}


# --- items ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One event from the socket (see the module doc for ``replaces`` and ``transient``)."""

    event: AnyEvent
    replaces: bool = False
    transient: bool = False

    @property
    def id(self) -> str | None:
        return self.event.id


@dataclass(frozen=True, slots=True)
class StreamStatus:
    """The connection's state, for a live/reconnecting/offline indicator.

    ``attempt``: for ``reconnecting``/``offline``, the number of the next attempt in the
    current outage (1 = first retry after a live connection dropped); for ``failed``, the
    attempts made; 0 otherwise. ``error`` is a redacted one-line reason.
    """

    state: StreamState_
    attempt: int = 0
    error: str | None = None
    close_code: int | None = None
    retry_in: float | None = None
    exception: OpenHandsError | None = field(default=None, compare=False)
    #: why it is not live, in a few words for a status line (None while live)
    why: str | None = field(default=None, compare=False)


StreamItem = StreamEvent | StreamStatus


# --- classification ------------------------------------------------------------------------


def _raw_field(event: AnyEvent, name: str) -> Any:
    raw = event.raw if isinstance(event, RawEvent) else None
    return raw.get(name) if isinstance(raw, dict) else None


def is_transient(event: AnyEvent) -> bool:
    """True for frames the server never persists: ``full_state`` snapshots, streaming
    deltas and ``ServerErrorEvent`` replies (facts §6)."""
    if isinstance(event, (StreamingDeltaEvent, ServerErrorEvent)):
        return True
    if isinstance(event, ConversationStateUpdateEvent):
        return event.key == "full_state"
    if isinstance(event, RawEvent):
        kind = event.kind
        if kind in ("StreamingDeltaEvent", "ServerErrorEvent"):
            return True
        return kind == "ConversationStateUpdateEvent" and _raw_field(event, "key") == "full_state"
    return False


class EventDeduper:
    """Dedup by event id, letting a copy with ``parent_id`` replace one without (pure)."""

    def __init__(self) -> None:
        self._seen: dict[str, bool] = {}  # id -> the yielded copy had a parent_id
        self.newest_timestamp: str | None = None  # newest persisted timestamp (string order)

    def __len__(self) -> int:
        return len(self._seen)

    def accept(self, event: AnyEvent) -> StreamEvent | None:
        """The item to yield for ``event``, or None when it is a plain duplicate."""
        if is_transient(event):
            return StreamEvent(event, transient=True)
        stamp = event.timestamp
        if isinstance(stamp, str) and (
            self.newest_timestamp is None or stamp > self.newest_timestamp
        ):
            self.newest_timestamp = stamp
        event_id = event.id
        if not event_id:
            return StreamEvent(event)
        has_parent = bool(event.parent_id)
        before = self._seen.get(event_id)
        if before is None:
            self._seen[event_id] = has_parent
            return StreamEvent(event)
        if has_parent and not before:
            self._seen[event_id] = True
            return StreamEvent(event, replaces=True)
        return None


def _top_level_strings(head: str) -> dict[str, str]:
    """The id, timestamp, parent_id, source and kind members of the outermost object in
    ``head`` (a frame's first characters), where they are strings. Linear in ``head``."""
    found: dict[str, str] = {}
    depth, pos = 0, 0
    while len(found) < len(_WANTED):
        token = _TOKEN.search(head, pos)
        if token is None:
            break
        text, pos = token.group(), token.end()
        if text in ("{", "["):
            depth += 1
            continue
        if text in ("}", "]"):
            depth -= 1
            continue
        if depth != 1:
            continue
        value = _STRING_VALUE.match(head, pos)
        if value is None:
            continue  # a value, or a key whose value is not a string
        key = text[1:-1]
        if key in _WANTED and key not in found:
            try:
                found[key] = json.loads(value.group(1))
            except ValueError:
                pass
        pos = value.end()
    return found


def oversize_event(frame: str | bytes, limit: int) -> RawEvent:
    """A placeholder for a frame over ``limit``: what its ends say of it, never the rest."""
    head = frame[:_ENDS]
    tail = frame[-_ENDS:]
    if isinstance(head, bytes):
        head = head.decode("utf-8", "replace")
        tail = tail.decode("utf-8", "replace")
    fields = _top_level_strings(head)
    if "kind" not in fields:
        last = _LAST_KIND.search(tail)
        if last is not None:
            try:
                fields["kind"] = json.loads(last.group(1))
            except ValueError:
                pass
    if "parent_id" not in fields:
        parents = _PARENT.findall(tail)
        if parents:
            try:
                fields["parent_id"] = json.loads(parents[-1])
            except ValueError:
                pass
    error = (
        f"a frame of {_mib(len(frame))} is over the live stream's {_mib(limit)} limit: "
        "not read here, fetched by id when opened"
    )
    return raw_event({**fields, "size": len(frame)}, error, OVERSIZE)


def _mib(size: int) -> str:
    text = f"{size / MIB:.1f}".removesuffix(".0")
    return f"{text} MiB"


def is_oversize(event: AnyEvent) -> bool:
    """A placeholder for a frame the stream did not read (see :func:`oversize_event`)."""
    return isinstance(event, RawEvent) and event.reason == OVERSIZE


def close_words(code: int, reason: str = "") -> str:
    """A close code in a few words (4001 and 4004 as the agent server means them)."""
    if code == 4001:
        return "the server refused the session key (4001)"
    if code == 4004:
        return "the agent server does not have this conversation (4004)"
    if code == MESSAGE_TOO_BIG:
        return "an event too large for the stream (1009)"
    words = _CLOSE_WORDS.get(code, "closed")
    reason = " ".join(reason.split())[:80]
    return f"{words} ({code}: {reason})" if reason and code == 1013 else f"{words} ({code})"


def _shift(stamp: str, seconds: float) -> str:
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    return (moment - timedelta(seconds=seconds)).isoformat()


def _later(a: str, b: str) -> str:
    """The later of two ISO timestamps; ``a`` when they cannot be compared."""
    try:
        return b if datetime.fromisoformat(b) > datetime.fromisoformat(a) else a
    except (ValueError, TypeError):
        return a


class _RedactingLogger(logging.LoggerAdapter):  # type: ignore[type-arg]
    """websockets logs request lines, headers and frame text at DEBUG: mask the key."""

    def __init__(self, logger: logging.Logger, secrets: list[str]) -> None:
        super().__init__(logger, {})
        self.secrets = secrets

    def log(self, level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
        if not self.isEnabledFor(level):
            return
        try:
            text = str(msg) % args if args else str(msg)
        except (TypeError, ValueError):
            text = " ".join([str(msg), *map(str, args)])
        for secret in self.secrets:
            text = text.replace(secret, _MASK)
        kwargs.pop("extra", None)
        self.logger.log(level, "%s", mask_url(text), **kwargs)


class _Connect(connect):
    """``connect`` that follows no redirect: a key must never travel to another address."""

    def process_redirect(self, exc: Exception) -> Exception | str:
        return exc


# --- the stream ----------------------------------------------------------------------------


class EventStream:
    """Reconnecting, de-duplicating subscriber of one conversation's event socket.

    ``target`` is an :class:`AgentEndpoint` (key included) or a ``ws(s)://``/``http(s)://``
    URL of ``…/sockets/events/<id>`` without a query (pass ``session_api_key`` then).
    """

    def __init__(
        self,
        target: AgentEndpoint | str,
        *,
        session_api_key: str | None = None,
        since: datetime | str | None = None,
        auth: AuthMode = "message",
        max_attempts: int | None = None,
        offline_after: int = 5,
        backoff_base: float = 0.2,
        backoff_max: float = 5.0,
        stable_after: float = 5.0,
        resume_margin: float | None = 60.0,
        live_grace: float = 1.0,
        open_timeout: float = 10.0,
        ping_interval: float | None = 20.0,
        ping_timeout: float | None = 20.0,
        close_timeout: float = 2.0,
        max_size: int | None = 16 * MIB,
        skim_max: int = 128 * MIB,
        max_queue: int | None = 4096,
        raise_on_failure: bool = False,
        connect_options: Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(target, AgentEndpoint):
            url = target.ws_url
            key = session_api_key if session_api_key is not None else target.key
        elif isinstance(target, str):
            url, key = target, session_api_key
        else:
            raise InvalidParameter(
                f"target must be an AgentEndpoint or a URL, got {type(target).__name__}"
            )
        self._key = _check_key(key, "session_api_key")
        self._url = _check_ws_url(url)
        if auth not in ("message", "header", "query"):
            raise InvalidParameter(f"auth must be 'message', 'header' or 'query', got {auth!r}")
        self._auth: AuthMode = auth
        self._since = P.check_timestamp(since, "since")
        for name, value in (("offline_after", offline_after), ("max_attempts", max_attempts)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise InvalidParameter(f"{name} must be a positive integer")
        for name, value in (
            ("backoff_base", backoff_base),
            ("backoff_max", backoff_max),
            ("stable_after", stable_after),
            ("live_grace", live_grace),
            ("open_timeout", open_timeout),
            ("close_timeout", close_timeout),
            ("resume_margin", 0.0 if resume_margin is None else resume_margin),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InvalidParameter(f"{name} must be a non-negative number of seconds")
        self.max_attempts = max_attempts
        self.offline_after = offline_after
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.stable_after = float(stable_after)
        self.resume_margin = None if resume_margin is None else float(resume_margin)
        self.live_grace = float(live_grace)
        self.raise_on_failure = P.check_bool(raise_on_failure, "raise_on_failure")
        #: frames longer than this become placeholders (once a frame was over it, the
        #: connections read up to ``skim_max`` so they can pass such frames)
        self.max_size = max_size
        self.skim_max = max(skim_max, max_size or 0)
        self._connect_kwargs: dict[str, Any] = {
            "open_timeout": open_timeout,
            "ping_interval": ping_interval,
            "ping_timeout": ping_timeout,
            "close_timeout": close_timeout,
            "max_size": max_size,
            "max_queue": max_queue,
            **(connect_options or {}),
        }
        self._wslog = _RedactingLogger(
            logging.getLogger("tui.client.stream.websockets"), [self._key] if self._key else []
        )
        self.display_url = self._redact(self._url)
        self.dedup = EventDeduper()
        self.status: StreamStatus | None = None
        self.failure: OpenHandsError | None = None
        self.connections = 0  # connections that opened (handshake done)
        self._ws: ClientConnection | None = None
        self._closing = asyncio.Event()
        self._iterator: AsyncIterator[StreamItem] | None = None

    # --- public --------------------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[StreamItem]:
        if self._iterator is None:
            self._iterator = self._run()
        return self._iterator

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        state = self.status.state if self.status else "new"
        return f"EventStream(url={self.display_url!r}, auth={self._auth!r}, state={state!r})"

    @property
    def is_live(self) -> bool:
        return self._ws is not None and self.status is not None and self.status.state == "live"

    @property
    def newest_timestamp(self) -> str | None:
        """Newest timestamp among the persisted events seen (the resume point)."""
        return self.dedup.newest_timestamp

    async def close(self) -> None:
        """Stop: close the socket; the iterator ends quietly. Safe to call more than once,
        from any task."""
        self._closing.set()
        ws = self._ws
        if ws is not None:
            await _dispose(ws)
        iterator = self._iterator
        if iterator is not None and not getattr(iterator, "ag_running", True):
            # Suspended at a yield (the consumer stopped early): finish it now rather than
            # at garbage collection. Its cleanup has nothing left to wait for.
            await iterator.aclose()  # type: ignore[attr-defined]

    async def send(self, text: str) -> None:
        """Send a user message over the socket (the server appends it and runs the agent).

        Raises :class:`ConnectionLost` when no connection is open; the REST call
        (``AgentServerClient.send_message``) is the fallback.
        """
        if not isinstance(text, str) or not text.strip():
            raise InvalidParameter("message text must be a non-empty string")
        await self.send_json({"role": "user", "content": [{"type": "text", "text": text}]})

    async def send_json(self, payload: Any) -> None:
        """Send any JSON frame (a ``Message``; the server answers junk with a ServerErrorEvent)."""
        ws = self._ws
        if ws is None:
            raise ConnectionLost(
                f"event stream {self.display_url}: not connected", url=self.display_url
            )
        try:
            await ws.send(json.dumps(payload, ensure_ascii=False))
        except ConnectionClosed as exc:
            raise ConnectionLost(
                f"event stream {self.display_url}: connection closed while sending "
                f"({_close_text(exc)})",
                url=self.display_url,
            ) from None

    async def batches(
        self, interval: float = 0.05, max_items: int = 1000
    ) -> AsyncIterator[list[StreamItem]]:
        """Items in lists: each list holds what arrived within ``interval`` seconds of its
        first item (at most ``max_items``). Reading runs in a helper task, so the timing never
        cancels a pending read; leaving the loop (or cancelling it) closes the stream."""
        if not isinstance(interval, (int, float)) or interval < 0:
            raise InvalidParameter("interval must be a non-negative number of seconds")
        if isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 1:
            raise InvalidParameter("max_items must be a positive integer")
        queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=max_items * 4)
        done = object()

        async def pump() -> None:
            try:
                async for item in self:
                    await queue.put(item)
            except Exception as exc:  # noqa: BLE001 - handed to the consumer below
                await queue.put(exc)
            await queue.put(done)

        task = asyncio.create_task(pump(), name="event-stream-pump")
        loop = asyncio.get_running_loop()
        try:
            while True:
                item = await queue.get()
                batch: list[StreamItem] = []
                deadline = loop.time() + interval
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
                yield batch
        finally:
            await self.close()
            if not task.done():
                task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                if not task.cancelled():
                    raise
            except Exception as exc:  # noqa: BLE001 - already handed over through the queue
                log.debug("event stream pump ended with %s", type(exc).__name__)

    # --- internals -----------------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        if self._key:
            text = text.replace(self._key, _MASK)
        return mask_url(text)

    def _query(self) -> dict[str, str]:
        newest = self.dedup.newest_timestamp
        if newest is not None and self.resume_margin is not None:
            after = _shift(newest, self.resume_margin)
            if self._since is not None:
                after = _later(after, self._since)
            query = {"resend_mode": "since", "after_timestamp": after}
        elif self._since is not None:
            query = {"resend_mode": "since", "after_timestamp": self._since}
        else:
            query = {"resend_mode": "all"}
        if self._auth == "query" and self._key:
            query["session_api_key"] = self._key
        return query

    def _delay(self, failures: int) -> float:
        base = min(self.backoff_max, self.backoff_base * (2 ** max(0, failures - 1)))
        return base * random.uniform(0.5, 1.0)

    def _set(self, status: StreamStatus) -> StreamStatus:
        self.status = status
        return status

    async def _open(self, url: str) -> ClientConnection:
        headers = {"X-Session-API-Key": self._key} if self._auth == "header" and self._key else None
        ws = await _Connect(
            url, additional_headers=headers, logger=self._wslog, **self._connect_kwargs
        )
        try:
            if self._auth == "message" and self._key:
                await ws.send(json.dumps({"type": "auth", "session_api_key": self._key}))
        except BaseException:
            ws.transport.abort()
            raise
        return ws

    async def _run(self) -> AsyncIterator[StreamItem]:
        if self._closing.is_set():
            return
        yield self._set(StreamStatus("connecting"))
        failures = 0  # drives the backoff; reset after a stable connection
        dead = 0  # attempts in a row that never went live
        while not self._closing.is_set():
            query = self._query()
            url = f"{self._url}?{urlencode(query)}"
            shown = self._redact(url)
            ws: ClientConnection | None = None
            live_since: float | None = None
            error: BaseException | None = None
            try:
                log.debug("connecting to %s", shown)
                ws = await self._open(url)
                self.connections += 1
                if self._closing.is_set():
                    return
                self._ws = ws
                frame: str | bytes | None
                try:
                    async with asyncio.timeout(self.live_grace):
                        frame = await ws.recv()
                except TimeoutError:
                    frame = None
                live_since = time.monotonic()
                dead = 0
                log.info("event stream live: %s", shown)
                yield self._set(StreamStatus("live"))
                limit = self.max_size
                while True:
                    if frame is not None:
                        if limit is not None and len(frame) > limit:
                            event = oversize_event(frame, limit)  # never parsed whole
                        else:
                            event = parse_event_json(frame)
                        frame = None  # a skimmed frame is not kept while the next arrives
                        item = self.dedup.accept(event)
                        if item is not None:
                            yield item
                    frame = await ws.recv()
            except (WebSocketException, OSError, TimeoutError, EOFError) as exc:
                error = exc
            finally:
                self._ws = None
                if ws is not None:
                    await _dispose(ws)
            if self._closing.is_set():
                return
            terminal, reason, code = self._classify(error, shown)
            why = _why(error, code)
            if terminal is None and _too_big(error):
                if self._connect_kwargs["max_size"] != self.skim_max:
                    # read past it on the next connection (it becomes a placeholder): at
                    # once, and not counted as a failed attempt
                    self._connect_kwargs["max_size"] = self.skim_max
                    why = f"an event over {_mib(self.max_size or 0)}: reading past it"
                    log.info("event stream: %s", why)
                    yield self._set(StreamStatus("reconnecting", 1, reason, code, 0.0, why=why))
                    continue
                why = f"an event over {_mib(self.skim_max)} cannot be streamed; reopen to load it"
                terminal = ConnectionLost(f"event stream {shown}: {why}", url=shown, status=code)
            if terminal is not None:
                self.failure = terminal
                log.warning("event stream failed: %s", reason)
                yield self._set(
                    StreamStatus("failed", dead + 1, reason, code, exception=terminal, why=why)
                )
                if self.raise_on_failure:
                    raise terminal
                return
            if live_since is None:
                dead += 1
            elif time.monotonic() - live_since >= self.stable_after:
                failures = 0
            failures += 1
            if self.max_attempts is not None and dead >= self.max_attempts:
                self.failure = ConnectionLost(
                    f"event stream {self.display_url}: gave up after {dead} attempt(s): {reason}",
                    url=self.display_url,
                    status=code,
                )
                log.warning("%s", self.failure)
                why = f"gave up after {dead} tries: {why}"
                yield self._set(
                    StreamStatus("failed", dead, reason, code, exception=self.failure, why=why)
                )
                if self.raise_on_failure:
                    raise self.failure
                return
            delay = self._delay(failures)
            state: StreamState_ = "offline" if dead >= self.offline_after else "reconnecting"
            log.info("event stream %s (%s); retry %d in %.2fs", state, reason, dead + 1, delay)
            yield self._set(StreamStatus(state, dead + 1, reason, code, round(delay, 3), why=why))
            try:
                await asyncio.wait_for(self._closing.wait(), delay)
            except TimeoutError:
                pass

    def _classify(
        self, exc: BaseException | None, shown: str
    ) -> tuple[OpenHandsError | None, str, int | None]:
        """(terminal error or None to retry, redacted reason, close code or HTTP status)."""
        if isinstance(exc, ConnectionClosed):
            code = exc.rcvd.code if exc.rcvd is not None else 1006
            text = _close_text(exc)
            cls = TERMINAL_CLOSE_CODES.get(code)
            if cls is None:
                return None, f"connection closed ({self._redact(text)})", code
            what = "authentication failed" if cls is AuthError else "conversation not found"
            message = f"event stream {shown}: {what} ({self._redact(text)})"
            return (
                cls(message, status=code, url=shown, detail=exc.rcvd and exc.rcvd.reason),
                message,
                code,
            )
        if isinstance(exc, InvalidStatus):
            status = exc.response.status_code
            body = self._redact((exc.response.body or b"")[:200].decode("utf-8", "replace")).strip()
            text = f"handshake rejected: HTTP {status}" + (f" {body}" if body else "")
            if status in RETRY_HANDSHAKE_STATUSES:
                return None, text, status
            if status in (401, 403):
                cls: type[OpenHandsError] = AuthError
            elif status == 404:
                cls = NotFound
            else:
                cls = HTTPStatusError
            if 300 <= status < 400:
                text += " (redirect not followed: keys never go to another address)"
            message = f"event stream {shown}: {text}"
            return cls(message, status=status, url=shown, detail=body or None), message, status
        if isinstance(exc, ssl.SSLCertVerificationError):
            message = f"event stream {shown}: TLS certificate rejected ({exc.reason or exc})"
            return ConnectionLost(self._redact(message), url=shown), message, None
        if isinstance(exc, TimeoutError):
            return None, "no answer in time", None
        if exc is None:
            return None, "connection ended", None
        detail = self._redact(str(exc)) or "no detail"
        return None, f"{type(exc).__name__}: {detail}", None


def _too_big(exc: BaseException | None) -> bool:
    """This side closed the connection because a message was over its size limit."""
    sent = getattr(exc, "sent", None) if isinstance(exc, ConnectionClosed) else None
    return sent is not None and sent.code == MESSAGE_TOO_BIG


def _why(exc: BaseException | None, code: int | None) -> str:
    """Why the stream is not live, in a few words for a status line."""
    if isinstance(exc, ConnectionClosed):
        if _too_big(exc):
            return close_words(MESSAGE_TOO_BIG)
        received = exc.rcvd
        return close_words(received.code, received.reason) if received else close_words(1006)
    if isinstance(exc, InvalidStatus) and code is not None:
        if code in (401, 403):
            return f"the server refused the session key (HTTP {code})"
        if code == 404:
            return "the agent server does not have this conversation (HTTP 404)"
        return f"the server answered HTTP {code}"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return "the server's TLS certificate was rejected"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, OSError):
        return "cannot reach the agent server"
    return "the connection ended"


async def _dispose(ws: ClientConnection) -> None:
    if ws.state is State.CLOSED:
        return
    try:
        await ws.close()
    except BaseException:
        ws.transport.abort()
        raise


def _close_text(exc: ConnectionClosed) -> str:
    if exc.rcvd is None:
        return "1006, no close frame"
    reason = exc.rcvd.reason
    return f"{exc.rcvd.code} {reason!r}" if reason else str(exc.rcvd.code)


def _check_ws_url(url: Any) -> str:
    if not isinstance(url, str) or not url.strip():
        raise InvalidParameter("the event stream needs a ws(s):// URL")
    try:
        parsed = httpx.URL(url.strip())
    except (TypeError, httpx.InvalidURL):
        raise InvalidParameter("the event stream URL is not a valid URL") from None
    scheme = {"http": "ws", "https": "wss"}.get(parsed.scheme, parsed.scheme)
    if scheme not in ("ws", "wss") or not parsed.host:
        raise InvalidParameter(
            f"the event stream URL must be ws(s):// or http(s)://, got {mask_url(url)!r}"
        )
    if parsed.query or parsed.userinfo:
        raise InvalidParameter(
            "pass the event stream URL without a query string or credentials "
            "(the stream adds resend_mode; the key goes in session_api_key)"
        )
    return str(parsed.copy_with(scheme=scheme, fragment=None))


__all__ = [
    "OVERSIZE",
    "TERMINAL_CLOSE_CODES",
    "EventDeduper",
    "EventStream",
    "StreamEvent",
    "StreamItem",
    "StreamStatus",
    "close_words",
    "is_oversize",
    "is_transient",
    "oversize_event",
]
