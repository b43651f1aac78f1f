"""What an :class:`~tui.client.stream.EventStream` yields, and the de-duplication that
decides it.

Apart from the socket code because these are pure (no I/O): the app's stream state, the
board's feed and the tests use them without a connection.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
        stamp = event.timestamp
        if isinstance(stamp, str) and (
            self.newest_timestamp is None or stamp > self.newest_timestamp
        ):
            self.newest_timestamp = stamp
        event_id = event.id
        if not event_id:
            return StreamEvent(event, size=size, frame=frame)
        has_parent = bool(event.parent_id)
        before = self._seen.get(event_id)
        if before is None:
            self._seen[event_id] = has_parent
            return StreamEvent(event, size=size, frame=frame)
        if has_parent and not before:
            self._seen[event_id] = True
            return StreamEvent(event, replaces=True, size=size, frame=frame)
        return None
