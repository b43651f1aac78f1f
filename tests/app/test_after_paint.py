"""Work put off until a widget's new content is painted (``widgets/after_paint.py``).

A new view's count and next page waited for ``call_after_refresh``, which ran them before
the view's first frame when the list had not yet told the screen it needed a repaint.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.helpers.app_helpers import wait_for
from tui.app.widgets.common.after_paint import AfterPaint


class Painted(AfterPaint, Static):
    def __init__(self, log: list[str], **kwargs) -> None:
        super().__init__("first", **kwargs)
        self.painted = log

    def render_lines(self, crop):
        self.painted.append(f"painted {self.content}")
        return super().render_lines(crop)


class One(App):
    def __init__(self, log: list[str], *, shown: bool = True) -> None:
        super().__init__()
        self.painted, self.shown = log, shown

    def compose(self) -> ComposeResult:
        widget = Painted(self.painted, id="w")
        widget.display = self.shown
        yield widget


async def test_callbacks_run_once_each_after_the_widgets_next_paint():
    log: list[str] = []
    app = One(log)
    async with app.run_test() as pilot:
        widget = app.query_one(Painted)
        await wait_for(lambda: "painted first" in log, pilot=pilot)
        widget.update("second")
        widget.after_paint(lambda: log.append("one"), lambda: log.append("two"))
        assert log[-1] == "painted first"  # nothing runs before the paint
        await wait_for(lambda: "two" in log, pilot=pilot)
        at = log.index("one")
        assert "painted second" in log[:at] and log[at:] == ["one", "two"]
        widget.update("third")  # later paints run nothing again
        await wait_for(lambda: "painted third" in log, pilot=pilot)
        assert log.count("one") == log.count("two") == 1


async def test_a_widget_that_is_not_painted_still_runs_them():
    log: list[str] = []
    app = One(log, shown=False)
    async with app.run_test() as pilot:
        app.query_one(Painted).after_paint(lambda: log.append("ran"))
        await wait_for(lambda: "ran" in log, pilot=pilot)
        assert not any(entry.startswith("painted") for entry in log)
