"""The find bar: a query, its toggles (regex, case, only matches) and what the search is doing.

Enter searches and hands the keys to the list; a toggle (``^r`` ``^t`` ``^o`` or a click)
searches again but leaves the focus where it was, so typing goes on in the field."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Checkbox, Input, Label, Static

from tui.app.store.search import FindQuery
from tui.app.themes import theme_style
from tui.app.widgets.common.ordered_input import OrderedInput

TOGGLES = {"regex": "find-regex", "case": "find-case", "only": "find-only"}


class FindBar(Horizontal):
    """Enter searches; the toggles re-run it. The screen does the searching (in a worker).

    The conversation screen mounts the bar only after its first rows are painted
    (``deferred.py``), but a jump typed with the enter that opened it (``u``, ``e``) reports
    at once: :meth:`set_status` keeps what it is told and shows it once the bar is composed,
    so nothing queries parts that are not there yet."""

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
    FindBar Input { width: 1fr; max-width: 32; min-width: 14; }
    FindBar Input.-invalid { background: $error 30%; }
    FindBar Checkbox { margin-left: 1; }
    FindBar #find-status {
        width: 1fr;
        min-width: 20;
        padding-left: 2;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """
    #: the toggles' labels: in full where there is room, short on a narrow terminal
    LABELS = {
        "regex": ("regex", ".*"),
        "case": ("case", "Aa"),
        "only": ("only matches", "only"),
    }
    NARROW = 110  # below this many columns the short labels leave the status room

    @dataclass
    class Submitted(Message):
        query: FindQuery
        only: bool
        #: enter: the list takes the keys (n / N walk the hits). A toggle keeps the focus
        #: where it is: letters typed after ^r in the field are more of the query, never
        #: the list's commands.
        to_list: bool = False

    class Closed(Message):
        pass

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._status: tuple[str, bool] = ("", False)  # what set_status said last

    def compose(self) -> ComposeResult:
        yield Label("find")
        yield OrderedInput(placeholder="text or regex, enter", id="find-input", compact=True)
        yield Checkbox("regex", id="find-regex", compact=True)
        yield Checkbox("case", id="find-case", compact=True)
        yield Checkbox("only matches", id="find-only", compact=True)
        yield Static(id="find-status")

    @property
    def query_text(self) -> str:
        return self.query_one("#find-input", Input).value

    def _toggles(self) -> dict[str, Checkbox]:
        """The toggles by name, those mounted (none while the screen is torn down)."""
        names = {box_id: name for name, box_id in TOGGLES.items()}
        return {names[box.id]: box for box in self.query(Checkbox) if box.id in names}

    def on_mount(self) -> None:
        self._show_status()  # what was said before the bar was mounted
        keys = {"regex": "^r", "case": "^t", "only": "^o"}
        for name, box in self._toggles().items():
            box.can_focus = False  # toggled by ^r ^t ^o or a click: Tab goes to the panes
            box.tooltip = f"{self.LABELS[name][0]} ({keys[name]})"

    def on_resize(self) -> None:
        short = self.size.width < self.NARROW
        for name, box in self._toggles().items():
            long, brief = self.LABELS[name]
            wanted = brief if short else long
            if str(box.label) != wanted:
                box.label = wanted

    def open(self) -> None:
        self.add_class("-visible")
        # focus now, not after a refresh: "/" then a query typed at once must all land here
        self.screen.set_focus(self.query_one("#find-input", Input))

    def show_query(self, query: FindQuery) -> None:
        """Shown with ``query`` in it, the keys left where they are (a search hit's words,
        marked by the screen): nothing is submitted, so the cursor stays on its event."""
        field = self.query_one("#find-input", Input)
        with field.prevent(Input.Changed):
            field.value = query.pattern
        for name, wanted in (("regex", query.regex), ("case", query.case), ("only", False)):
            box = self.query_one(f"#{TOGGLES[name]}", Checkbox)
            with box.prevent(Checkbox.Changed):
                box.value = wanted
        self.add_class("-visible")

    def set_status(self, text: str, *, error: bool = False) -> None:
        """What the search is doing (an error marks the query); kept until the bar is mounted."""
        self._status = (text, error)
        self._show_status()

    @property
    def status(self) -> str:
        """The words :meth:`set_status` gave last (shown, or to be shown once mounted)."""
        return self._status[0]

    def _show_status(self) -> None:
        text, error = self._status
        for field in self.query("#find-input").results(Input):  # none until composed
            field.set_class(error, "-invalid")
        for status in self.query("#find-status").results(Static):
            style = theme_style("$error bold") if error else ""
            status.update(Text(text, style=style))

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
        # empty: find nothing, say nothing
        self.post_message(self.Submitted(*self.current(), to_list=True))

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        event.stop()
        if self.query_text:
            self.post_message(self.Submitted(*self.current()))
