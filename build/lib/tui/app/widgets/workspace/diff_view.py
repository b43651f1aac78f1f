"""A file's diff, unified or side by side, drawn with the Line API.

The rows are worked out elsewhere (:mod:`tui.app.workspace.diff_rows`, in a thread); this widget only
draws the lines in sight, so a 2,000-line diff scrolls like a 20-line one. Line numbers
stay put while a long line scrolls sideways (left/right). Colours are component classes
over the theme's diff variables; every text is placed literally (segments, never markup).
"""

from __future__ import annotations

import textwrap

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.workspace.diff_rows import DiffRow, FileDiff, SidePair

MARKS = {"same": " ", "removed": "-", "added": "+"}
SEPARATOR = "│"

Item = DiffRow | SidePair | str  # a str is a note line (what was cut, a caveat)


class DiffView(ScrollView, can_focus=True):
    """Shows one :class:`FileDiff` (:meth:`show`) or a sentence (:meth:`say`)."""

    BINDING_GROUP_TITLE = "Diff"
    BINDINGS = [
        Binding("j,down", "scroll_down", "Down", show=False, id="diff.down"),
        Binding("k,up", "scroll_up", "Up", show=False, id="diff.up"),
        Binding("left", "scroll_left", "Left", show=False, id="diff.left"),
        Binding("right", "scroll_right", "Right", show=False, id="diff.right"),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False, id="diff.page-up"),
        Binding("pagedown,space", "page_down", "Page down", show=False, id="diff.page-down"),
        Binding("g,home", "scroll_home", "Top", show=False, id="diff.top"),
        Binding("G,end", "scroll_end", "Bottom", show=False, id="diff.bottom"),
    ]
    COMPONENT_CLASSES = {
        "diff-view--added",
        "diff-view--removed",
        "diff-view--hunk",
        "diff-view--gutter",
        "diff-view--note",
        "diff-view--same",
    }
    DEFAULT_CSS = """
    DiffView { background: $surface; scrollbar-gutter: stable; }
    DiffView > .diff-view--added { color: $diff-added; background: $diff-added 12%; }
    DiffView > .diff-view--removed { color: $diff-removed; background: $diff-removed 12%; }
    DiffView > .diff-view--hunk { color: $diff-hunk; text-style: bold; }
    DiffView > .diff-view--gutter { color: $text-muted; }
    DiffView > .diff-view--note { color: $text-muted; text-style: italic; }
    DiffView > .diff-view--same { color: $foreground; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.diff: FileDiff | None = None
        self.side_by_side = False
        self._message = ""
        self._items: list[Item] = []
        self._styles: dict[str, Style] = {}

    # --- what it shows -----------------------------------------------------------------------

    def show(self, diff: FileDiff, *, keep_place: bool = False) -> None:
        """Draw ``diff`` (from its top, or where the view was: a refresh of the same file)."""
        self.diff, self._message = diff, ""
        self._relayout(keep_place)

    def say(self, text: str) -> None:
        """A sentence instead of a diff (loading, a failure, nothing selected)."""
        self.diff, self._message = None, text
        self._relayout(False)

    def set_side_by_side(self, on: bool) -> None:
        if on != self.side_by_side:
            self.side_by_side = on
            self._relayout(True)

    @property
    def message(self) -> str:
        """What the view says instead of (or before) a diff."""
        diff = self.diff
        return self._message if diff is None else diff.message

    def _relayout(self, keep_place: bool) -> None:
        diff = self.diff
        items: list[Item] = []
        if diff is not None:
            if diff.message:
                items.append(diff.message)
            if diff.note:
                items.append(diff.note[:1].upper() + diff.note[1:] + ".")
            items.extend(diff.pairs if self.side_by_side else diff.rows)
            if diff.hidden:
                items.append(
                    f"… {diff.hidden:,} more diff lines not shown (the patch holds them all)"
                )
        self._items = items
        widest = max((len(row.text) for row in diff.rows), default=0) if diff is not None else 0
        shown = self.size.width
        if self.side_by_side:  # each half scrolls by what its longest line needs
            half = max(4, (shown - 1) // 2)
            width = shown + max(0, self._gutter_width() + 3 + widest - half)
        else:
            width = self._gutter_width() + 3 + widest
        self.virtual_size = Size(max(width, shown), max(len(items), 1))
        if not keep_place:
            self.scroll_to(0, 0, animate=False, immediate=True, force=True)
        self.refresh()

    def _gutter_width(self) -> int:
        digits = self.diff.number_width if self.diff is not None else 1
        return digits if self.side_by_side else 2 * digits + 1

    # --- drawing -----------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def on_resize(self) -> None:
        self._relayout(True)

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            base = self._styles.get("")
            if base is None:
                base = self._styles[""] = self.rich_style
            if not name:
                return base
            # whole (not partial): a tinted background is blended over the widget's own
            style = self._styles[name] = self.get_component_rich_style(f"diff-view--{name}")
        return style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        index = int(self.scroll_offset.y) + y
        items = self._items
        if not items:
            lines = textwrap.wrap(self.message, max(10, width - 2)) if self.message else []
            if y < len(lines):
                strip = Strip([Segment(f" {lines[y]}", self._style("note"))])
                return strip.adjust_cell_length(width, self._style(""))
            return Strip.blank(width, self._style(""))
        if index >= len(items):
            return Strip.blank(width, self._style(""))
        item = items[index]
        if isinstance(item, str):
            return Strip([Segment(f" {item}", self._style("note"))]).adjust_cell_length(
                width, self._style("")
            )
        if isinstance(item, SidePair):
            return self._pair(item, width)
        return self._unified(item, width)

    def _number(self, value: int | None) -> str:
        digits = self.diff.number_width if self.diff is not None else 1
        return str(value).rjust(digits) if value is not None else " " * digits

    def _text(self, row: DiffRow, room: int) -> list[Segment]:
        """The row's mark and text, scrolled sideways, in ``room`` cells."""
        style = self._style(row.kind)
        line = Strip([Segment(MARKS.get(row.kind, " ") + " ", style)])
        body = Strip([Segment(row.text, style)])
        x = int(self.scroll_offset.x)
        if x:
            body = body.crop(x, x + room)
        joined = Strip.join([line, body])
        return list(joined.adjust_cell_length(room, style))

    def _unified(self, row: DiffRow, width: int) -> Strip:
        if row.kind == "hunk":
            return Strip([Segment(f" {row.text}", self._style("hunk"))]).adjust_cell_length(
                width, self._style("")
            )
        gutter = f"{self._number(row.old)} {self._number(row.new)} "
        room = max(1, width - len(gutter))
        segments = [Segment(gutter, self._style("gutter")), *self._text(row, room)]
        return Strip(segments).adjust_cell_length(width, self._style(""))

    def _pair(self, pair: SidePair, width: int) -> Strip:
        left, right = pair.left, pair.right
        if left is not None and left.kind == "hunk":
            return Strip([Segment(f" {left.text}", self._style("hunk"))]).adjust_cell_length(
                width, self._style("")
            )
        half = max(4, (width - 1) // 2)
        segments = self._half(left, half, old=True)
        segments.append(Segment(SEPARATOR, self._style("gutter")))
        segments.extend(self._half(right, width - half - 1, old=False))
        return Strip(segments).adjust_cell_length(width, self._style(""))

    def _half(self, row: DiffRow | None, room: int, *, old: bool) -> list[Segment]:
        if row is None:
            return [Segment(" " * room, self._style(""))]
        number = self._number(row.old if old else row.new) + " "
        rest = max(1, room - len(number))
        return [Segment(number, self._style("gutter")), *self._text(row, rest)]


__all__ = ["DiffView"]
