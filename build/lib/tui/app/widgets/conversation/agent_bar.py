"""What a live conversation's agent is doing, and what the user tells it.

- :class:`StreamPreview`: the reply the agent is writing, in place until the final message;
- :class:`RunErrorBanner`: why the run stopped, while it is stopped with an error;
- :class:`ConfirmBar`: the actions the agent waits to run until the user approves (A) or
  rejects (R) them;
- :class:`MessageLine`: a line for a message to the agent, or a rejection's reason; it
  posts :class:`MessageLine.Sent` up.

Display and input only: none of them talks to the agent. The conversation screen feeds
them from the live stream and does what :class:`MessageLine.Sent` asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message
from textual.widgets import Input, Static

from tui.app.format import status_value
from tui.app.widgets.common.ordered_input import OrderedInput
from tui.app.widgets.conversation.risk_views import risk_style
from tui.text import abbreviate, clean

if TYPE_CHECKING:
    from tui.app.store.action_index import Risk
    from tui.app.store.rows import EventRow
    from tui.client import StreamState

MESSAGE_PLACEHOLDER = "message to the agent (enter sends, esc cancels)"
REASON_PLACEHOLDER = "why reject? the agent is told this (enter rejects, esc cancels)"


class StreamPreview(Static):
    """The agent's reply while it streams in (hidden when nothing streams)."""

    def show(self, state: StreamState) -> None:
        self.set_class(state.is_streaming, "-visible")
        if not state.is_streaming:
            return
        text = Text("agent is writing… ", style="bold italic")
        if state.streaming_reasoning:
            reasoning, _ = abbreviate(state.streaming_reasoning[-2000:], max_lines=6)
            text.append(reasoning + "\n", style="italic dim")
        shown, _ = abbreviate(state.streaming_text[-4000:], max_lines=12)
        text.append(shown)
        self.update(text)


class RunErrorBanner(Static):
    """Why the run stopped, while the agent's status is ``error`` (hidden otherwise)."""

    def show(self, state: StreamState) -> None:
        error = state.last_error
        stopped = error is not None and status_value(state.execution_status) == "error"
        self.set_class(stopped, "-visible")
        if error is None or not stopped:
            return
        text = Text(f"✕ The run stopped: {clean(error.code)}\n", style="bold")
        text.append(clean(error.detail[:500]))
        if error.classification is not None and error.classification.user_action != "none":
            text.append(f"\nsuggested: {error.classification.user_action}", style="italic")
        self.update(text)


class ConfirmBar(Static):
    """The actions the agent waits to run, while it waits for the user's approval, each with
    its risk where an analyzer (or the agent) rated it."""

    SHOWN = 3  # actions listed; more are counted

    def show(
        self,
        pending: Sequence[EventRow] | None,
        risk_of: Callable[[EventRow], Risk | None] | None = None,
    ) -> bool:
        """``pending``: the waiting actions (None: the agent is not waiting); ``risk_of``:
        each one's risk. True when the bar appeared or went, so the screen can update which
        keys apply."""
        waiting = pending is not None
        changed = waiting != self.has_class("-visible")
        self.set_class(waiting, "-visible")
        if pending is None:
            return changed
        text = Text("The agent waits for your approval", style="bold")
        text.append(
            f" of {len(pending)} action{'s' if len(pending) != 1 else ''}:" if pending else "."
        )
        if len(pending) > self.SHOWN:
            text.append(f" (the last {self.SHOWN} shown)", style="dim")
        for row in pending[-self.SHOWN :]:
            text.append("\n  ")
            text.append(clean(row.summary)[:200])
            risk = risk_of(row) if risk_of is not None else None
            if risk is not None:
                text.append("  ")
                text.append(risk.describe(), style=risk_style(risk.level))
        text.append("\nA", style="bold")
        text.append(" approve and run   ")
        text.append("R", style="bold")
        text.append(" reject (with a reason for the agent)")
        self.update(text)
        return changed


class MessageLine(OrderedInput):
    """A line the user types to the agent: a message, or why an action is rejected."""

    @dataclass
    class Sent(Message):
        """Enter: ``text`` (stripped) is a message, or with ``reject`` a rejection's reason."""

        text: str
        reject: bool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder=MESSAGE_PLACEHOLDER, id=id)

    @property
    def is_open(self) -> bool:
        return self.has_class("-visible")

    def ask_message(self) -> None:
        self.add_class("-visible")
        self.focus()

    def ask_reason(self) -> None:
        self.placeholder = REASON_PLACEHOLDER
        self.add_class("-visible", "-reject")
        self.focus()

    def close(self) -> None:
        """Hide and forget what was typed (the screen moves the focus back)."""
        self.value = ""
        self.remove_class("-visible", "-reject")
        self.placeholder = MESSAGE_PLACEHOLDER

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Sent(event.value.strip(), self.has_class("-reject")))
