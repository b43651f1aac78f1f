"""Cursor keys for the Line-API lists (the event list, the board): one row cursor over a
scrolled view, kept in sight. The widget owns ``cursor`` (a clamping property); this mixin
moves it and scrolls to it."""

from __future__ import annotations


class CursorMoves:
    """Mixed into a ``ScrollView`` with an int ``cursor``; ``HEADER_LINES`` fixed lines at its
    top (a column header) are not rows."""

    HEADER_LINES = 0

    def _rows_in_view(self) -> int:
        return self.size.height - self.HEADER_LINES  # type: ignore[attr-defined]

    def _keep_visible(self, index: int) -> None:
        top, height = int(self.scroll_offset.y), self._rows_in_view()  # type: ignore[attr-defined]
        if height <= 0:
            return
        # force: Textual allows a scroll only once a layout has shown the scrollbar, and a
        # key pressed between the total's arrival and that layout must still move the view
        scroll = self.scroll_to  # type: ignore[attr-defined]
        if index < top:
            scroll(y=index, animate=False, immediate=True, force=True)
        elif index >= top + height:
            scroll(y=index - height + 1, animate=False, immediate=True, force=True)

    def reveal(self, start: int, end: int) -> None:
        """Scroll so rows ``start``..``end`` are in view, ``start`` first where they do not
        all fit (the rows a step shows under it when opened)."""
        self._keep_visible(end)
        self._keep_visible(start)

    def action_cursor_up(self) -> None:
        self.cursor -= 1  # type: ignore[attr-defined]

    def action_cursor_down(self) -> None:
        self.cursor += 1  # type: ignore[attr-defined]

    def action_page_up(self) -> None:
        self.cursor -= max(1, self._rows_in_view() - 1)  # type: ignore[attr-defined]

    def action_page_down(self) -> None:
        self.cursor += max(1, self._rows_in_view() - 1)  # type: ignore[attr-defined]

    def action_first(self) -> None:
        self.cursor = 0
