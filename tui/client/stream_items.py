"""What an :class:`~tui.client.stream.EventStream` yields, and the de-duplication that
decides it.

Apart from the socket code because these are pure (no I/O): the app's stream state, the
board's feed and the tests use them without a connection.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from tui.models import ConversationStateUpdateEvent, StreamingDeltaEvent
from tui.models.events import EVENT_CLASSES, ServerErrorEvent
from tui.models.parse import AnyEvent, RawEvent

from .errors import OpenHandsError

#: A connection's state as :class:`StreamStatus` names it.
ConnectionState = Literal["connecting", "live", "reconnecting", "offline", "failed"]


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One event from the socket (see the module doc for ``replaces`` and ``transient``)."""

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
    """A persisted event read elsewhere (see ``tui.app.live_worker``): what de-duplication
    and the fold read of it, what its reader made of it (``made``: the row's fields, opaque
    here) and the frame it was read from (kept as text, read again when asked for).
    ``agent_spoke``: an agent's message or action (it ends the streaming preview)."""

    id: str
    parent_id: str | None
    timestamp: str | None
    agent_spoke: bool
    made: Any = field(compare=False, repr=False)
    frame: str | bytes = field(compare=False, repr=False)
    replaces: bool = False


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
    """Dedup by event id, letting a copy with ``parent_id`` replace one without (pure)."""

    def __init__(self) -> None:
        self._seen: dict[str, bool] = {}  # id -> the yielded copy had a parent_id
        self.newest_timestamp: str | None = None  # newest persisted timestamp (string order)

    def __len__(self) -> int:
        return len(self._seen)

    def accept(
        self, event: AnyEvent, size: int = 0, frame: str | bytes | None = None
    ) -> StreamEvent | None:
        """The item to yield for ``event`` (``size``: its frame's length; ``frame``: the
        frame itself, when the consumer may keep it), or None when it is a plain duplicate."""
        if is_transient(event):
            return StreamEvent(event, transient=True, size=size, frame=frame)
        seen = self._decide(event.id, event.parent_id, event.timestamp)
        if seen is None:
            return None
        return StreamEvent(event, replaces=seen, size=size, frame=frame)

    def accept_read(self, item: ReadEvent) -> ReadEvent | None:
        """:meth:`accept` for an event read elsewhere (never transient: its reader says)."""
        seen = self._decide(item.id, item.parent_id, item.timestamp)
        if seen is None:
            return None
        return replace(item, replaces=True) if seen else item

    def _decide(self, event_id: str | None, parent_id: str | None, stamp: Any) -> bool | None:
        """None: a plain duplicate; else whether it replaces a copy yielded before."""
        if isinstance(stamp, str) and (
            self.newest_timestamp is None or stamp > self.newest_timestamp
        ):
            self.newest_timestamp = stamp
        if not event_id:
            return False
        has_parent = bool(parent_id)
        before = self._seen.get(event_id)
        if before is None:
            self._seen[event_id] = has_parent
            return False
        if has_parent and not before:
            self._seen[event_id] = True
            return True
        return None
