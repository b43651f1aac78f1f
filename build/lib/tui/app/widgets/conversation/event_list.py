"""The event list: one line per event, rendered with the Line API.

Only visible lines are ever rendered (``render_line``), rows are compact
:class:`~tui.app.store.rows.EventRow` objects from a window, and missing rows are requested with a
coalescing message, so 100,000 events scroll exactly like 100.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.guard import GuardedDispatch
from tui.app.store.duplicate_rows import MARK as DUPLICATE_MARK
from tui.app.store.duplicate_rows import is_duplicate
from tui.app.store.rows import KIND_LABELS, EventRow
from tui.app.store.search import Finder
from tui.app.store.step_rows import FoldedRow, folded_count
from tui.app.textual_compat import resize_scrollable
from tui.app.widgets.common.after_paint import AfterPaint
from tui.app.widgets.common.cursor_moves import CursorMoves
from tui.lru import LRU

TIME_W, SOURCE_W, KIND_W = 8, 5, 12
SOURCE_LABELS = {"agent": "agent", "user": "user", "environment": "env", "hook": "hook"}
KIND_CLASS = {
    "ActionEvent": "action",
    "ObservationEvent": "observation",
    "MessageEvent": "message",
    "SystemPromptEvent": "system",
    "ConversationStateUpdateEvent": "state",
    "HookExecutionEvent": "hook",
}


def _highlighted(
    text: str, spans: list[tuple[int, int]], style: Style, match: Style
) -> list[Segment]:
    """``text`` as segments with the ``spans`` in the match style (literal text, no markup)."""
    out, at = [], 0
    for start, end in spans:
        if start > at:
            out.append(Segment(text[at:start], style))
        out.append(Segment(text[start:end], style + match))
        at = end
    if at < len(text):
        out.append(Segment(text[at:], style))
    return out


class RowSource(Protocol):
    def __len__(self) -> int: ...
    def row(self, index: int) -> EventRow | None: ...


class _Empty:
    def __len__(self) -> int:
        return 0

    def row(self, index: int) -> EventRow | None:
        return None


def _held(method: Callable[[EventList], None]) -> Callable[[EventList], None]:
    """A cursor key pressed before the list has its rows at all (keys typed right behind the
    enter that opened the conversation) acts once they are given, in the order typed."""

    def run(self: EventList) -> None:
        if isinstance(self._source, _Empty):
            self._held.append(method)
        else:
            method(self)

    run.__doc__ = method.__doc__
    return run


class EventList(
    GuardedDispatch,
    CursorMoves,
    AfterPaint,
    ScrollView,
    can_focus=True,
    inherit_bindings=False,
):
    """A virtual list of events; the screen supplies rows and answers :class:`RowsWanted`."""

    BINDING_GROUP_TITLE = "Event list"
    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False, id="list.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="list.down"),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False, id="list.page-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="list.page-down"),
        Binding("home,g", "first", "First", show=False, id="list.first"),
        Binding("end,G", "last", "Last", show=False, id="list.last"),
        Binding("enter", "select", "Details", id="list.select"),
    ]
    COMPONENT_CLASSES = {
        "event-list--cursor",
        "event-list--time",
        "event-list--src-agent",
        "event-list--src-user",
        "event-list--src-environment",
        "event-list--src-hook",
        "event-list--kind",
        "event-list--kind-action",
        "event-list--kind-observation",
        "event-list--kind-message",
        "event-list--kind-system",
        "event-list--kind-state",
        "event-list--kind-hook",
        "event-list--error",
        "event-list--raw",
        "event-list--loading",
        "event-list--summary",
        "event-list--match",
        "event-list--match-mark",
        "event-list--duplicate",
        "event-list--folded",
    }
    DEFAULT_CSS = """
    EventList {
        background: $surface;
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    EventList > .event-list--cursor { background: $block-cursor-blurred-background; }
    EventList:focus > .event-list--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold;
    }
    EventList > .event-list--time { color: $text-muted; }
    EventList > .event-list--src-agent { color: $primary; }
    EventList > .event-list--src-user { color: $success; text-style: bold; }
    EventList > .event-list--src-environment { color: $text-muted; }
    EventList > .event-list--src-hook { color: $warning; }
    EventList > .event-list--kind { color: $text-muted; }
    EventList > .event-list--kind-action { color: $accent; }
    EventList > .event-list--kind-observation { color: $secondary; }
    EventList > .event-list--kind-message { color: $success; }
    EventList > .event-list--kind-system { color: $text-muted; }
    EventList > .event-list--kind-state { color: $text-muted; text-style: italic; }
    EventList > .event-list--kind-hook { color: $warning; }
    EventList > .event-list--error { color: $error; text-style: bold; }
    EventList > .event-list--raw { color: $error; text-style: italic; }
    EventList > .event-list--loading { color: $text-disabled; text-style: italic; }
    EventList > .event-list--summary { color: $foreground; }
    EventList > .event-list--match { background: $warning 45%; color: $foreground; text-style: bold; }
    EventList > .event-list--match-mark { color: $warning; text-style: bold; }
    EventList > .event-list--duplicate { color: $warning; text-style: italic; }
    EventList > .event-list--folded { color: $text-muted; }
    """

    cursor: reactive[int] = reactive(0, always_update=True)

    @dataclass
    class RowsWanted(Message):
        """Rows ``start``..``end`` are on screen but not loaded. Bursts coalesce."""

        event_list: EventList
        start: int
        end: int

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, EventList.RowsWanted)

    @dataclass
    class Highlighted(Message):
        event_list: EventList
        index: int
        row: EventRow | None
        followed: bool = False  # the cursor moved with live rows, not by a key

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, EventList.Highlighted)

    @dataclass
    class Selected(Message):
        event_list: EventList
        index: int
        row: EventRow | None

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ):
        super().__init__(name=name, id=id, classes=classes)
        self._source: RowSource = _Empty()
        self._cache: LRU[tuple, Strip] = LRU(2000)  # drawn lines: (index, width, cursor)
        self._styles: dict[str, Style] = {}
        self.empty_text = "No events."
        self._empty_wrapped: tuple[tuple[str, int], list[str]] = (("", 0), [])
        self._finder: Finder | None = None
        self._following = False  # set while rows_appended moves the cursor
        # End was pressed while the list's length was still unknown (rows arrive before the
        # count): the cursor goes on to the real end when it is known, unless a key moves it
        self._end_pending = False
        self._ending = False  # set while _go_to_end moves the cursor
        # the cursor's row was not loaded when the cursor got there (End before the tail
        # page): it is announced again when it arrives, so the detail pane shows it
        self._cursor_unloaded = False
        self._held: list[Callable[[EventList], None]] = []  # keys before the rows (_held)
        # the cursor's row and how far from the end it is, where the tail walk loaded it:
        # a new estimate of the unloaded middle moves such rows, and the cursor with them
        self._anchor: tuple[EventRow, int] | None = None
        self._known_len = 0

    # --- data ----------------------------------------------------------------------------

    @property
    def source(self) -> RowSource:
        return self._source

    def set_source(self, source: RowSource, *, cursor: int = 0) -> None:
        self._source = source
        self._end_pending = False
        self._anchor, self._known_len = None, len(source)
        self.rows_changed()
        self.cursor = max(0, min(cursor, len(source) - 1))
        self.scroll_to(y=max(0, self.cursor - self.size.height // 2), animate=False)
        held, self._held = self._held, []
        for move in held:
            move(self)

    def when_given(self, act: Callable[[], None]) -> None:
        """Run ``act`` once the list is given its rows (now, if it has them), in order with
        the cursor keys held before them: a jump typed right behind the enter that opened
        the conversation starts from where those keys leave the cursor."""
        if isinstance(self._source, _Empty):
            self._held.append(lambda _list: act())
        else:
            act()

    def set_finder(self, finder: Finder | None) -> None:
        """Mark rows that match ``finder`` and highlight the matched text (None: no find)."""
        self._finder = finder
        self._cache.clear()
        self.refresh()

    def rows_changed(self) -> None:
        """The source grew or rows arrived: resize and repaint (cheap; only visible lines)."""
        self._cache.clear()
        self._keep_anchor()
        self._resize_virtual()
        self.refresh()
        if self._end_pending:
            self._go_to_end()
        elif self._cursor_unloaded and (row := self._source.row(self.cursor)) is not None:
            self._cursor_unloaded = False
            self.post_message(self.Highlighted(self, self.cursor, row, self._following))
        self._want_visible()

    def _keep_anchor(self) -> None:
        """The list's length changed: a cursor on a row counted from the end (the tail walk
        loaded it) follows that row to its new index, and the view with it."""
        size, before = len(self._source), self._known_len
        self._known_len = size
        if size == before:
            return
        if 0 < size <= self.cursor:  # the list shrank past its cursor: the last row
            self._ending = True  # (an End still wanted stays wanted)
            try:
                self.cursor = size - 1
            finally:
                self._ending = False
            return
        anchor = self._anchor
        if anchor is None:
            return
        row, back = anchor
        index = size - 1 - back
        if index != self.cursor and 0 <= index < size and self._source.row(index) is row:
            shift = index - self.cursor
            self.cursor = index
            self.scroll_to(y=self.scroll_offset.y + shift, animate=False)

    @property
    def current(self) -> EventRow | None:
        return self._source.row(self.cursor)

    @property
    def at_end(self) -> bool:
        """The cursor is on the last row (or there are none): live rows are followed."""
        return self.cursor >= len(self._source) - 1

    def rows_appended(self, count: int, *, follow: bool) -> None:
        """Live rows were added at the end; keep following the tail if asked to."""
        self.rows_changed()
        if follow and count:
            self._following = True
            try:
                self.cursor = len(self._source) - 1
            finally:
                self._following = False
            self.scroll_end(animate=False, immediate=True, force=True)

    # --- rendering -----------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cache.clear()

    def on_resize(self) -> None:
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(self._source))
        # a cursor moved before the first layout (End as the total arrives) could not
        # scroll then: the view follows it now, and asks for its rows
        self._keep_visible(self.cursor)

    def _resize_virtual(self) -> None:
        """Size the scrollable area to the rows without a layout of the whole screen: live
        rows arrive many times a second (bench: "live 5,000/s send→screen")."""
        resize_scrollable(self, Size(self.size.width, len(self._source)))

    def _style(self, name: str) -> Style:
        """The widget's own style with the component's colours over it (cached per theme)."""
        style = self._styles.get(name)
        if style is None:
            part = self.get_component_rich_style(f"event-list--{name}", partial=True)
            style = self._styles[name] = part if name == "cursor" else self._base() + part
        return style

    def _base(self) -> Style:
        """The widget's own style, cached with the others: ``rich_style`` works it out
        along the ancestors each time (~0.1 ms), and a new view paints every row."""
        base = self._styles.get("")
        if base is None:
            base = self._styles[""] = self.rich_style
        return base

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.size.width
        total = len(self._source)
        if index >= total:
            if total == 0:
                lines = self._empty_lines(width)
                if y < len(lines):
                    strip = Strip([Segment(f" {lines[y]}", self._style("loading"))])
                    return strip.adjust_cell_length(width, self._base())
            return Strip.blank(width, self._base())
        key = (index, width, index == self.cursor)
        strip = self._cache.get(key)
        if strip is not None:
            return strip
        row = self._source.row(index)
        if row is None:
            self._want_visible()
            text = f"  … loading row {index + 1:,}"
            return Strip([Segment(text, self._style("loading"))]).adjust_cell_length(
                width, self._base()
            )
        strip = self._render_row(row, width, index == self.cursor)
        self._cache[key] = strip
        return strip

    def _empty_lines(self, width: int) -> list[str]:
        """What an empty list says (loading, waiting for the server, no events), wrapped to
        the width: a countdown must not be cut off on a narrow terminal."""
        key = (self.empty_text, width)
        if self._empty_wrapped[0] != key:
            wrap = max(10, width - 2)
            lines = [  # each line of its own (a failure: what, why, what to do, the key)
                part
                for line in self.empty_text.split("\n")
                for part in textwrap.wrap(line, wrap) or [""]
            ]
            self._empty_wrapped = (key, lines or [self.empty_text])
        return self._empty_wrapped[1]

    def _render_row(self, row: EventRow, width: int, is_cursor: bool) -> Strip:
        kind_class = (
            "raw"
            if row.flag == "raw"
            else "error"
            if row.flag
            else (f"kind-{KIND_CLASS[row.kind]}" if row.kind in KIND_CLASS else "kind")
        )
        source = row.source if row.source in SOURCE_LABELS else "environment"
        kind_label = KIND_LABELS.get(row.kind, row.kind)[:KIND_W]
        summary_style = self._style("error") if row.flag == "error" else self._style("summary")
        if isinstance(row, FoldedRow):  # shown under its step (→): indented, quieter
            kind_label = f"└ {kind_label}"[:KIND_W]
            summary_style = self._style("folded")
        base = self._base()
        finder = self._finder
        hit = finder is not None and finder.matches(row)
        segments = [
            Segment("›", self._style("match-mark")) if hit else Segment(" ", base),
            Segment(row.time.ljust(TIME_W)[:TIME_W], self._style("time")),
            Segment(" ", base),
            Segment(
                SOURCE_LABELS.get(row.source, row.source)[:SOURCE_W].ljust(SOURCE_W),
                self._style(f"src-{source}"),
            ),
            Segment(" ", base),
            Segment(kind_label.ljust(KIND_W), self._style(kind_class)),
            Segment(" ", base),
        ]
        summary = row.summary
        if is_duplicate(row) and summary.startswith(DUPLICATE_MARK):
            # a second event with an earlier row's id: said before its own summary
            segments.append(Segment(DUPLICATE_MARK, self._style("duplicate")))
            summary = summary[len(DUPLICATE_MARK) :]
        if hit:
            segments.extend(
                _highlighted(summary, finder.spans(summary), summary_style, self._style("match"))
            )
        else:
            segments.append(Segment(summary, summary_style))
        folded = folded_count(row)
        if folded:  # what folded under a step, counted at the row's end: "+3"
            badge = f" +{folded:,}"
            # the scrollbar's gutter covers the row's last cells
            room = max(0, self.scrollable_content_region.width - len(badge))
            cut = Strip(segments).adjust_cell_length(room, base)
            segments = [*cut, Segment(badge, self._style("folded"))]
        if is_cursor:  # the cursor's colours go over each part's own
            cursor = self._style("cursor")
            segments = [Segment(seg.text, seg.style + cursor) for seg in segments]
            return Strip(segments).adjust_cell_length(width, base + cursor)
        return Strip(segments).adjust_cell_length(width, base)

    # --- loading -------------------------------------------------------------------------

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._want_visible()

    def _want_visible(self) -> None:
        top = int(self.scroll_offset.y)
        height = max(1, self.size.height)
        end = min(len(self._source), top + height)
        if top + height >= len(self._source) and getattr(self._source, "has_more", False):
            self.post_message(self.RowsWanted(self, top, top + 2 * height))
            return
        for index in range(top, end):
            if self._source.row(index) is None:
                # ask for a little more than the screen so paging ahead is smooth
                self.post_message(self.RowsWanted(self, top, min(len(self._source), end + height)))
                return

    # --- cursor --------------------------------------------------------------------------

    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self._source) - 1)) if len(self._source) else 0

    def watch_cursor(self, old: int, new: int) -> None:
        if not self._ending:
            self._end_pending = False  # a key or click moved the cursor: End no longer wanted
        self._cache.discard((old, self.size.width, True))
        self._cache.discard((new, self.size.width, False))
        # only the two lines that changed; a scroll (below) repaints the whole list anyway
        self.refresh_lines(old)
        self.refresh_lines(new)
        self._keep_visible(new)
        row = self._source.row(new)
        self._cursor_unloaded = row is None
        from_end = getattr(self._source, "from_end", None)
        back = from_end(new) if from_end is not None and row is not None else None
        self._anchor = (row, back) if row is not None and back is not None else None
        self.post_message(self.Highlighted(self, new, row, self._following))

    action_cursor_up = _held(CursorMoves.action_cursor_up)
    action_cursor_down = _held(CursorMoves.action_cursor_down)
    action_page_up = _held(CursorMoves.action_page_up)
    action_page_down = _held(CursorMoves.action_page_down)
    action_first = _held(CursorMoves.action_first)

    @_held
    def action_last(self) -> None:
        self._go_to_end()

    def _go_to_end(self) -> None:
        self._ending = True  # not a key: the pending End survives this move
        try:
            self.cursor = len(self._source) - 1
        finally:
            self._ending = False
        self._end_pending = bool(getattr(self._source, "has_more", False))

    def action_select(self) -> None:
        self.post_message(self.Selected(self, self.cursor, self.current))

    def on_click(self, event) -> None:  # a click moves the cursor to that line
        offset = event.get_content_offset(self)
        if offset is not None:
            self.cursor = int(self.scroll_offset.y) + offset.y
