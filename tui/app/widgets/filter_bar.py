"""The filter bar over the event list: kind, time range and sort order, always visible."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Input, Label, Select

from tui.models import EVENT_KINDS

from ..row_windows import EventQuery


def parse_when(text: str) -> str | None:
    """Accept ISO dates/times (``2026-11-21``, ``2026-11-21 14:05``); '' means no bound."""
    text = text.strip()
    if not text:
        return None
    return datetime.fromisoformat(text.replace(" ", "T", 1)).isoformat()


class FilterBar(Horizontal):
    DEFAULT_CSS = """
    FilterBar { height: 1; background: $panel; padding: 0 1; }
    FilterBar Label { padding: 0 1 0 1; color: $text-muted; }
    FilterBar Select { width: 30; }
    FilterBar Input { width: 20; }
    FilterBar Input.-invalid { background: $error 30%; }
    FilterBar Button { min-width: 14; margin-left: 2; }
    """

    @dataclass
    class Changed(Message):
        query: EventQuery

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.query = EventQuery()

    def compose(self) -> ComposeResult:
        yield Label("kind")
        yield Select(
            [(k, k) for k in EVENT_KINDS],
            prompt="all kinds",
            id="filter-kind",
            allow_blank=True,
            compact=True,
        )
        yield Label("from")
        yield Input(placeholder="YYYY-MM-DD HH:MM", id="filter-since", compact=True)
        yield Label("before")
        yield Input(placeholder="YYYY-MM-DD HH:MM", id="filter-until", compact=True)
        yield Button("oldest first", id="filter-sort", compact=True)

    def set_query(self, query: EventQuery) -> None:
        self.query = query
        kind = self.query_one("#filter-kind", Select)
        if query.kind:
            kind.value = query.kind
        else:
            kind.clear()
        self.query_one("#filter-since", Input).value = query.since or ""
        self.query_one("#filter-until", Input).value = query.until or ""
        self._sort_label()

    def _sort_label(self) -> None:
        self.query_one("#filter-sort", Button).label = (
            "newest first" if self.query.descending else "oldest first"
        )

    def toggle_sort(self) -> None:
        self._emit(descending=not self.query.descending)

    def _emit(self, **changes) -> None:
        new = EventQuery(**{**self.query.__dict__, **changes})
        if new != self.query:
            self.query = new
            self._sort_label()
            self.post_message(self.Changed(new))

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = event.value
        self._emit(kind=str(value) if isinstance(value, str) else None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        field = "since" if event.input.id == "filter-since" else "until"
        try:
            value = parse_when(event.value)
        except ValueError:
            event.input.add_class("-invalid")
            self.app.notify(f"Not a date/time: {event.value!r}", severity="error", markup=False)
            return
        event.input.remove_class("-invalid")
        self._emit(**{field: value})

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.toggle_sort()
