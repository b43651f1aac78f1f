"""A one-line question for a path: the Files screen's "open a file or folder" (``o``) and
"new folder" (``n``). Enter answers with the text typed, esc with None; the field has the
keys meanwhile (a dialog: the app's own keys stand aside, ``navigation.DIALOG_FREE``)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.common.ordered_input import OrderedInput


class PathDialog(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="path-dialog.cancel"),
        # not a priority binding: the field's own enter (Input.Submitted) comes after the
        # characters typed before it, where a priority one would overtake them
        Binding("enter", "answer", "OK", id="path-dialog.ok"),
    ]
    CSS_PATH = "path_dialog.tcss"

    def __init__(self, title: str, hint: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.hint = hint
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="path-box"):
            # Text, never markup: a folder's name comes from the server
            yield Static(Text(self.title_text, style="bold"), id="path-title")
            # the cursor after the folder given, nothing selected: typing adds a name to it
            yield OrderedInput(
                self.value, placeholder=self.placeholder, select_on_focus=False, id="path-input"
            )
            yield Static(Text(self.hint), id="path-hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer()

    def action_answer(self) -> None:
        text = self.query_one(Input).value.strip()
        self.dismiss(text or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
