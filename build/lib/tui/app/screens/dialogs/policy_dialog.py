"""Choose a conversation's confirmation policy or security analyzer (``M`` on a live
conversation): one list of both, the current ones marked; enter picks one, esc leaves
both as they are. The request is the conversation screen's (``conversation/acting.py``)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.widgets.common.key_bar import KeyBar

#: (what is set, its kind, what the list says)
CHOICES: list[tuple[str, str | None, str]] = [
    ("confirmation", "NeverConfirm", "Confirmation off: the agent runs every action"),
    ("confirmation", "AlwaysConfirm", "Confirmation on: every action waits for A / R"),
    ("confirmation", "ConfirmRisky", "Confirm risky: high-risk actions wait, the rest run"),
    ("analyzer", None, "No security analyzer"),
    ("analyzer", "LLMSecurityAnalyzer", "LLM analyzer: the model rates each action's risk"),
    ("analyzer", "PatternSecurityAnalyzer", "Pattern analyzer: known risky commands"),
]


class PolicyDialog(DismissOnce, ModalScreen[tuple[str, str | None] | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="policy.cancel"),
        Binding("j", "cursor('down')", "Down", show=False, id="policy.down"),
        Binding("k", "cursor('up')", "Up", show=False, id="policy.up"),
    ]
    CSS_PATH = "policy_dialog.tcss"

    def __init__(self, confirmation: str | None, analyzer: str | None) -> None:
        super().__init__()
        self.current = {"confirmation": confirmation or "NeverConfirm", "analyzer": analyzer}

    def compose(self) -> ComposeResult:
        options = []
        for what, kind, words in CHOICES:
            mark = "● " if self.current[what] == kind else "  "
            options.append(Option(Text(mark + words), id=f"{what}:{kind or ''}"))
        with Vertical(id="policy-box"):
            yield Static(Text("Policies of this conversation", style="bold"))
            yield OptionList(*options, id="policy-options")
            yield Static(
                Text("enter sets the one chosen (● is the current one); esc changes nothing"),
                id="policy-hint",
            )
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        what, _, kind = (event.option.id or "").partition(":")
        self.dismiss((what, kind or None))

    def action_cursor(self, way: str) -> None:
        options = self.query_one(OptionList)
        options.action_cursor_down() if way == "down" else options.action_cursor_up()

    def action_cancel(self) -> None:
        self.dismiss(None)
