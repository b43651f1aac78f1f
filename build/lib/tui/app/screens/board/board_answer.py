"""Approve or reject what waiting agents want to run, after seeing it.

The board's ``A`` and ``R`` open this over the board with every waiting action of the
chosen rows listed; nothing is answered until the user says so here. A rejection takes an
optional reason, which the agent is told. Each action comes with its risk, as the
conversation screen's confirmation bar says it (the analyzer's verdict, else the agent's
own estimate).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.store.action_index import Risk
from tui.app.widgets.common.ordered_input import OrderedInput
from tui.app.widgets.conversation.risk_views import risk_style

#: Actions listed per conversation (the rest are counted).
SHOWN_ACTIONS = 3

#: (the row's label, what its agent waits to run with each action's risk, when known)
Waiting = list[tuple[str, list[tuple[str, Risk | None]]]]


def waiting_text(waiting: Waiting, accept: bool) -> Text:
    count = len(waiting)
    verb = "Approve" if accept else "Reject"
    text = Text(
        f"{verb} what {'this agent waits' if count == 1 else f'these {count} agents wait'} to run?",
        style="bold",
    )
    for label, actions in waiting:
        text.append("\n\n")
        text.append(label, style="bold")
        if not actions:
            text.append("\n  (the waiting action could not be read)", style="italic")
        for action, risk in actions[:SHOWN_ACTIONS]:
            text.append("\n  ")
            text.append(action)
            if risk is not None:  # what the analyzer (or the agent) thinks of it
                text.append("\n    ")
                text.append(risk.describe(), style=risk_style(risk.level))
        if len(actions) > SHOWN_ACTIONS:
            text.append(f"\n  … and {len(actions) - SHOWN_ACTIONS} more", style="italic")
    return text


class BoardAnswerScreen(DismissOnce, ModalScreen[str | None]):
    """Dismissed with the reason ("" to approve, or none given) or None (cancelled)."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel", id="board-answer.cancel"),
        Binding("y", "answer", "Yes", show=False, id="board-answer.yes"),
    ]
    CSS_PATH = "board_answer.tcss"

    def __init__(self, waiting: Waiting, *, accept: bool) -> None:
        super().__init__()
        self.waiting = waiting
        self.accept = accept

    def compose(self) -> ComposeResult:
        with Vertical(id="answer-box", classes="-approve" if self.accept else "-reject"):
            with VerticalScroll(id="answer-list"):
                yield Static(waiting_text(self.waiting, self.accept))
            if not self.accept:
                yield OrderedInput(
                    placeholder="why (optional: the agent is told), enter to reject",
                    id="answer-reason",
                )
            with Horizontal(id="answer-buttons"):
                yield Button("Cancel (esc)", id="no")
                yield Button(
                    "Approve and run (y)" if self.accept else "Reject (enter)",
                    id="yes",
                    variant="success" if self.accept else "error",
                )

    def on_mount(self) -> None:
        if self.accept:
            self.query_one("#yes", Button).focus()
        else:
            self.query_one("#answer-reason", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "answer" and not self.accept)  # y is typed in the reason

    def action_answer(self) -> None:
        self.dismiss("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "yes":
            self.dismiss(None)
        elif self.accept:
            self.dismiss("")
        else:
            self.dismiss(self.query_one("#answer-reason", Input).value.strip())
