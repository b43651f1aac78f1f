"""The insights view's tables: which columns fit a width, and each row's cells.

No widgets here: the screen fills :class:`~.widgets.fitted_table.FittedTable`\\ s with these
rows. Every label is untrusted text (a command, a path, a model name) and becomes a plain
``Text`` cut to one line, never markup. Each row carries the id of the event Enter opens
(None when there is none to open).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text

from tui.app.tables.table_columns import Column, ColumnSpec, fit_columns
from tui.app.themes import theme_style
from tui.insights import Insights
from tui.insights.words import UNKNOWN, clock, duration, money, rate, tokens
from tui.text import one_line

Cells = dict[str, Text]
Row = tuple[str | None, Cells]  # (the event Enter opens, the cells by column key)
#: At most this many rows per table (repeated failures of a hostile log can be thousands).
MAX_ROWS = 500
BAR_CELLS = "▏▎▍▌▋▊▉█"


def bar(value: float, most: float, width: int, style: str | Style = "") -> Text:
    """``value`` as a horizontal bar of up to ``width`` cells (eighths for the last one)."""
    if most <= 0 or value <= 0 or width <= 0:
        return Text("")
    eighths = max(1, round(8 * width * value / most))
    full, rest = divmod(eighths, 8)
    return Text("█" * full + (BAR_CELLS[rest - 1] if rest else ""), style=style)


def _label(value: str, limit: int = 300) -> Text:
    return Text(one_line(value, limit), no_wrap=True, overflow="ellipsis")


def _number(value: str, style: str | Style = "") -> Text:
    return Text(value, justify="right", style=style)


def _time(timestamp: str | None) -> Text:
    return Text(clock(timestamp)[11:], style="dim")  # HH:MM:SS: the date is in the summary


# --- tools -----------------------------------------------------------------------------------


def tool_columns(width: int) -> list[Column]:
    return fit_columns(
        width,
        [
            ColumnSpec("Tool", "tool", 14, flex=True),
            ColumnSpec("Calls", "calls", 6),
            ColumnSpec("Failed", "failed", 6),
            ColumnSpec("Rate", "rate", 5, drop=5),
            ColumnSpec("No result", "pending", 9, drop=1),
            ColumnSpec("Total", "total", 10),
            ColumnSpec("Median", "median", 8, drop=3),
            ColumnSpec("Longest", "longest", 8, drop=2),
            ColumnSpec("Share of tool time", "share", 18, drop=4, grow=40),
        ],
        floor=10,
        roomy=24,
    )


def tool_rows(insights: Insights) -> list[Row]:
    most = max((t.total_s for t in insights.tools), default=0.0)
    rows = []
    for t in insights.tools[:MAX_ROWS]:
        failed_style = theme_style("$status-error bold") if t.failed else "dim"
        cells = {
            "tool": _label(t.tool, 80),
            "calls": _number(f"{t.calls:,}"),
            "failed": _number(f"{t.failed:,}", failed_style),
            "rate": _number(rate(t.error_rate), failed_style),
            "pending": _number(f"{t.no_result:,}" if t.no_result else "", "dim"),
            "total": _number(duration(t.total_s) if t.timed else UNKNOWN),
            "median": _number(duration(t.median_s), "dim"),
            "longest": _number(duration(t.longest_s), "dim"),
            "share": bar(t.total_s, most, 18, style=theme_style("$primary")),
        }
        rows.append((None, cells))
    return rows


# --- slowest actions -------------------------------------------------------------------------


def slowest_columns(width: int) -> list[Column]:
    return fit_columns(
        width,
        [
            ColumnSpec("Took", "took", 9),
            ColumnSpec("Tool", "tool", 12, drop=2),
            ColumnSpec("Action", "action", 30, flex=True),
            ColumnSpec("Result", "result", 7),
            ColumnSpec("At", "at", 8, drop=1),
        ],
        floor=16,
        roomy=60,
    )


def slowest_rows(insights: Insights) -> list[Row]:
    return [
        (
            action.event_id,
            {
                "took": _number(duration(action.seconds)),
                "tool": _label(action.tool, 40),
                "action": _label(action.label),
                "result": Text("failed", style=theme_style("$status-error"))
                if action.failed
                else Text("ok", style="dim"),
                "at": _time(action.timestamp),
            },
        )
        for action in insights.slowest
    ]


# --- the dearest steps -----------------------------------------------------------------------


def step_columns(width: int) -> list[Column]:
    return fit_columns(
        width,
        [
            ColumnSpec("Cost", "cost", 8),
            ColumnSpec("Tokens", "tokens", 7),
            ColumnSpec("At", "at", 8, drop=1),
            ColumnSpec("What the response produced", "produced", 30, flex=True),
        ],
        floor=16,
        roomy=60,
    )


def step_rows(insights: Insights) -> list[Row]:
    rows = []
    for step in insights.costly:
        produced = _label(step.label)
        if step.event_id is None:
            produced.stylize("dim italic")
        rows.append(
            (
                step.open_id,
                {
                    "cost": _number(money(step.cost)),
                    "tokens": _number(tokens(step.tokens)),
                    "at": _time(step.timestamp),
                    "produced": produced,
                },
            )
        )
    return rows


# --- model calls -----------------------------------------------------------------------------


def model_columns(width: int) -> list[Column]:
    return fit_columns(
        width,
        [
            ColumnSpec("Usage", "usage", 10),
            ColumnSpec("Model", "model", 20, flex=True),
            ColumnSpec("Calls", "calls", 6),
            ColumnSpec("Prompt", "prompt", 7),
            ColumnSpec("Completion", "completion", 10, drop=3),
            ColumnSpec("Cache read", "cache", 11, drop=2),
            ColumnSpec("Cost", "cost", 8),
            ColumnSpec("Latency median/p90/max", "latency", 23, drop=1),
        ],
        floor=12,
        roomy=40,
    )


def model_rows(insights: Insights) -> list[Row]:
    rows = []
    for m in insights.models:
        latency = (
            f"{duration(m.latency.median)} / {duration(m.latency.p90)} / "
            f"{duration(m.latency.longest)}"
            if m.latency
            else "not in the log"
        )
        cache = tokens(m.cache_read_tokens)
        if m.cache_share is not None:
            cache += f" {rate(m.cache_share)}"
        rows.append(
            (
                None,
                {
                    "usage": _label(m.usage_id, 40),
                    "model": _label(m.model, 80),
                    "calls": _number(f"{m.calls:,}" if m.calls is not None else UNKNOWN),
                    "prompt": _number(tokens(m.prompt_tokens)),
                    "completion": _number(tokens(m.completion_tokens)),
                    "cache": _number(cache),
                    "cost": _number(money(m.cost)),
                    "latency": Text(latency, style="" if m.latency else "dim"),
                },
            )
        )
    return rows


# --- repeated failures -----------------------------------------------------------------------


def failure_columns(width: int) -> list[Column]:
    return fit_columns(
        width,
        [
            ColumnSpec("Times", "times", 6),
            ColumnSpec("Tool", "tool", 12, drop=1),
            ColumnSpec("Command or edit that kept failing", "what", 30, flex=True),
        ],
        floor=16,
        roomy=60,
    )


def failure_rows(insights: Insights) -> list[Row]:
    return [
        (
            failure.last_id,
            {
                "times": _number(f"×{failure.count:,}", "bold"),
                "tool": _label(failure.tool, 40),
                "what": _label(failure.label),
            },
        )
        for failure in insights.failures[:MAX_ROWS]
    ]


#: tab id → (columns for a width, rows of the insights, what the tab says when empty)
TABLES: dict[str, tuple[Callable[[int], list[Column]], Callable[[Insights], list[Row]], str]] = {
    "tools": (tool_columns, tool_rows, "No tool calls."),
    "slowest": (slowest_columns, slowest_rows, "No action has a timed result."),
    "steps": (step_columns, step_rows, "No stats updates in the log: steps cannot be known."),
    "models": (model_columns, model_rows, "No model usage in the log."),
    "failures": (failure_columns, failure_rows, "No command or edit failed more than twice."),
}
