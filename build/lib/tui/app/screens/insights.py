"""Insights of one conversation: where the time and the money went (``i`` in a conversation).

A worker walks the whole log page by page into :mod:`tui.insights` (bounded memory, the
UI free between pages), through outages with the client's one retry policy, showing how far it
got; the result is kept per conversation (:data:`CACHE`), so reopening is instant, and a
conversation that grew since is read again by itself. Tabs keep 80×24 readable: the
answers at a glance, the timeline drawn, then one table per question. Enter on a row of
the slowest actions, the dearest steps or the repeated failures closes the view with that
event's id: the conversation screen moves its list there.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, ProgressBar, Static, TabbedContent, TabPane

from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.screens.dialogs.errors import describe_error
from tui.app.tables.insight_tables import TABLES
from tui.app.widgets.charts.insight_charts import ActivityPlot, InsightPlot, TotalsPlot
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.common.key_bar import KeyBar
from tui.insights import Insights
from tui.insights.load import InsightsWalk, start_walk
from tui.insights.summary import glance
from tui.lru import LRU
from tui.models.redact import redact_text
from tui.text import clean, one_line

#: Insights kept, newest last: (server, conversation id) → (insights, events read).
CACHE_SIZE = 8
CACHE: LRU[tuple[str, str], tuple[Insights, int]] = LRU(CACHE_SIZE)
TABS = ("summary", "timeline", "tools", "slowest", "steps", "models", "failures")
TAB_TITLES = ("Summary", "Timeline", "Tools", "Slowest", "Steps", "Models", "Failures")
OPENS = ("slowest", "steps", "failures")  # tables whose rows open an event
PROGRESS_S = 0.25  # the progress line is redrawn at most this often
TALL = 40  # rows from which the summary shows the timeline too


def cache_key(client: Any, conversation_id: str) -> tuple[str, str]:
    return (str(getattr(client, "base_url", "")), conversation_id)


class InsightTable(FittedTable):
    """A table of the view; in those whose rows are events, Enter opens the event. Filled
    by the screen, or by itself when it is mounted after the figures arrived (the tabs
    mount their panes in their own time)."""

    BINDINGS = [Binding("enter", "select_cursor", "Open event", id="insights.open")]

    def __init__(self, tab: str) -> None:
        super().__init__(TABLES[tab][0], id=f"{tab}-table", cursor_type="row", zebra_stripes=True)
        self.tab = tab
        self.opens = tab in OPENS
        self.targets: list[str | None] = []  # the event each row opens

    def on_mount(self) -> None:
        super().on_mount()
        self.border_title = TAB_TITLES[TABS.index(self.tab)]
        found = getattr(self.screen, "insights", None)
        if found is not None:
            self.show(found)

    def show(self, found: Insights) -> None:
        _columns, rows_of, empty = TABLES[self.tab]
        rows = rows_of(found)
        self.targets = [target for target, _cells in rows]
        self.replace_rows((str(n), cells) for n, (_target, cells) in enumerate(rows))
        self.border_subtitle = empty if not rows else "enter opens the event" if self.opens else ""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_cursor":
            return self.opens and self.row_count > 0
        return True


class SummaryText(Static):
    """The answers at a glance (:func:`summary`), filled like :class:`InsightTable`; the
    questions and the notes in the theme's muted text colour (its component class)."""

    COMPONENT_CLASSES = {"summary-text--muted"}

    def on_mount(self) -> None:
        found = getattr(self.screen, "insights", None)
        if found is not None:
            self.show(found)
        else:
            self.update(Text("Reading the events…"))
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())

    def _redraw(self) -> None:
        found = getattr(self.screen, "insights", None)
        if found is not None:
            self.show(found)

    def show(self, found: Insights) -> None:
        self.update(summary(found, self.get_component_rich_style("summary-text--muted")))


class InsightsScreen(DismissOnce, Screen[str | None]):
    """Dismissed with the id of the event to show, or None."""

    BINDING_GROUP_TITLE = "Insights"
    CSS_PATH = "insights.tcss"
    AUTO_FOCUS = "#summary-scroll"
    BINDINGS = [
        Binding("escape", "back", "Back", id="insights.back"),
        Binding("right_square_bracket", "switch(1)", "Next tab", id="insights.next-tab"),
        Binding(
            "left_square_bracket",
            "switch(-1)",
            "Previous tab",
            show=False,
            id="insights.previous-tab",
        ),
        Binding("r", "recompute", "Recompute", id="insights.recompute"),
    ]

    def __init__(
        self,
        conversation_id: str,
        *,
        shared: bool = False,
        title: str | None = None,
        known_total: int | None = None,
    ) -> None:
        super().__init__()
        self.conversation_id = conversation_id
        self.shared = shared
        self._title = title
        self._known_total = known_total  # events the conversation screen has seen
        self.insights: Insights | None = None
        self.walk: InsightsWalk | None = None

    def compose(self) -> ComposeResult:
        name = one_line(redact_text(self._title or self.conversation_id), 120)
        yield Static(Text(f"Insights · {name}"), id="insights-title")
        with Horizontal(id="insights-status"):
            yield Static(id="insights-progress-text")
            yield ProgressBar(id="insights-progress", show_eta=False)
        with TabbedContent(id="insights-tabs"):
            with TabPane("Summary", id="summary"):
                with VerticalScroll(id="summary-scroll"):
                    yield SummaryText(id="summary-text")
                # on a tall terminal the summary shows the timeline under the answers
                yield TotalsPlot(id="summary-totals", classes="overview")
                yield ActivityPlot(id="summary-activity", classes="overview")
            with TabPane("Timeline", id="timeline"):
                yield TotalsPlot(id="totals-plot")
                yield ActivityPlot(id="activity-plot")
            for tab, title in zip(TABS[2:], TAB_TITLES[2:], strict=True):
                with TabPane(title, id=tab):
                    yield InsightTable(tab)
        yield KeyBar()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.height >= TALL, "-tall")

    def on_mount(self) -> None:
        self.set_class(self.app.size.height >= TALL, "-tall")
        cached = CACHE.get(cache_key(self.app.client, self.conversation_id))
        if cached is not None:
            found, read = cached
            self.show(found)
            self._status(self._done_text(found))
            if self._known_total is None or self._known_total == read:
                return  # nothing new since
        self.compute()

    # --- computing ---------------------------------------------------------------------------

    def action_recompute(self) -> None:
        self.compute()

    @work(exclusive=True, group="insights")
    async def compute(self) -> None:
        """Every page of the log into a walk, then the figures. A page that fails is tried
        again through the client's one retry policy (``client.patiently``), never a loop of
        the screen's own."""
        client = self.app.client
        self._status("Reading the events…", progress=True)
        loop, shown_at = asyncio.get_running_loop(), 0.0

        def retrying(exc: BaseException, delay: float) -> None:
            self._status(f"{describe_error(exc)}; trying again in {delay:.1f}s…", progress=True)

        try:
            walk = self.walk = await client.patiently(
                lambda: start_walk(client, self.conversation_id, shared=self.shared),
                "the first page of events",
                retrying,
            )
            while not walk.done:
                await client.patiently(walk.step, "a page of events", retrying)
                if loop.time() - shown_at >= PROGRESS_S:  # a repaint per page doubles the time
                    shown_at = loop.time()
                    self._progress(walk)
        except Exception as exc:  # noqa: BLE001 - shown; r tries again
            self._status(f"Stopped: {describe_error(exc)} · r tries again", error=True)
            return
        found = walk.finish()
        key = cache_key(self.app.client, self.conversation_id)
        CACHE.set(key, (found, walk.read))
        self.show(found)
        self._status(self._done_text(found))

    def _progress(self, walk: InsightsWalk) -> None:
        total = max(walk.total or 0, walk.read) if walk.total is not None else None
        for bar in self.query("#insights-progress").results(ProgressBar):
            bar.update(total=total, progress=walk.read)
        of = f" of {total:,}" if total is not None else ""
        self._status(f"Reading the events… {walk.read:,}{of}", progress=True)

    def _status(self, text: str, *, progress: bool = False, error: bool = False) -> None:
        """The line under the title (nothing to do once the screen is gone)."""
        for status in self.query("#insights-status"):
            status.set_class(progress, "-working")
            status.set_class(error, "-error")
        for line in self.query("#insights-progress-text").results(Static):
            line.update(Text(text))

    def _done_text(self, found: Insights) -> str:
        return f"{found.events:,} events read · r reads them again"

    # --- showing ----------------------------------------------------------------------------

    def show(self, found: Insights) -> None:
        """Every tab shows ``found`` (a part not mounted yet fills itself when it is)."""
        self.insights = found
        for text in self.query(SummaryText):
            text.show(found)
        for plot in self.query(InsightPlot):
            plot.show(found)
        for table in self.query(InsightTable):
            table.show(found)
        self.refresh_bindings()

    @on(TabbedContent.TabActivated)
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id or ""
        target = "#summary-scroll" if pane == "summary" else f"#{pane}-table"
        if pane == "timeline":
            return
        self.query_one(target).focus()
        self.refresh_bindings()

    def action_switch(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        current = TABS.index(tabs.active) if tabs.active in TABS else 0
        tabs.active = TABS[(current + step) % len(TABS)]

    # --- opening an event --------------------------------------------------------------------

    def _focused_target(self) -> str | None:
        table = self.focused
        if not isinstance(table, InsightTable) or not table.row_count:
            return None
        if not table.opens:
            return None
        targets = table.targets
        row = table.cursor_row
        return targets[row] if 0 <= row < len(targets) else None

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        target = self._focused_target()
        if target is not None:
            self.dismiss(target)
        else:
            self.notify("No event to open for this row.", markup=False)

    def action_back(self) -> None:
        self.dismiss(None)


def summary(found: Insights, muted: Style | str = "dim") -> Table:
    """The answers at a glance, then what the log cannot tell."""
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(style=muted, no_wrap=True)
    grid.add_column(ratio=1)
    for question, answer in glance(found):
        grid.add_row(Text(question), Text(clean(answer)))
    if found.notes:
        grid.add_row(Text(""), Text(""))
        for note in found.notes:
            grid.add_row(Text("Cannot tell"), Text(clean(note), style=muted))
    return grid
