"""The find bar: a query, its toggles (regex, case, only matches) and what the search is doing."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Checkbox, Input, Label, Static

from ..search import FindQuery
from ..themes import theme_style

TOGGLES = {"regex": "find-regex", "case": "find-case", "only": "find-only"}


class FindBar(Horizontal):
    """Enter searches; the toggles re-run it. The screen does the searching (in a worker)."""

    BINDING_GROUP_TITLE = "Find"
    BINDINGS = [
        Binding("ctrl+r", "toggle('regex')", "Regex", id="find.regex"),
        Binding("ctrl+t", "toggle('case')", "Match case", id="find.case"),
        Binding("ctrl+o", "toggle('only')", "Only matches", id="find.only"),
        Binding("escape", "close", "Close find", id="find.close"),
    ]
    DEFAULT_CSS = """
    FindBar { height: 1; background: $panel; padding: 0 1; display: none; }
    FindBar.-visible { display: block; }
    FindBar Label { padding: 0 1 0 0; color: $text-muted; }
    FindBar Input { width: 32; }
    FindBar Input.-invalid { background: $error 30%; }
    FindBar Checkbox { margin-left: 1; }
    FindBar #find-status { width: 1fr; padding-left: 2; color: $text-muted; }
    """

    @dataclass
    class Submitted(Message):
        query: FindQuery
        only: bool

    class Closed(Message):
        pass

    def compose(self) -> ComposeResult:
        yield Label("find")
        yield Input(placeholder="text or regex, enter", id="find-input", compact=True)
        yield Checkbox("regex", id="find-regex", compact=True)
        yield Checkbox("case", id="find-case", compact=True)
        yield Checkbox("only matches", id="find-only", compact=True)
        yield Static(id="find-status")

    @property
    def query_text(self) -> str:
        return self.query_one("#find-input", Input).value

    def open(self) -> None:
        self.add_class("-visible")
        box = self.query_one("#find-input", Input)
        box.focus()

    def set_status(self, text: str, *, error: bool = False) -> None:
        self.query_one("#find-input", Input).set_class(error, "-invalid")
        style = theme_style("$error bold") if error else ""
        self.query_one("#find-status", Static).update(Text(text, style=style))

    def current(self) -> tuple[FindQuery, bool]:
        return (
            FindQuery(self.query_text, regex=self._on("regex"), case=self._on("case")),
            self._on("only"),
        )

    def _on(self, name: str) -> bool:
        return self.query_one(f"#{TOGGLES[name]}", Checkbox).value

    def action_toggle(self, name: str) -> None:
        box = self.query_one(f"#{TOGGLES[name]}", Checkbox)
        box.value = not box.value

    def action_close(self) -> None:
        self.post_message(self.Closed())

    @on(Input.Submitted, "#find-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.query_text:
            self.post_message(self.Submitted(*self.current()))

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        if self.query_text:
            self.post_message(self.Submitted(*self.current()))
