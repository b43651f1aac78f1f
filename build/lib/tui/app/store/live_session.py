"""A running conversation's live side: its websocket stream, folded state and agent client.

The screen's stream worker receives items in ~50 ms batches (``EventStream.batches``) and
folds each batch here into a :class:`StreamState` (status, cost, streaming text, errors);
persistable events are held until the screen hands them to the event store, once per
batch, so a burst costs one repaint, never one per event. Rows are held back until the
conversation's index is complete, so ids decide exactly what is new and nothing is
counted twice. No Textual here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.app.format import status_value
from tui.app.helper.live_worker import LiveReader
from tui.client import (
    AgentServerClient,
    EventStream,
    StreamEvent,
    StreamState,
    StreamStatus,
    agent_endpoint,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from tui.client.stream_items import ReadEvent
    from tui.models import AnyEvent, AppConversation


def can_follow(conversation: AppConversation) -> bool:
    """The conversation's agent can be followed live: its sandbox runs and it has an address.
    (A session key is not needed: an open agent server has none.)"""
    return bool(
        conversation.conversation_url and status_value(conversation.sandbox_status) == "RUNNING"
    )


class LiveSession:
    """The live half of a conversation screen: stream, agent controls and folded state."""

    def __init__(self, app_base_url: str, conversation: AppConversation) -> None:
        #: the address it follows (a resumed sandbox may come back elsewhere)
        self.url = conversation.conversation_url
        self.endpoint = agent_endpoint(app_base_url, conversation)
        self.agent = AgentServerClient(self.endpoint)
        self.state = StreamState()
        #: persistable events waiting for the index (read in a helper: their ReadEvents)
        self.held: list[AnyEvent | ReadEvent] = []
        #: the frames held events were read from, by id: the store keeps an event's text,
        #: not its objects (see StreamEvent.frame); None for an id several held events
        #: carry (the store keeps those as they are, each under its own row's key)
        self.frames: dict[str, str | bytes | None] = {}
        self.stream: EventStream | None = None
        self.reader: LiveReader | None = None

    def open_stream(self, known: Callable[[AnyEvent], bool]) -> EventStream:
        """The stream, its frames left for :meth:`read` (in a helper while it is fast).
        ``known``: the store holds this event (its history): what the sandbox logged
        beyond it comes from the agent's log, by identity (``tui.client.stream_gap``)."""
        self.stream = EventStream(self.endpoint, known=known, read=False)
        self.reader = LiveReader(self.stream.dedup)
        return self.stream

    async def read(self, batch: list[Any]) -> list[StreamEvent | ReadEvent | StreamStatus]:
        """A batch of the stream's items with its frames read (see ``live_worker.py``)."""
        assert self.reader is not None
        return await self.reader.read(batch)

    def fold(self, batch: list[StreamEvent | ReadEvent | StreamStatus]) -> set[str]:
        changed = self.state.extend(batch)
        frames = self.frames
        for item in batch:
            if type(item) is StreamEvent and item.frame is not None and item.event.id is not None:
                event_id = item.event.id
                if item.copy != 1 or (event_id in frames and frames[event_id] is None):
                    frames[event_id] = None  # another event with this id: no frame by id
                else:
                    frames[event_id] = item.frame
        self.held.extend(self.state.take_events())
        return changed

    def take_held(self) -> tuple[list[AnyEvent | ReadEvent], dict[str, str | bytes | None]]:
        """The held events and their frames, for the store; none held after."""
        held, frames = self.held, self.frames
        self.held, self.frames = [], {}
        return held, frames

    @property
    def running(self) -> bool:
        return status_value(self.state.execution_status) == "running"

    @property
    def waiting_for_confirmation(self) -> bool:
        """The agent holds an action until the user approves or rejects it."""
        return status_value(self.state.execution_status) == "waiting_for_confirmation"

    async def aclose(self) -> None:
        if self.stream is not None:
            await self.stream.close()
        if self.reader is not None:
            await self.reader.aclose()
        await self.agent.aclose()
