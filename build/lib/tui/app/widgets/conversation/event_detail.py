"""The event detail pane: one event in full, shaped by its kind (``event_views.py``).

``r`` flips to the raw JSON; find's hits are highlighted in the literal text parts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from tui.app.guard import GuardedDispatch
from tui.app.widgets.conversation.event_views import body, folded_widgets, json_view, literal
from tui.models import RawEvent
from tui.models.parse import event_json
from tui.text import one_line

if TYPE_CHECKING:
    from tui.app.store.rows import EventRow
    from tui.app.store.search import Finder
    from tui.models import AnyEvent


def _highlight_hits(widgets: list[Widget], pattern: re.Pattern[str]) -> None:
    """Mark find hits in the literal texts about to be shown (Markdown is left as rendered)."""
    for widget in widgets:
        content = widget.content if isinstance(widget, Static) else None
        if isinstance(content, Text):
            content.highlight_regex(pattern, style="bold reverse")


class EventDetail(GuardedDispatch, VerticalScroll, can_focus=True):
    """Shows the selected event. The screen calls :meth:`show`."""

    ALLOW_MAXIMIZE = True  # z zooms it (containers are not maximizable by default)

    BINDING_GROUP_TITLE = "Detail"
    BINDINGS = [
        Binding("r", "toggle_raw", "Raw JSON", id="detail.raw"),
        Binding("enter", "toggle_sections", "Open/close sections", id="detail.sections"),
        Binding("j,down", "scroll_down", "Down", show=False, id="detail.down"),
        Binding("k,up", "scroll_up", "Up", show=False, id="detail.up"),
    ]
    DEFAULT_CSS = """
    EventDetail { background: $surface; padding: 0 1; }
    EventDetail .detail-header { color: $text-muted; margin-bottom: 1; }
    EventDetail .detail-title { text-style: bold; color: $accent; }
    EventDetail .detail-error {
        background: $error 20%; color: $text; border-left: thick $error; padding: 0 1; margin-bottom: 1;
    }
    EventDetail .detail-command { background: $panel; color: $text; padding: 0 1; text-style: bold; }
    EventDetail .detail-output { background: $panel-darken-1; padding: 0 1; margin-bottom: 1; }
    EventDetail .detail-section { color: $text-muted; text-style: bold; margin-top: 1; }
    EventDetail Markdown { margin: 0; padding: 0; background: $surface; }
    EventDetail Collapsible { background: $surface; padding: 0; margin: 0; border: none; }
    """

    raw_mode: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._event: AnyEvent | None = None
        self._paired: AnyEvent | None = None
        self._note: str | None = None
        self._folded: Sequence[EventRow] = ()
        self._finder: Finder | None = None
        self.border_title = "Detail"

    def show(
        self,
        event: AnyEvent,
        paired: AnyEvent | None = None,
        *,
        note: str | None = None,
        folded: Sequence[EventRow] = (),
    ) -> None:
        """Display ``event``; ``paired`` is its observation (for an action) or action;
        ``note`` is said under the header (e.g. that another event has the same id);
        ``folded``: the plumbing a steps view folds under its row, listed at the end."""
        self._event, self._paired, self._note = event, paired, note
        self._folded = folded
        self._rebuild()

    def set_finder(self, finder: Finder | None) -> None:
        """Highlight what ``finder`` matches in the plain text parts (None: no highlight)."""
        self._finder = finder
        if self._event is not None:
            self._rebuild()

    def clear_event(self, message: str = "Select an event to see it here.") -> None:
        self._event = self._paired = None
        self._folded = ()
        self.remove_children()
        self.mount(Static(Text(message, style="dim italic")))

    def on_mount(self) -> None:
        # diffs, exit codes and JSON have the theme's colours drawn in: a new theme redraws
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())

    def watch_raw_mode(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if self._event is not None:
            self._rebuild()

    def action_toggle_raw(self) -> None:
        self.raw_mode = not self.raw_mode

    def allow_focus_children(self) -> bool:
        """Tab stops at the pane, not at each folded section inside it (enter opens them)."""
        return False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_sections":
            return bool(self.query(Collapsible))  # offered only where there are sections
        return True

    def action_toggle_sections(self) -> None:
        """Open every folded section (reasoning, system prompt…), or close them if all are open."""
        sections = list(self.query(Collapsible))
        close = bool(sections) and all(not section.collapsed for section in sections)
        for section in sections:
            section.collapsed = close

    def _rebuild(self) -> None:
        self.remove_children()
        self.scroll_home(animate=False)
        event = self._event
        if event is None:
            return
        widgets: list[Widget] = [self._header(event)]
        if self._note:
            widgets.append(Static(Text(self._note), classes="detail-error"))
        if isinstance(event, RawEvent) and not event.unknown_kind:  # a newer kind: its fields
            widgets.append(
                literal(
                    "This event could not be parsed:\n" + event.error,
                    classes="detail-error",
                    max_chars=4_000,
                    max_lines=40,
                )
            )
            widgets.append(json_view(event.raw))
        elif self.raw_mode:
            widgets.append(json_view(event_json(event)))
        else:
            widgets.extend(body(event, self._paired))
        if self._folded:
            widgets.extend(folded_widgets(self._folded))
        if self._finder is not None:
            _highlight_hits(widgets, self._finder.pattern)
        self.mount_all(widgets)
        self.refresh_bindings()  # enter (sections) applies only to events that have some

    def _header(self, event: AnyEvent) -> Static:
        text = Text()
        # each part cut to one short line: a RawEvent's kind or id can be a 1 MB string
        text.append(one_line(event.kind or "unknown kind", 200), style="bold")
        text.append(
            f"  ·  {one_line(event.source or '?', 200)}  ·  {one_line(event.timestamp or 'no time', 200)}\n"
        )
        text.append(f"id {one_line(event.id or '—', 200)}")
        if event.parent_id:
            text.append(f"  ·  parent {one_line(event.parent_id, 200)}")
        if self.raw_mode and not isinstance(event, RawEvent):
            text.append("   raw JSON (r: back)", style="italic")
        return Static(text, classes="detail-header")
