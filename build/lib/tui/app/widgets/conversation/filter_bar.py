"""The filter bar over the event list: one line saying what the list is filtered by.

It used to hold the controls themselves (a kind menu, two time fields, a sort button):
at 80 columns they ran off the edge, the sort button was off-screen yet still took Tab,
and Tab stopped four times inside the bar. Now the bar only says what applies (kinds,
plumbing, time range, order: what is narrowed stands out) and ``f`` or a click opens the filter dialog
(``screens/conversation/filter_dialog.py``); nothing in it takes focus.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from tui.app.store.row_windows import EventQuery
from tui.app.store.rows import KIND_LABELS
from tui.models import EVENT_KINDS


def parse_when(text: str) -> str | None:
    """Accept ISO dates/times (``2026-11-21``, ``2026-11-21 14:05``); '' means no bound."""
    text = text.strip()
    if not text:
        return None
    return datetime.fromisoformat(text.replace(" ", "T", 1)).isoformat()


def kind_label(kind: str) -> str:
    """A kind as the list names it (``state``), its class name where the list has no word."""
    return KIND_LABELS.get(kind, kind)


def kind_choices() -> list[tuple[str, str]]:
    """Every kind as ``(label, class name)``, sorted by label (what the filter lists)."""
    return sorted(((kind_label(kind), kind) for kind in EVENT_KINDS), key=lambda c: c[0])


def show_time(value: str | None) -> str:
    """An ISO bound as typed (``2026-11-21 14:05``), seconds and zero times left out."""
    if not value:
        return ""
    text = value.replace("T", " ")
    if text.endswith(" 00:00:00"):
        return text[:-9]
    return text[:-3] if text.endswith(":00") and text.count(":") == 2 else text


class FilterBar(Widget, can_focus=False):
    """What the list is filtered by, on one line; ``f`` or a click changes it."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"filter-bar--narrowed", "filter-bar--muted"}
    DEFAULT_CSS = """
    FilterBar {
        height: 1;
        background: $panel;
        padding: 0 1;
    }
    FilterBar > .filter-bar--narrowed { color: $accent; text-style: bold; }
    FilterBar > .filter-bar--muted { color: $text-muted; }
    """

    @dataclass
    class Changed(Message):
        query: EventQuery

    class EditWanted(Message):
        """The bar was clicked: open the filter dialog."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.applied = EventQuery()

    def set_query(self, query: EventQuery) -> None:
        """Show ``query`` (already applied: nothing is posted)."""
        self.applied = query
        self.refresh()

    def change(self, query: EventQuery) -> None:
        """Apply ``query``: shown, and posted as :class:`Changed` if it is new."""
        if query != self.applied:
            self.set_query(query)
            self.post_message(self.Changed(query))

    def toggle_sort(self) -> None:
        self.change(
            EventQuery(**{**self.applied.__dict__, "descending": not self.applied.descending})
        )

    def render(self) -> Text:
        query = self.applied
        strong = self.get_component_rich_style("filter-bar--narrowed")
        muted = self.get_component_rich_style("filter-bar--muted")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("filter ", muted)
        kinds = sorted(kind_label(kind) for kind in query.selected_kinds or ())
        if kinds:
            text.append(", ".join(kinds) if len(kinds) <= 3 else f"{len(kinds)} kinds", strong)
        else:
            text.append("all kinds")
        text.append(" · ", muted)
        if query.hides_plumbing and not query.steps:
            text.append("plumbing folded", strong)
            text.append(" · ", muted)
        elif query.merges and not query.hide_plumbing:
            text.append("plumbing shown", strong)
            text.append(" · ", muted)
        if query.since or query.until:
            span = f"{show_time(query.since) or '…'} → {show_time(query.until) or '…'}"
            text.append(span, strong)
        else:
            text.append("any time")
        text.append(" · ", muted)
        text.append("newest first" if query.descending else "oldest first")
        text.append("   f change · h plumbing · o order · a all", muted)
        return text

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.EditWanted())
