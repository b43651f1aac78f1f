"""The insights view's timeline: two plots drawn with ``textual-plotext``.

Colours come from the theme (its variables, read when the plot is drawn, so a theme
switch redraws them); the plot's own canvas and axes follow the theme through
``textual-plotext``'s automatic theme. Only numbers reach a plot: no untrusted text.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from textual.color import Color
from textual_plotext import PlotextPlot

from tui.insights import Insights
from tui.insights.timeline import LEFT_OUT, LEFT_OUT_SHORT
from tui.insights.words import every

#: theme variable for each series (ohtui's own variables where they mean the same thing)
SERIES = {
    "cost": "primary",
    "tokens": "secondary",
    "events": "primary",
    "errors": "status-error",
    "condensation": "status-paused",
    "user": "status-running",
}


#: Tick spacings tried, in minutes (about five ticks across the span): under a minute for
#: a run of a few minutes, whose ten-second buckets are then labelled to the second.
TICK_MINUTES = (0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080)
YEAR_MINUTES = 365 * 1440  # from this span on, the ticks say the year


def time_ticks(insights: Insights) -> tuple[list[float], list[str]]:
    """Tick positions (minutes from the timeline's start) labelled with the server's clock
    time: ``HH:MM`` (``HH:MM:SS`` when ticks are under a minute apart), with the day when
    the conversation spans more than one."""
    timeline = insights.timeline
    if not timeline.points or timeline.start is None:
        return [], []
    try:
        start = datetime.fromisoformat(timeline.start)
    except ValueError:
        return [], []
    span = (timeline.points[-1].offset_s + timeline.bucket_s) / 60
    step = next((m for m in TICK_MINUTES if span / m <= 5), None)
    if step is None:  # months or years: whole weeks, still about five ticks
        week = TICK_MINUTES[-1]
        step = week * math.ceil(span / (5 * week))
    ticks = [float(n * step) for n in range(int(span / step) + 1)]
    if step < 1:
        form = "%H:%M:%S"
    else:
        form = "%H:%M" if span < 1440 else "%m-%d %H:%M" if span < YEAR_MINUTES else "%Y-%m-%d"
    labels = []
    for tick in ticks:
        try:
            labels.append((start + timedelta(minutes=tick)).strftime(form))
        except OverflowError:
            labels.append("")
    return ticks, labels


class InsightPlot(PlotextPlot):
    """A plot of one :class:`Insights`, redrawn on resize and on a theme switch."""

    DEFAULT_CSS = """
    InsightPlot { height: 1fr; min-height: 6; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.insights: Insights | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.redraw())
        found = getattr(self.screen, "insights", None)  # figures that came before the plot
        if found is not None and self.insights is None:
            self.show(found)

    def show(self, insights: Insights) -> None:
        self.insights = insights
        self.redraw()

    def colour(self, series: str) -> tuple[int, int, int]:
        variables = self.app.theme_variables
        value = variables.get(SERIES[series]) or variables.get("foreground") or "#888888"
        return Color.parse(value).rgb

    def redraw(self) -> None:
        plt = self.plt
        plt.clear_figure()
        if self.insights is not None:
            self.draw(self.insights)
        self.refresh()

    def draw(self, insights: Insights) -> None:  # pragma: no cover - each plot draws its own
        raise NotImplementedError

    def time_axis(self, insights: Insights) -> None:
        ticks, labels = time_ticks(insights)
        if ticks:
            self.plt.xticks(ticks, labels)
            last = insights.timeline.points[-1].offset_s + insights.timeline.bucket_s
            self.plt.xlim(0, last / 60)


class TotalsPlot(InsightPlot):
    """Cost so far (tokens so far on the right), condensations as vertical lines and user
    messages as marks along the bottom."""

    def draw(self, insights: Insights) -> None:
        plt = self.plt
        points = [p for p in insights.timeline.points if p.tokens is not None]
        if not points:
            plt.title("No stats updates in the log: cost and tokens over time cannot be known")
            return
        width = insights.timeline.bucket_s
        # a total is what was reached by the end of its bucket; nothing was spent before
        minutes = [0.0] + [(p.offset_s + width) / 60 for p in points]
        tokens = [0.0] + [(p.tokens or 0) / 1000 for p in points]
        with_cost = bool(insights.cost)
        # tokens dotted and drawn first, cost solid over them: the two grow together, and a
        # solid line over a dotted one keeps both in sight
        plt.plot(
            minutes,
            tokens,
            color=self.colour("tokens"),
            label="tokens (k, right)" if with_cost else "tokens (k)",
            marker="·" if with_cost else None,
            yside="right" if with_cost else None,
        )
        if with_cost:
            costs = [0.0] + [p.cost or 0.0 for p in points]
            plt.plot(minutes, costs, color=self.colour("cost"), label="cost ($)")
        for mark in insights.condensations:
            if mark.offset_s is not None:
                plt.vline(mark.offset_s / 60, color=self.colour("condensation"))
        users = [(p.offset_s + width / 2) / 60 for p in insights.timeline.points if p.user_messages]
        if users:
            plt.scatter(users, [0] * len(users), marker="▲", color=self.colour("user"))
        plt.title(
            ("Cost and tokens so far" if with_cost else "Tokens so far (no cost counted)")
            + " · │ condensed · ▲ user message"
        )
        self.time_axis(insights)


#: How many of the timeline's buckets one bar may take, when the plot is too narrow for
#: one bar each (three cells a bar at least): 10 s buckets become 30 s, 1 min, 2 min, …
MERGES = (1, 3, 6, 12, 30, 60, 90, 180, 360)


def merged(insights: Insights, bars: int) -> tuple[int, list[tuple[float, int, int]]]:
    """The timeline's activity in at most ``bars`` bars: (bucket seconds, [(offset, events,
    errors)])."""
    timeline = insights.timeline
    last = timeline.points[-1].offset_s if timeline.points else 0.0
    span = last / timeline.bucket_s + 1
    factor = next((m for m in MERGES if span / m <= bars), MERGES[-1])
    width = timeline.bucket_s * factor
    bins: dict[int, list[int]] = {}
    for point in timeline.points:
        counts = bins.setdefault(int(point.offset_s // width), [0, 0])
        counts[0] += point.events
        counts[1] += point.errors
    return width, [(slot * width, *counts) for slot, counts in sorted(bins.items())]


class ActivityPlot(InsightPlot):
    """Events per time bucket as bars; the errors among them as marks on the right axis
    (a handful against hundreds would not show on one scale). A narrow plot merges the
    timeline's buckets so that each bar stays visible."""

    def on_resize(self) -> None:
        self.redraw()

    def draw(self, insights: Insights) -> None:
        plt = self.plt
        if not insights.timeline.points:
            far = f" ({insights.far_off:,} far-off left out)" if insights.far_off else ""
            plt.title(f"No timestamps{far}: activity over time cannot be known")
            return
        width, bars = merged(insights, max(4, (self.size.width - 10) // 3))
        minutes = [(offset + width / 2) / 60 for offset, _, _ in bars]
        plt.bar(minutes, [events for _, events, _ in bars], color=self.colour("events"), width=0.6)
        failures = any(errors for _, _, errors in bars)
        if failures:
            errors = [errors for _, _, errors in bars]
            plt.scatter(minutes, errors, color=self.colour("errors"), marker="•", yside="right")
            plt.ylim(0, max(errors), yside="right")
        far = f" · {insights.far_off:,} with far-off times left out" if insights.far_off else ""
        plt.title(activity_title(every(width), failures, far, self.size.width - 2))
        self.time_axis(insights)


def activity_title(every_text: str, failures: bool, far: str, room: int) -> str:
    """The activity plot's title, saying what its bars leave out in as many words as fit
    (plotext drops a title wider than the plot)."""
    for left_out, marks in (
        (f" (not counting {LEFT_OUT})", " · • failures among them (right axis)"),
        (f" (not counting {LEFT_OUT_SHORT})", " · • failures (right axis)"),
        (f", no {LEFT_OUT_SHORT}", " · • failures (right)"),
    ):
        title = f"Events per {every_text}{left_out}{marks if failures else ''}{far}"
        if len(title) <= room:
            return title
    return title
