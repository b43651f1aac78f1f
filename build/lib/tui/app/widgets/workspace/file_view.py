"""A file's text, drawn line by line (Textual's Line API): line numbers, syntax colours from
the theme, scrolled both ways.

Why a Line API widget and not a Static or a TextArea: a file of two megabytes is tens of
thousands of lines, and only the ones on screen are ever drawn here (a Static lays out all
of them on every resize; Textual's TextArea colours only with tree-sitter, which ohtui does
not install). Lines are plain strings made literal by :mod:`tui.app.workspace.file_text` (cleaned,
masked); they are never parsed as markup. Only the characters in view are cut from a line,
so a one-line minified file scrolls as cheaply as a short one. The colours are the theme's:
each style name of :data:`~tui.app.workspace.file_text.STYLE_NAMES` is a component class below.
"""

from __future__ import annotations

import textwrap

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.workspace.file_text import STYLE_NAMES, FileText, Span


class FileView(ScrollView, can_focus=True):
    """The text of one file, or a few words instead of it (binary, too large, failed)."""

    BINDINGS = [
        Binding("j", "scroll_down", "Down", show=False, id="file-view.down"),
        Binding("k", "scroll_up", "Up", show=False, id="file-view.up"),
        Binding("g", "scroll_home", "Top", show=False, id="file-view.top"),
        Binding("G", "scroll_end", "Bottom", show=False, id="file-view.bottom"),
    ]
    COMPONENT_CLASSES = {"file-view--gutter", "file-view--note"} | {
        f"file-view--{name}" for name in STYLE_NAMES
    }
    DEFAULT_CSS = """
    FileView { background: $surface; }
    FileView > .file-view--gutter { color: $text-muted; }
    FileView > .file-view--note { color: $text-muted; text-style: italic; }
    FileView > .file-view--comment { color: $text-muted; text-style: italic; }
    FileView > .file-view--doc { color: $text-success; text-style: italic; }
    FileView > .file-view--string { color: $text-success; }
    FileView > .file-view--number { color: $text-warning; }
    FileView > .file-view--constant { color: $text-warning; text-style: bold; }
    FileView > .file-view--type { color: $text-secondary; }
    FileView > .file-view--keyword { color: $text-accent; text-style: bold; }
    FileView > .file-view--builtin { color: $text-accent; }
    FileView > .file-view--function { color: $text-primary; }
    FileView > .file-view--class { color: $text-warning; text-style: bold; }
    FileView > .file-view--decorator { color: $text-primary; text-style: bold; }
    FileView > .file-view--tag { color: $text-primary; text-style: bold; }
    FileView > .file-view--attribute { color: $text-warning; }
    FileView > .file-view--heading { color: $text-primary; text-style: bold; }
    FileView > .file-view--inserted { color: $diff-added; }
    FileView > .file-view--deleted { color: $diff-removed; }
    FileView > .file-view--emph { text-style: italic; }
    FileView > .file-view--strong { text-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[str] = []
        self._spans: list[tuple[Span, ...]] | None = None
        self._note = False  # the lines are a message, not a file
        self._message: list[str] = []  # the message's own lines, before wrapping
        self._gutter = 0
        self._styles: dict[str, Style] = {}
        self.file: FileText | None = None

    # --- what is shown -------------------------------------------------------------------

    def show_file(self, file: FileText) -> None:
        """The file's lines, plain until :meth:`colour` brings their colours."""
        self.file = file
        self._set(file.lines, note=False, width=file.width)
        if file.more_lines:
            self._lines = [*self._lines, f"… {file.more_lines:,} more lines (s saves the file)"]

    def colour(self, file: FileText, spans: list[tuple[Span, ...]] | None) -> None:
        """Colours for ``file``'s lines (dropped if another file is shown by now)."""
        if file is self.file and spans is not None:
            self._spans = spans
            self.refresh()

    def show_message(self, *lines: str) -> None:
        """A few words instead of a file (why it is not shown, what to do), wrapped to the
        pane's width (again when it changes); :attr:`text_lines` has them unwrapped."""
        self.file = None
        self._message = list(lines)
        self._set(self._wrapped(), note=True, width=0)

    def _wrapped(self) -> list[str]:
        width = max(20, self.scrollable_content_region.width - 1)
        return [part for line in self._message for part in textwrap.wrap(line, width) or [""]]

    def on_resize(self) -> None:
        if self._note and self._message:
            self._lines = self._wrapped()
            self.virtual_size = Size(0, len(self._lines))
            self.refresh()

    def _set(self, lines: list[str], *, note: bool, width: int) -> None:
        self._lines, self._spans, self._note = lines, None, note
        self._gutter = 0 if note or not lines else len(f"{len(lines):,}") + 1
        self.virtual_size = Size(width + self._gutter, len(lines))
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    @property
    def text_lines(self) -> list[str]:
        """What is shown, line by line (a message as it was given, unwrapped)."""
        return list(self._message if self._note else self._lines)

    # --- drawing --------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            base = self._styles.get("")
            if base is None:
                base = self._styles[""] = self.rich_style
            style = base if not name else base + self.get_component_rich_style(f"file-view--{name}")
            self._styles[name] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self._style("")
        index = int(self.scroll_offset.y) + y
        if index >= len(self._lines) or width <= 0:
            return Strip.blank(width, base)
        line = self._lines[index]
        segments: list[Segment] = []
        if self._note:
            segments.append(Segment(" " + line, self._style("note")))
            return Strip(segments).crop_extend(0, width, base)
        if self._gutter:
            number = f"{index + 1:>{self._gutter - 1}} "
            segments.append(Segment(number, self._style("gutter")))
        start = int(self.scroll_offset.x)
        end = start + max(0, width - self._gutter)
        spans = self._spans[index] if self._spans and index < len(self._spans) else ()
        at = start
        for left, right, name in spans:
            if right <= start:
                continue
            if left >= end:
                break
            left, right = max(left, start), min(right, end)
            if left > at:
                segments.append(Segment(line[at:left], base))
            segments.append(Segment(line[left:right], self._style(name)))
            at = right
        if at < end:
            segments.append(Segment(line[at:end], base))
        return Strip(segments).crop_extend(0, width, base)


__all__ = ["FileView"]
