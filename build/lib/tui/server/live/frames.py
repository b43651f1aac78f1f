"""Websocket frames and the queues they wait in, one per subscriber.

A frame is one event's JSON; live frames leave out null fields (``exclude_none``), replayed
ones are sent as stored. A subscriber that falls :data:`MAX_BACKLOG` frames behind is closed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tui.models import RawEvent, parse_event

#: Frames a subscriber may have queued before it is dropped as too slow.
MAX_BACKLOG = 5000


@dataclass(frozen=True)
class Close:
    """Queued to a subscriber: close its websocket with this code and reason."""

    code: int
    reason: str


class Subscriber:
    """One websocket's queue of frames (JSON text) and, last, maybe a :class:`Close`."""

    def __init__(self, upto_seq: int, full_state: str) -> None:
        self.queue: asyncio.Queue[str | Close] = asyncio.Queue()
        self.upto_seq = upto_seq  # the replay covers the log up to here; the queue the rest
        self.full_state = full_state
        self.closing: Close | None = None

    def put(self, frame: str) -> bool:
        if self.closing is not None:
            return True
        if self.queue.qsize() >= MAX_BACKLOG:
            return False
        self.queue.put_nowait(frame)
        return True

    def close(self, close: Close) -> None:
        if self.closing is not None:
            return
        self.closing = close
        while not self.queue.empty():  # a close is urgent: drop what was not sent yet
            self.queue.get_nowait()
        self.queue.put_nowait(close)


def frame_text(event: dict[str, Any] | RawEvent | Any, *, live: bool = True) -> str:
    """One websocket frame: the event's JSON with null fields omitted (``exclude_none``).

    Live HookExecutionEvent frames carry no ``parent_id`` (the real server sends them before
    the id is stamped; their persisted copies have it, facts §6): ``live=False`` (replay)
    keeps it.
    """
    model = parse_event(event) if isinstance(event, dict) else event
    if isinstance(model, RawEvent):
        raw = model.raw
        return (
            json.dumps(raw, separators=(",", ":"), ensure_ascii=False)
            if not isinstance(raw, str)
            else raw
        )
    exclude = {"parent_id"} if live and model.kind == "HookExecutionEvent" else None
    return model.model_dump_json(exclude_none=True, exclude=exclude)


def is_transient(data: dict[str, Any]) -> bool:
    """A StreamingDeltaEvent or a ``full_state`` update: sent live, never replayed by an agent
    server (an app server's stored history may hold them, ``store_transient_events``)."""
    kind = data.get("kind")
    return kind == "StreamingDeltaEvent" or (
        kind == "ConversationStateUpdateEvent" and data.get("key") == "full_state"
    )


def replay_frames(rows: Iterable[Any]) -> list[str]:
    """Frames for stored rows (JSON text as stored, nulls included) in the order given;
    transient events stored beside the log (:func:`is_transient`) are left out."""
    out = []
    for row in rows:
        try:
            data = json.loads(row.json)
        except ValueError:
            out.append(row.json)
            continue
        if not isinstance(data, dict):
            out.append(row.json)
        elif not is_transient(data):
            out.append(_replayable(data, row.json))
    return out


def _replayable(data: dict[str, Any], stored: str) -> str:
    """The replay frame of one stored event; the stored text itself when the event cannot be
    re-encoded (a ``"\\ud800"`` escape from a local file decodes to a lone surrogate, which
    no UTF-8 frame can carry: its escaped original can)."""
    try:
        frame = frame_text(parse_event(data), live=False)
        frame.encode("utf-8")
    except (ValueError, UnicodeError):  # PydanticSerializationError is a ValueError
        return stored
    return frame
