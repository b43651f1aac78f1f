"""Work put off until a widget's new content is on the screen.

``call_after_refresh`` runs its callback once the screen has nothing left to repaint *when
the callback's turn comes*; a widget refreshed in the same step has not told the screen yet,
so the callback can run before the paint it was meant to follow. A new view's count and its
next page went out that way ahead of the view's first frame, ~1 ms of the loop each. Here
the callbacks run right after the widget is next painted; a widget that is not painted soon
(hidden, covered) lets them run after :data:`AT_LATEST` seconds instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.geometry import Region
    from textual.strip import Strip
    from textual.timer import Timer

#: Seconds to wait for the paint before running the callbacks anyway.
AT_LATEST = 0.25


class AfterPaint:
    """Mixed into a widget (before its Textual base): its next paint can be waited for
    (:meth:`after_paint`). A mixin, not a widget class: the widget's CSS type names stay
    as they were."""

    _painted_callbacks: list[Callable[[], object]] | None = None
    _painted_timer: Timer | None = None

    def after_paint(self: Any, *callbacks: Callable[[], object]) -> None:
        """Run ``callbacks`` (in order, once each) after this widget's next paint."""
        if not callbacks:
            return
        if self._painted_callbacks is None:
            self._painted_callbacks = []
            self._painted_timer = self.set_timer(AT_LATEST, self._run_painted)
        self._painted_callbacks.extend(callbacks)
        self.refresh()

    def _run_painted(self) -> None:
        callbacks, self._painted_callbacks = self._painted_callbacks or [], None
        if self._painted_timer is not None:
            self._painted_timer.stop()
            self._painted_timer = None
        for callback in callbacks:
            callback()

    def render_lines(self: Any, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        if self._painted_callbacks is not None:
            self.call_later(self._run_painted)  # once this paint is done
        return lines
