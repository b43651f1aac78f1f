"""Following a running conversation: the websocket stream folded into the screen.

The stream worker receives items in ~50 ms batches (``EventStream.batches``), folds them
into a :class:`StreamState` (status, cost, streaming text, errors) and hands persistable
events to the conversation's event store once per batch, so a burst costs one repaint, never one per event.
Rows are held back until the conversation's index is complete, so ids decide exactly
what is new and nothing is counted twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from tui.client import (
    AgentServerClient,
    EventStream,
    StreamEvent,
    StreamState,
    StreamStatus,
    agent_endpoint,
)
from tui.models import ExecutionStatus
from tui.text import abbreviate, clean

from .format import status_value

if TYPE_CHECKING:
    from tui.models import AnyEvent, AppConversation

LIVE_MARKS = {
    "connecting": ("◌ connecting", "italic"),
    "live": ("● live", "bold green"),
    "reconnecting": ("◌ reconnecting", "bold yellow"),
    "offline": ("○ offline", "bold red"),
    "failed": ("✕ stream failed", "bold red"),
}


def can_follow(conversation: AppConversation) -> bool:
    return bool(
        conversation.conversation_url
        and conversation.session_api_key
        and status_value(conversation.sandbox_status) == "RUNNING"
    )


def live_mark(state: StreamState | None, *, local: bool = False) -> Text:
    """The stream's state for the header; ``local``: a folder is watched, not an agent run."""
    if state is None or state.connection is None:
        return Text("")
    label, style = LIVE_MARKS.get(state.connection.state, (state.connection.state, ""))
    if local and state.connection.state == "live":
        label = "● watching the folder"
    mark = Text(label, style=style)
    if state.connection.state in ("reconnecting", "offline") and state.connection.attempt:
        mark.append(f" (try {state.connection.attempt})", style="dim")
    return mark


def streaming_text(state: StreamState) -> Text:
    """The agent's reply while it streams in, shown in place until the final message."""
    text = Text("agent is writing… ", style="bold italic")
    if state.streaming_reasoning:
        reasoning, _ = abbreviate(state.streaming_reasoning[-2000:], max_lines=6)
        text.append(reasoning + "\n", style="italic dim")
    shown, _ = abbreviate(state.streaming_text[-4000:], max_lines=12)
    text.append(shown)
    return text


class LiveSession:
    """The live half of a conversation screen: stream, agent controls and folded state."""

    def __init__(self, app_base_url: str, conversation: AppConversation) -> None:
        self.endpoint = agent_endpoint(app_base_url, conversation)
        self.agent = AgentServerClient(self.endpoint)
        self.state = StreamState()
        self.held: list[AnyEvent] = []  # persistable events waiting for the index
        self.stream: EventStream | None = None

    def open_stream(self, since: str | None) -> EventStream:
        self.stream = EventStream(self.endpoint, since=since)
        return self.stream

    def fold(self, batch: list[StreamEvent | StreamStatus]) -> set[str]:
        changed = self.state.extend(batch)
        self.held.extend(self.state.take_events())
        return changed

    @property
    def running(self) -> bool:
        return self.state.execution_status in (ExecutionStatus.RUNNING, "running")

    @property
    def waiting_for_confirmation(self) -> bool:
        """The agent holds an action until the user approves or rejects it."""
        return self.state.execution_status in (
            ExecutionStatus.WAITING_FOR_CONFIRMATION,
            "waiting_for_confirmation",
        )

    def error_text(self) -> Text | None:
        error = self.state.last_error
        status = self.state.execution_status
        if error is None or status not in (ExecutionStatus.ERROR, "error"):
            return None
        text = Text(f"✕ The run stopped: {clean(error.code)}\n", style="bold")
        text.append(clean(error.detail[:500]))
        if error.classification is not None and error.classification.user_action != "none":
            text.append(f"\nsuggested: {error.classification.user_action}", style="italic")
        return text

    async def aclose(self) -> None:
        if self.stream is not None:
            await self.stream.close()
        await self.agent.aclose()
