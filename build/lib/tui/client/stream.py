"""``EventStream``: a reconnecting subscriber of an agent server's ``/sockets/events/{id}``.

Usage (one consumer per stream)::

    async with EventStream(endpoint) as stream:          # or client.event_stream()
        async for item in stream:                         # StreamEvent | StreamStatus
            state.apply(item)                             # StreamState (stream_state.py)

or, in a Textual worker that repaints every ~50 ms, ``async for batch in
stream.batches(0.05): ...`` (lists of items). Do not wrap ``__anext__`` in
``asyncio.wait_for``: cancelling a pending item ends the stream (that is how cancellation
safety works); :meth:`EventStream.batches` is the timed way.

Items (``stream_items.py`` says more): :class:`StreamEvent` (one event, de-duplicated by
identity; ``filled`` when a gap fill brought it), :class:`StreamFrame` (with ``read=False``,
a frame the consumer reads and de-duplicates itself) and :class:`StreamStatus` (the
connection: ``connecting``, ``catching up``, ``live``, ``reconnecting``, ``offline``,
``failed``).

Policy (facts §5, §6)
  * Auth by first frame ``{"type": "auth", "session_api_key": …}`` by default, so the key
    never appears in a URL or a log line; ``auth="header"`` sends ``X-Session-API-Key``;
    ``auth="query"`` (the frontend's way) only when asked for.
  * De-duplication by identity (``EventDeduper``): an id and, where several events reuse
    one, their timestamps and kinds; a copy that gains ``parent_id`` replaces the earlier
    (live hook events lack it). Transient and id-less frames skip it.
  * The first connection asks for the whole log (``resend_mode=all``), unless the consumer
    passes ``known`` (it holds its history): then, like every reconnect, it asks for live
    events only, and what was logged beyond what is seen or held is read from the agent's
    log, newest page first, down to a page with a known event (``stream_gap.py``;
    ``catching up`` meanwhile), and yielded before the socket's next frame. Never by clock:
    a stamp in the far future or one that is not a date loses nothing, and the app server's
    stored copy lagging the sandbox's log is made up for. Where that log cannot be read,
    the next connection replays the whole log instead (de-duplication takes out repeats).
  * Any drop (close 1000/1001/1006/1011/1012/1013…, network errors, handshake 408/429/5xx,
    open timeout) is retried with exponential backoff and jitter (``backoff_base`` doubling
    up to ``backoff_max``, times a random 0.5–1.0). The backoff restarts after a connection
    that stayed up ``stable_after`` seconds. ``max_attempts`` (None = forever) bounds the
    attempts in a row that never went live; then ``failed`` with :class:`ConnectionLost`
    (``stream_reconnects.py`` decides what follows each drop).
  * A frame over ``max_size`` (16 MiB) closes the socket, not forever: the next gap fill
    reads it whole; a replay reads frames up to ``skim_max`` (128 MiB), each over
    ``max_size`` a placeholder (``oversize_frames.py``), and one over ``skim_max`` ends the
    stream with ``failed``, saying so. Every status carries ``why``: the reason in a few
    words for the header (``stream_failures.py``).
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
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from typing import Any, Literal, Self
from urllib.parse import urlencode

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, WebSocketException

from tui.models.parse import parse_event_json
from tui.models.redact import mask_url

from . import params as P
from .backoff import JitteredBackoff
from .endpoints import AgentEndpoint, endpoint_from_ws_url
from .errors import ConnectionLost, InvalidParameter, OpenHandsError
from .keys import check_key
from .oversize_frames import MIB, OVERSIZE, is_oversize, mib, oversize_event
from .stream_batches import batched
from .stream_failures import (
    MESSAGE_TOO_BIG,
    TERMINAL_CLOSE_CODES,
    classify,
    close_text,
    close_words,
    too_big,
)
from .stream_gap import GapFiller, GapFillFailed, Known
from .stream_items import (
    EventDeduper,
    ReadEvent,
    StreamEvent,
    StreamFrame,
    StreamItem,
    StreamStatus,
    is_transient,
)
from .stream_reconnects import Reconnects
from .ws_connection import MASK, NoRedirectConnect, RedactingLogger, check_ws_url, dispose

log = logging.getLogger("tui.client.stream")

AuthMode = Literal["message", "header", "query"]


# --- the stream ----------------------------------------------------------------------------


class EventStream:
    """Reconnecting, de-duplicating subscriber of one conversation's event socket.

    ``target`` is an :class:`AgentEndpoint` (key included) or a ``ws(s)://``/``http(s)://``
    URL of ``…/sockets/events/<id>`` without a query (pass ``session_api_key`` then); its
    agent server's log (for gap fills) is read at the same host and path prefix.
    ``known(event)``: the consumer holds that event already (see the module doc).
    """

    def __init__(
        self,
        target: AgentEndpoint | str,
        *,
        session_api_key: str | None = None,
        known: Known | None = None,
        auth: AuthMode = "message",
        max_attempts: int | None = None,
        offline_after: int = 5,
        backoff_base: float = 0.2,
        backoff_max: float = 5.0,
        stable_after: float = 5.0,
        live_grace: float = 1.0,
        open_timeout: float = 10.0,
        ping_interval: float | None = 20.0,
        ping_timeout: float | None = 20.0,
        close_timeout: float = 2.0,
        max_size: int | None = 16 * MIB,
        skim_max: int = 128 * MIB,
        max_queue: int | None = 4096,
        raise_on_failure: bool = False,
        read: bool = True,
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
        self._key = check_key(key, "session_api_key")
        self._url = check_ws_url(url)
        if auth not in ("message", "header", "query"):
            raise InvalidParameter(f"auth must be 'message', 'header' or 'query', got {auth!r}")
        self._auth: AuthMode = auth
        if known is not None and not callable(known):
            raise InvalidParameter("known must be a function of an event, or None")
        self.dedup = EventDeduper()
        #: the agent server whose log fills gaps (no endpoint: a socket URL it cannot read)
        self.gaps = GapFiller(
            replace(target, key=self._key)
            if isinstance(target, AgentEndpoint)
            else endpoint_from_ws_url(self._url, self._key),
            self.dedup,
            known,
        )
        P.check_counts(offline_after=offline_after, max_attempts=max_attempts)
        P.check_seconds(
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            stable_after=stable_after,
            live_grace=live_grace,
            open_timeout=open_timeout,
            close_timeout=close_timeout,
        )
        self.max_attempts = max_attempts
        self.offline_after = offline_after
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.policy = JitteredBackoff(self.backoff_base, self.backoff_max)
        self.stable_after = float(stable_after)
        self.live_grace = float(live_grace)
        self.raise_on_failure = P.check_bool(raise_on_failure, "raise_on_failure")
        #: False: frames are yielded unread (:class:`StreamFrame`), for a consumer that reads
        #: them elsewhere and asks :attr:`dedup` about each, in order
        self.read = P.check_bool(read, "read")
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
        self._wslog = RedactingLogger(
            logging.getLogger("tui.client.stream.websockets"), [self._key] if self._key else []
        )
        self.display_url = self._redact(self._url)
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

    async def close(self) -> None:
        """Stop: close the socket; the iterator ends quietly. Safe to call more than once,
        from any task."""
        self._closing.set()
        ws = self._ws
        if ws is not None:
            await dispose(ws)
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
                f"({close_text(exc)})",
                url=self.display_url,
            ) from None

    def batches(
        self, interval: float = 0.05, max_items: int = 1000
    ) -> AsyncIterator[list[StreamItem]]:
        """Items in lists, at most one per ``interval`` (an item after a quiet spell at once;
        at most ``max_items`` each). Reading runs in a helper task, so the timing never
        cancels a pending read; leaving the loop (or cancelling it) closes the stream."""
        return batched(self, self.close, interval, max_items)

    # --- internals -----------------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        if self._key:
            text = text.replace(self._key, MASK)
        return mask_url(text)

    def _query(self, resend_all: bool) -> dict[str, str]:
        """The socket's query: the whole log, or (a gap fill follows) live events only."""
        query = {"resend_mode": "all"} if resend_all else {}
        if self._auth == "query" and self._key:
            query["session_api_key"] = self._key
        return query

    def _retry_now(self, error: BaseException | None, shown: str) -> StreamStatus | None:
        """The status of a reconnect made at once, not counted as a failure (None: not
        one): after a gap fill that failed (the socket was fine: the next asks for the whole
        log, and de-duplication takes out the repeats; for good if the log will never be
        readable), or a frame over ``max_size`` (the next reads past it)."""
        if isinstance(error, GapFillFailed):
            self.gaps.failed(error)
            reason, code = self._redact(str(error)), None
            why = "could not read what was missed: replaying the whole log"
        elif too_big(error) and self._connect_kwargs["max_size"] != self.skim_max:
            self._connect_kwargs["max_size"] = self.skim_max
            _, reason, code = classify(error, shown, self._redact)
            why = f"an event over {mib(self.max_size or 0)}: reading past it"
        else:
            return None
        log.info("event stream: %s (%s)", why, reason)
        return self._set(StreamStatus("reconnecting", 1, reason, code, 0.0, why=why))

    def _set(self, status: StreamStatus) -> StreamStatus:
        self.status = status
        return status

    async def _open(self, url: str) -> ClientConnection:
        headers = {"X-Session-API-Key": self._key} if self._auth == "header" and self._key else None
        ws = await NoRedirectConnect(
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
        reconnects = Reconnects(
            self.policy,
            max_attempts=self.max_attempts,
            offline_after=self.offline_after,
            stable_after=self.stable_after,
            skim_max=self.skim_max,
            display_url=self.display_url,
            redact=self._redact,
        )
        try:
            yield self._set(StreamStatus("connecting"))
            while not self._closing.is_set():
                resend_all = self.gaps.replay()
                query = self._query(resend_all)
                url = f"{self._url}?{urlencode(query)}" if query else self._url
                shown = self._redact(url)
                ws: ClientConnection | None = None
                reconnects.connecting()
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
                    reconnects.went_live()
                    if not resend_all:  # live events only: the gap comes from the agent's log
                        yield self._set(StreamStatus("catching up"))
                        for item in await self.gaps.fill(
                            self._closing, consumer_reads=not self.read
                        ):
                            yield item
                    log.info("event stream live: %s", shown)
                    yield self._set(StreamStatus("live"))
                    limit = self.max_size
                    read = self.read
                    while True:
                        if frame is not None and not read:  # the consumer reads it
                            if limit is not None and len(frame) > limit:
                                deferred = StreamFrame(None, oversize_event(frame, limit))
                            else:
                                deferred = StreamFrame(frame)
                            frame = None
                            self.dedup.handed()
                            yield deferred
                        elif frame is not None:
                            size = len(frame)
                            if limit is not None and size > limit:
                                event = oversize_event(frame, limit)  # never parsed whole
                                size, kept = 0, None  # the placeholder weighs little
                            else:
                                event, kept = parse_event_json(frame), frame
                            frame = None  # a skimmed frame is not kept while the next arrives
                            item = self.dedup.accept(event, size, kept)
                            if item is not None:
                                yield item
                        frame = await ws.recv()
                except (WebSocketException, OSError, TimeoutError, EOFError, GapFillFailed) as exc:
                    error = exc
                finally:
                    self._ws = None
                    if ws is not None:
                        await dispose(ws)
                if self._closing.is_set():
                    return
                now = self._retry_now(error, shown)
                if now is not None:
                    yield now
                    continue
                status, delay = reconnects.after(error, shown)
                if status.state == "failed":
                    failure = self.failure = status.exception
                    yield self._set(status)
                    if self.raise_on_failure and failure is not None:
                        raise failure
                    return
                yield self._set(status)
                try:
                    await asyncio.wait_for(self._closing.wait(), delay)
                except TimeoutError:
                    pass
        finally:  # here, not in close(): a gap fill may be reading the log just then
            await self.gaps.aclose()


#: Names of the stream's item, failure and oversize modules, importable from here too.
__all__ = [
    "MESSAGE_TOO_BIG",
    "OVERSIZE",
    "TERMINAL_CLOSE_CODES",
    "EventDeduper",
    "EventStream",
    "ReadEvent",
    "StreamEvent",
    "StreamFrame",
    "StreamItem",
    "StreamStatus",
    "close_words",
    "is_oversize",
    "is_transient",
    "oversize_event",
]
