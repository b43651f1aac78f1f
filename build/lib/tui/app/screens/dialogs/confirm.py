"""A yes/no question before an action that destroys or costs something (delete, interrupt,
a new paid run of an agent); the default answer is no.

Like every dialog it has its own key bar: while it is open only its keys are offered,
and only they work (the app's keys stand aside, ``OhtuiApp.check_action``)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.widgets.common.key_bar import KeyBar


class ConfirmScreen(DismissOnce, ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]
    CSS_PATH = "confirm.tcss"

    def __init__(self, question: str, yes: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(Text(self.question))
            with Horizontal(id="confirm-buttons"):
                yield Button("No (n)", id="no", variant="primary")
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
