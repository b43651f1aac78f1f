"""A fast stream's frames read in a helper process: parsed and made into rows there.

Why: at thousands of events a second, reading each frame through the closed models and
making its row (~15 µs of GIL-holding Python an event, with the collections its objects set
off) is a third of the UI loop's work, which then has little left for keys and paints. A
second interpreter does it on the machine's other core.

The conversation screen's stream yields its frames unread (``EventStream(read=False)``).
:class:`LiveReader` turns each batch of them into stream items: a frame the helper read
becomes a :class:`~tui.client.stream_items.ReadEvent` (its row's fields, what dedup and the
fold read, the frame itself for the cache); anything else is read here, in-line, exactly as
the stream reads it (``parse_event_json`` then the stream's dedup), so a broken event is
kept raw with its reason, as before. The helper reads only persisted typed events the
store and the fold need nothing more of than their rows (:data:`ROW_ENOUGH`); for the
rest, and for a frame UTF-8 cannot hold (the cache keeps that one parsed), it answers None.

Only a big batch goes to the helper (:data:`HELPER_FROM` frames: a real agent's few events a
second, or a moderate stream, never pay for an interpreter or a round trip), and the first
one starts it; until it has said it is ready, if it cannot start, if a request fails or it
dies, batches are read in-line (it is not restarted). It
exits when the stream is closed, or when this process ends (its stdin closes:
``process_worker``). No Textual here.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tui.app.store.rows import make_row
from tui.client.process_worker import ProcessWorker, WorkerGone, answer
from tui.client.stream_items import EventDeduper, ReadEvent, StreamFrame
from tui.models.events import (
    EVENT_CLASSES,
    ActionEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    MessageEvent,
    SecurityAnalysisEvent,
    ServerErrorEvent,
    StreamingDeltaEvent,
)
from tui.models.parse import parse_event_json

MODULE = "tui.app.helper.live_worker"

#: Typed kinds whose events nothing reads but their rows as they arrive: persisted (never
#: transient), not folded into the stream's state (status, stats, errors), not read by the
#: store when taken in (security verdicts).
ROW_ENOUGH = frozenset(EVENT_CLASSES) - {
    ServerErrorEvent,
    StreamingDeltaEvent,
    ConversationStateUpdateEvent,
    ConversationErrorEvent,
    SecurityAnalysisEvent,
}
#: A batch of this many frames is read in the helper (a stream of ~8,000 events a second and
#: up, or a replay); the first such batch starts it. Below it the round trip costs more than
#: it frees: at 5,000/s (batches of ~250) p99 was 91–102 ms through the helper against
#: 82–88 read in-line, while at 20,000/s (batches of ~1,000) keys waited a third as long.
HELPER_FROM = 400

#: what the helper sends back for a frame it read: (id, parent_id, timestamp, kind,
#: agent_spoke, the row's fields ``EventRow.state()``), or None: read it in-line
Answer = tuple[str, str | None, str | None, str, bool, tuple[Any, ...]] | None


def read_frame(frame: str | bytes) -> Answer:
    """The helper's reading of one frame (None: the UI reads it itself)."""
    event = parse_event_json(frame)
    if type(event) not in ROW_ENOUGH or not event.id:
        return None
    if type(frame) is str:
        try:
            frame.encode()
        except UnicodeEncodeError:
            return None  # the cache keeps this one as the parsed event
    spoke = type(event) in (MessageEvent, ActionEvent) and event.source == "agent"
    return (event.id, event.parent_id, event.timestamp, event.kind, spoke, make_row(event).state())


def read_frames(frames: list[str | bytes]) -> list[Answer]:
    """A request to the helper: one answer per frame, in order."""
    return [read_frame(frame) for frame in frames]


class LiveReader:
    """Reads a stream's unread frames (see the module doc); one per stream."""

    def __init__(self, dedup: EventDeduper, module: str = MODULE) -> None:
        self.dedup = dedup
        self.worker = ProcessWorker(module)
        self.started = False
        self.helped = 0  # frames the helper read (for tests and benchmarks)

    async def read(self, batch: list[Any]) -> list[Any]:
        """The batch's items, its frames read and de-duplicated in order."""
        frames = [item.frame for item in batch if type(item) is StreamFrame and item.event is None]
        answers = await self._ask(frames) if frames else None
        accept, accept_read = self.dedup.accept, self.dedup.accept_read
        out: list[Any] = []
        at = read = 0
        for item in batch:
            if type(item) is not StreamFrame:
                out.append(item)
                continue
            frame = item.frame
            read += 1
            if item.event is not None:  # an oversize frame's placeholder
                got = accept(item.event)
            else:
                found = answers[at] if answers is not None else None
                at += 1
                if found is not None:
                    got = accept_read(ReadEvent(*found, frame=frame))
                else:
                    got = accept(parse_event_json(frame), len(frame), frame)
            if got is not None:
                out.append(got)
        self.dedup.read_up(read)  # seen now: a gap fill that waits for them may go on
        return out

    async def _ask(self, frames: list[str | bytes]) -> list[Answer] | None:
        if len(frames) < HELPER_FROM:
            return None  # read here sooner than a round trip
        worker = self.worker
        if not self.started:
            self.started = True
            worker.start()
        if not worker.usable:
            return None
        try:
            answers = await answer(worker.submit(frames))
        except WorkerGone:
            return None
        if not isinstance(answers, list) or len(answers) != len(frames):
            return None
        self.helped += len(frames)
        return answers

    async def aclose(self) -> None:
        """Stop the helper (its stdin closes; killed if it does not exit at once)."""
        if self.started:
            await asyncio.to_thread(self.worker.close)


def handle(payload: Any) -> list[Answer]:
    return read_frames(payload)


if __name__ == "__main__":
    import importlib

    from tui.client.process_worker import serve
    from tui.memory import freeze_long_lived

    # by its name, not as __main__: what it sends must unpickle in the UI
    worker = importlib.import_module(MODULE)
    freeze_long_lived()  # the imports (models, schemas) stay: collections need not scan them
    serve(worker.handle)
