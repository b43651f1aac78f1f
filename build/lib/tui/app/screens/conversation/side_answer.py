"""The agent's answer to a side question (``s`` on a conversation, ``ask_agent``): shown
here, copyable (``c``, ``ctrl+c``), never added to the event list or to exports — the
server logs nothing for it, and the app keeps it only while this panel is open.

The question and the answer are the user's and the model's words: shown literally (never
markup), control sequences neutralised, secrets masked (``tui.models.redact``) on screen and
in the copy alike."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.widgets.common.key_bar import KeyBar
from tui.models.redact import redact_text
from tui.text import clean


def answer_text(question: str, answer: str) -> str:
    """What the panel shows and what a copy holds: masked, cleaned."""
    return f"Q: {clean(redact_text(question))}\n\n{clean(redact_text(answer))}"


class SideAnswerScreen(DismissOnce, ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="side-answer.close"),
        Binding("c", "copy", "Copy", id="side-answer.copy"),
    ]
    CSS_PATH = "side_answer.tcss"
    #: ctrl+c copies the answer where no text is selected (``copy_key.py``)
    COPY_ACTION = "copy"

    def __init__(self, question: str, answer: str | None = None) -> None:
        super().__init__()
        self.question = question
        #: what is shown and copied: the question and the answer (the question alone while
        #: the agent has not answered)
        self.text = answer_text(question, answer) if answer is not None else ""
        self.waiting = answer is None

    def compose(self) -> ComposeResult:
        with Vertical(id="side-answer-box"):
            yield Static(
                Text("The agent's answer (not added to the conversation)", style="bold"),
                id="side-answer-title",
            )
            with VerticalScroll(id="side-answer-scroll"):
                yield Static(Text(self.shown()), id="side-answer-text")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#side-answer-scroll").focus()

    def shown(self) -> str:
        if self.waiting:
            return answer_text(self.question, "Waiting for the agent's answer…")
        return self.text

    def answered(self, answer: str) -> None:
        """The agent's answer arrived (the panel was opened as the question went)."""
        self.text, self.waiting = answer_text(self.question, answer), False
        self.query_one("#side-answer-text", Static).update(Text(self.text))

    def failed(self, why: str) -> None:
        """No answer: why, in words, where the answer would be."""
        self.waiting = False
        self.text = answer_text(self.question, f"No answer: {why}")
        self.query_one("#side-answer-text", Static).update(Text(self.text))

    def action_copy(self) -> None:
        if self.waiting:
            self.notify("The agent has not answered yet: nothing to copy.", markup=False)
            return
        self.app.copy_to_clipboard(self.text)
        self.notify("Copied the question and the agent's answer.", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
