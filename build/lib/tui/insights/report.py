"""Insights as Markdown (people) or JSON (scripts): ``ohtui insights ID --format md|json``.

Every label is untrusted text with its secrets already masked (:mod:`.figures`); here it
is made safe for the page: controls shown as visible symbols, one line, and set as a code
span that nothing in it can close, with table pipes escaped.
"""

from __future__ import annotations

import re

from tui.models.failure import MEANS
from tui.models.jsontext import json_text
from tui.text import clean, one_line

from .figures import Insights
from .summary import glance
from .timeline import LEFT_OUT
from .words import UNKNOWN, clock, clock_after, duration, every, money, rate, tokens

FORMATS = ("md", "json")
FAILED_MEANS = (
    "Failed: an error result, a command that timed out or exited non-zero, or a call the "
    "agent could not run (the list marks these, rejections and other failures alike). "
    "Times run from the action, or from the user's approval when it waited for one, to its "
    "result; a rejected action never ran and is not timed."
)


def to_json(insights: Insights) -> str:
    """Labels and titles as sent (secrets masked), but C1 controls, bidi overrides and
    line separators as ``\\uXXXX`` escapes: safe to print, and the same strings decoded."""
    return json_text(insights.to_json(), indent=2) + "\n"


def _cell(value: str) -> str:
    """Plain text for a table cell."""
    return (
        clean(one_line(value, 300)).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")
    )


def _code(value: str) -> str:
    """Untrusted text as inline code in a table cell."""
    line = clean(one_line(value, 300)).replace("|", "\\|")
    ticks = "`" * (max((len(run) for run in re.findall("`+", line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line.strip() else ""
    return f"{ticks}{pad}{line}{pad}{ticks}"


def _id(event_id: str | None) -> str:
    return _code(event_id) if event_id else UNKNOWN


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out + [""]


def to_markdown(insights: Insights) -> str:
    name = insights.title or insights.conversation_id or "conversation"
    lines = [f"# Insights: {_cell(name)}", ""]
    if insights.conversation_id:
        lines += [f"Conversation {_code(insights.conversation_id)}", ""]
    lines += _table(["", ""], [[q, _cell(a)] for q, a in glance(insights)])
    lines += _timeline(insights)
    lines += ["## Tools", ""]
    if insights.tools:
        lines += _table(
            ["tool", "calls", "failed", "error rate", "no result", "total", "median", "longest"],
            [
                [
                    _code(t.tool),
                    f"{t.calls:,}",
                    f"{t.failed:,}",
                    rate(t.error_rate),
                    f"{t.no_result:,}",
                    duration(t.total_s) if t.timed else UNKNOWN,
                    duration(t.median_s),
                    duration(t.longest_s),
                ]
                for t in insights.tools
            ],
        )
        lines += [FAILED_MEANS, ""]
    else:
        lines += ["No tool calls.", ""]
    lines += ["## Slowest actions", ""]
    lines += (
        _table(
            ["#", "took", "tool", "action", "failed", "event"],
            [
                [
                    str(n),
                    duration(a.seconds),
                    _code(a.tool),
                    _code(a.label),
                    "yes" if a.failed else "",
                    _id(a.event_id),
                ]
                for n, a in enumerate(insights.slowest, 1)
            ],
        )
        if insights.slowest
        else ["No timed actions.", ""]
    )
    lines += [f"## Most expensive steps (by {insights.costly_by})", ""]
    lines += (
        _table(
            ["#", "cost", "tokens", "at", "produced", "event"],
            [
                [
                    str(n),
                    money(s.cost),
                    tokens(s.tokens),
                    clock(s.timestamp),
                    _code(s.label) if s.event_id else _cell(s.label),
                    _id(s.open_id),
                ]
                for n, s in enumerate(insights.costly, 1)
            ],
        )
        if insights.costly
        else ["No stats updates: steps cannot be known.", ""]
    )
    lines += _models(insights)
    lines += ["## Repeated failures", ""]
    lines += (
        _table(
            ["times", "tool", "command or edit", "last event"],
            [
                [f"×{f.count}", _code(f.tool), _code(f.label), _id(f.last_id)]
                for f in insights.failures
            ],
        )
        if insights.failures
        else ["No command or edit failed more than twice.", ""]
    )
    if insights.condensations:
        lines += ["## Condensations", ""]
        lines += _table(
            ["at", "what", "event"],
            [[clock(m.timestamp), _cell(m.label), _id(m.event_id)] for m in insights.condensations],
        )
    if insights.conversation_errors:
        lines += ["## Conversation errors", ""]
        lines += _table(
            ["at", "error", "event"],
            [
                [clock(m.timestamp), _code(m.label), _id(m.event_id)]
                for m in insights.conversation_errors
            ],
        )
    if insights.notes:
        lines += ["## What the log cannot tell", ""]
        lines += [f"- {_cell(note)}" for note in insights.notes] + [""]
    return "\n".join(lines)


def _timeline(insights: Insights) -> list[str]:
    timeline = insights.timeline
    if not timeline.points:
        return []
    lines = [f"## Timeline (per {every(timeline.bucket_s)})", ""]
    lines += [f"Events: all but {LEFT_OUT}. Failures: {MEANS}.", ""]
    seconds = timeline.bucket_s < 60  # buckets within a minute: told apart to the second
    return lines + _table(
        ["from", "events", "failures", "user", "condensed", "cost so far", "tokens so far"],
        [
            [
                clock_after(timeline.start, p.offset_s, seconds=seconds),
                f"{p.events:,}",
                f"{p.errors:,}" if p.errors else "",
                f"{p.user_messages:,}" if p.user_messages else "",
                f"{p.condensations:,}" if p.condensations else "",
                money(p.cost),
                tokens(p.tokens),
            ]
            for p in timeline.points
        ],
    )


def _models(insights: Insights) -> list[str]:
    lines = ["## Model calls", ""]
    if not insights.models:
        return lines + ["No model usage in the log.", ""]
    rows = []
    for m in insights.models:
        latency = (
            f"{duration(m.latency.median)} / {duration(m.latency.p90)} / {duration(m.latency.longest)}"
            if m.latency
            else UNKNOWN
        )
        rows.append(
            [
                _code(m.usage_id),
                _code(m.model),
                (f"{m.calls:,}" if m.calls is not None else UNKNOWN) + f" ({m.calls_from})",
                tokens(m.prompt_tokens),
                tokens(m.completion_tokens),
                tokens(m.cache_read_tokens)
                + (f" ({rate(m.cache_share)})" if m.cache_share is not None else ""),
                money(m.cost),
                latency,
            ]
        )
    return lines + _table(
        [
            "usage",
            "model",
            "calls",
            "prompt",
            "completion",
            "cache read",
            "cost",
            "latency median / p90 / max",
        ],
        rows,
    )


def render(insights: Insights, fmt: str = "md") -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    return to_json(insights) if fmt == "json" else to_markdown(insights)
