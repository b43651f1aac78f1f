"""What an :class:`~tui.client.stream.EventStream` yields, and the de-duplication that
decides it.

Apart from the socket code because these are pure (no I/O): the app's stream state, the
board's feed and the tests use them without a connection.

  :class:`StreamEvent` — one event (``parse_event``: invalid frames become ``RawEvent``,
  nothing is dropped except exact duplicates). ``replaces=True`` means this copy of an
  event yielded before (which carries ``parent_id``) supersedes it. ``copy`` 2, 3…: another
  event that reuses an id already yielded (its timestamp or kind differs), shown beside it
  as history shows such events. ``filled=True``: read from the agent's log to fill a gap,
  not received on the socket. ``transient=True`` marks frames the server never persists:
  the ``full_state`` snapshot, ``StreamingDeltaEvent`` and ``ServerErrorEvent``; they are
  passed through as they come.

  :class:`StreamFrame` — with ``read=False``, a frame left unread (nor de-duplicated): the
  consumer reads it (``tui.app.helper.live_worker`` does, in a helper process), asks
  :attr:`EventStream.dedup` about each, in order, and says how many it read
  (``dedup.read_up``); an oversize frame comes as its placeholder.

  :class:`StreamStatus` — the connection: ``connecting`` (first attempt), ``catching up``
  (connected; reading what was logged while nobody listened), ``live`` (the server has
  spoken: first frame received, or the socket stayed open for ``live_grace`` seconds after
  auth, and no gap is left), ``reconnecting`` (dropped; ``retry_in`` seconds until attempt
  ``attempt``), ``offline`` (the same, once ``offline_after`` attempts in a row never went
  live), ``failed`` (terminal; the stream ends).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from tui.models import ConversationStateUpdateEvent, StreamingDeltaEvent
from tui.models.events import EVENT_CLASSES, ServerErrorEvent
from tui.models.parse import AnyEvent, RawEvent

from .errors import OpenHandsError

#: A connection's state as :class:`StreamStatus` names it.
#: ``catching up``: connected, reading the events sent while nobody listened (the gap
#: fill, ``stream_gap.py``); ``live`` once nothing is missing.
ConnectionState = Literal["connecting", "catching up", "live", "reconnecting", "offline", "failed"]


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One event from the socket or a gap fill (see the module doc)."""

    event: AnyEvent
    replaces: bool = False
    transient: bool = False
    #: the frame's length: what the event weighs as JSON (0: not known), so a consumer
    #: that keeps events bounded by bytes need not weigh each one again
    size: int = field(default=0, compare=False)
    #: the frame the event was read from (None: not kept, e.g. an oversize placeholder's):
    #: a consumer can keep the text (no objects for the collector to scan) and read it
    #: again when the full event is asked for, as a page's events are
    frame: str | bytes | None = field(default=None, compare=False, repr=False)
    #: 1 for the first event with this id; 2, 3… for other events reusing it
    copy: int = 1
    #: read from the server's pages to fill a gap (not a frame of the socket)
    filled: bool = False

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

    state: ConnectionState
    attempt: int = 0
    error: str | None = None
    close_code: int | None = None
    retry_in: float | None = None
    exception: OpenHandsError | None = field(default=None, compare=False)
    #: why it is not live, in a few words for a status line (None while live)
    why: str | None = field(default=None, compare=False)


@dataclass(slots=True)  # not frozen: one per frame of a fast stream (0.5 µs, frozen 1.2)
class StreamFrame:
    """A frame not read yet, from a stream made with ``read=False``: its consumer reads it
    (in a helper process, say) and asks the stream's :class:`EventDeduper` about it, in
    order. ``event``: already read (an oversize frame's placeholder; ``frame`` is None)."""

    frame: str | bytes | None
    event: AnyEvent | None = None


@dataclass(slots=True)  # not frozen: one per event of a fast stream (0.8 µs, frozen 2.9)
class ReadEvent:
    """A persisted event read elsewhere (see ``tui.app.helper.live_worker``): what de-duplication
    and the fold read of it, what its reader made of it (``made``: the row's fields, opaque
    here) and the frame it was read from (kept as text, read again when asked for).
    ``agent_spoke``: an agent's message or action (it ends the streaming preview)."""

    id: str
    parent_id: str | None
    timestamp: str | None
    kind: str | None
    agent_spoke: bool
    made: Any = field(compare=False, repr=False)
    frame: str | bytes = field(compare=False, repr=False)
    replaces: bool = False
    copy: int = 1  # as StreamEvent.copy


StreamItem = StreamEvent | StreamStatus


def _raw_field(event: AnyEvent, name: str) -> Any:
    raw = event.raw if isinstance(event, RawEvent) else None
    return raw.get(name) if isinstance(raw, dict) else None


#: Typed kinds that are never transient: one set lookup for nearly every live event (this
#: runs twice per event on the stream's path, the isinstance checks below cost 3x more).
_PERSISTED = frozenset(EVENT_CLASSES) - {
    StreamingDeltaEvent,
    ServerErrorEvent,
    ConversationStateUpdateEvent,
}


def is_transient(event: AnyEvent) -> bool:
    """True for frames the server never persists: ``full_state`` snapshots, streaming
    deltas and ``ServerErrorEvent`` replies (facts §6)."""
    if type(event) in _PERSISTED:
        return False
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
    """De-duplication by event identity (pure; see the module doc).

    Two copies of one id are one event when their timestamp and kind agree: a replay, the
    persisted copy of a live frame, a gap fill's page overlapping what came live. A copy
    that carries ``parent_id`` where the one yielded before had none replaces it (live hook
    events arrive without it; their persisted copies have one). A copy whose timestamp or
    kind differs is another event that reuses the id: it is yielded too, numbered
    (``copy`` 2, 3, …), as history shows such events (``tui.app.store.duplicate_rows``).

    Nothing here compares timestamps as times: a stamp is part of an event's identity, as
    its text, and a stamp in the far future or one that is not a date changes nothing.
    """

    def __init__(self) -> None:
        #: id -> its copies, each ``hash((timestamp, kind)) * 2 + has_parent`` (one int per
        #: id, a list for the rare id carried by several events)
        self._seen: dict[str, int | list[int]] = {}
        #: frames handed to a consumer that reads them itself (``read=False``) and not
        #: de-duplicated yet: a gap fill waits for them (:meth:`settled`)
        self.unread = 0
        self._read_up: asyncio.Event | None = None

    def __len__(self) -> int:
        return len(self._seen)

    def __contains__(self, event_id: object) -> bool:
        return event_id in self._seen

    def knows(self, event: AnyEvent) -> bool:
        """This copy of ``event`` was yielded before (with or without its ``parent_id``)."""
        if not event.id:
            return False
        packed = self._seen.get(event.id)
        if packed is None:
            return False
        stamp = _stamp(event.timestamp, event.kind)
        copies = packed if type(packed) is list else (packed,)
        return any(c >> 1 == stamp for c in copies)

    def accept(
        self, event: AnyEvent, size: int = 0, frame: str | bytes | None = None
    ) -> StreamEvent | None:
        """The item to yield for ``event`` (``size``: its frame's length; ``frame``: the
        frame itself, when the consumer may keep it), or None when it is a plain duplicate."""
        if is_transient(event):
            return StreamEvent(event, transient=True, size=size, frame=frame)
        seen = self._decide(event.id, event.parent_id, event.timestamp, event.kind)
        if seen is None:
            return None
        copy, replaces = seen
        return StreamEvent(event, replaces=replaces, size=size, frame=frame, copy=copy)

    def accept_read(self, item: ReadEvent) -> ReadEvent | None:
        """:meth:`accept` for an event read elsewhere (never transient: its reader says)."""
        seen = self._decide(item.id, item.parent_id, item.timestamp, item.kind)
        if seen is None:
            return None
        copy, replaces = seen
        if replaces or copy != 1:
            return replace(item, replaces=replaces, copy=copy)
        return item

    def _decide(
        self, event_id: str | None, parent_id: str | None, stamp: Any, kind: Any
    ) -> tuple[int, bool] | None:
        """None: a plain duplicate; else (which copy of its id it is, whether it replaces
        that copy as yielded before)."""
        if not event_id:
            return 1, False
        has_parent = bool(parent_id)
        key = _stamp(stamp, kind)
        seen = self._seen
        packed = seen.get(event_id)
        if packed is None:
            seen[event_id] = key * 2 + has_parent
            return 1, False
        copies = packed if type(packed) is list else [packed]
        for at, known in enumerate(copies):
            if known >> 1 == key:
                if has_parent and not known & 1:
                    copies[at] = known | 1
                    seen[event_id] = copies if len(copies) > 1 else copies[0]
                    return at + 1, True
                return None
        copies.append(key * 2 + has_parent)
        seen[event_id] = copies
        return len(copies), False

    # --- frames read by the consumer ---------------------------------------------------

    def handed(self, count: int = 1) -> None:
        """The stream handed ``count`` unread frames to the consumer."""
        self.unread += count

    def read_up(self, count: int) -> None:
        """The consumer de-duplicated ``count`` frames it was handed."""
        self.unread = max(0, self.unread - count)
        if not self.unread and self._read_up is not None:
            self._read_up.set()

    async def settled(self, closing: asyncio.Event) -> bool:
        """Until every frame handed out is de-duplicated (True: what was seen is complete)
        or ``closing`` is set (False)."""
        while self.unread and not closing.is_set():
            if self._read_up is None:
                self._read_up = asyncio.Event()
            self._read_up.clear()
            read_up = asyncio.ensure_future(self._read_up.wait())
            closed = asyncio.ensure_future(closing.wait())
            await asyncio.wait({read_up, closed}, return_when=asyncio.FIRST_COMPLETED)
            read_up.cancel()
            closed.cancel()
        return not closing.is_set()


def _stamp(stamp: Any, kind: Any) -> int:
    """What tells two events with one id apart (see :class:`EventDeduper`): 59 bits, so a
    copy's record (this times two, plus one bit) stays a two-digit int."""
    key = (stamp if isinstance(stamp, str) else None, kind if isinstance(kind, str) else None)
    return hash(key) & _STAMP_BITS


_STAMP_BITS = (1 << 59) - 1
