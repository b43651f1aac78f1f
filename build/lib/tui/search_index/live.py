"""Events that arrive while they happen (a followed run's stream, a watched folder's new
files) added to the index as they come, by the fill's own path: each masked by
:func:`.extract.extract` and stored by :meth:`.store.SearchIndex.add_events`, so what the
index holds of an event is the same whichever way it came. The resume point of the
conversation's walk is left alone (a stream does not bring everything since the last
walk: what came before it connected is the history's), so the next fill still reads on
from where its walk stopped, leaving the events held by their ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .extract import extract
from .store import SearchIndex

CHUNK = 500  # events a transaction (and a lookup of those held)


def _fields(payload: Any) -> Any:
    """The event's JSON fields from the frame it came in (as a page would bring them), or
    the event itself where there is no frame (the masking dumps it)."""
    if isinstance(payload, (str, bytes)):
        try:
            fields = json.loads(payload)
        except ValueError:
            return None
        return fields if isinstance(fields, dict) else None
    return payload


def _held(index: SearchIndex, conversation: str, ids: list[str]) -> set[str]:
    """Which of ``ids`` the index holds already (a replay is not masked again for nothing)."""
    marks = ",".join("?" * len(ids))
    return {
        event_id
        for (event_id,) in index.read(
            "SELECT e.event_id FROM events e JOIN conversations c ON c.cid = e.conv"
            f" WHERE c.id = ? AND e.event_id IN ({marks})",
            (conversation, *ids),
        )
    }


def add_arrived(
    index: SearchIndex, conversation: str, arrived: Iterable[tuple[str, Any]], title: str = ""
) -> int:
    """Index ``arrived`` (``(event id, frame text or event)`` pairs) of ``conversation``;
    returns how many were new. ``title``: the conversation's, where the index has none yet
    (a run started after the last fill). Runs in a thread: masking costs."""
    items = list(arrived)
    added = 0
    for start in range(0, len(items), CHUNK):
        chunk = items[start : start + CHUNK]
        held = _held(index, conversation, [event_id for event_id, _ in chunk])
        events = [
            found
            for event_id, payload in chunk
            if event_id not in held
            and (fields := _fields(payload)) is not None
            and (found := extract(fields)) is not None
        ]
        if events:
            added += index.add_events(conversation, events, None, live=True)
    if added and title:
        index.guarded(
            lambda db: db.execute(
                "UPDATE conversations SET title=? WHERE id=? AND title=''", (title, conversation)
            )
        )
    return added
