"""What insights answer, as plain frozen dataclasses: the same figures for the view, the
Markdown and the JSON.

A figure that the log cannot give is ``None`` (never 0 and never a guess), and
:attr:`Insights.notes` says why in words. Times are seconds; timestamps are the strings
the server sent; money is in the currency the server counts in (dollars for OpenHands).
Labels (commands, paths) are untrusted text: whoever shows them cleans them, and they are
stored with secrets already masked.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Latency:
    """Model response times in seconds, from completion logs or full metrics."""

    count: int
    total: float
    median: float
    p90: float
    longest: float


@dataclass(frozen=True)
class ModelUsage:
    """One LLM usage (``agent``, ``condenser``, …) and the model behind it.

    Tokens and cost are the server's accumulated figures (the last stats update), or summed
    from completion logs when the log has no stats. ``calls_from`` says how calls were
    counted: ``completion logs``, ``full metrics`` (one entry per response) or ``stats
    updates`` (one update per response)."""

    usage_id: str
    model: str
    calls: int | None
    calls_from: str
    cost: float | None
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    latency: Latency | None
    failed_calls: int = 0  # completion logs of calls that failed

    @property
    def cache_share(self) -> float | None:
        """Share of the prompt tokens read from the cache (None without prompt tokens)."""
        return self.cache_read_tokens / self.prompt_tokens if self.prompt_tokens else None


@dataclass(frozen=True)
class ToolFigures:
    """One tool: its calls, how many failed, and the time from each action to its result.

    ``failed`` counts the results that are failures by the one definition
    (:mod:`tui.models.failure`: an error result, a command that timed out or exited
    non-zero, a call the agent could not run) but rejections; ``rejected`` the ones refused
    by the user or a hook; ``no_result`` the actions whose result never came (still
    running, interrupted). Times run from the action, or from the user's approval when it
    waited for one, to the result; a rejected action never ran and is not timed."""

    tool: str
    calls: int
    failed: int
    rejected: int
    no_result: int
    timed: int  # results with a known duration
    total_s: float
    median_s: float | None
    longest_s: float | None

    @property
    def error_rate(self) -> float | None:
        done = self.calls - self.no_result
        return self.failed / done if done > 0 else None


@dataclass(frozen=True)
class TimedAction:
    """An action and how long its result took."""

    event_id: str | None
    result_id: str | None
    tool: str
    label: str
    seconds: float
    failed: bool
    timestamp: str | None


@dataclass(frozen=True)
class Step:
    """One model response: what the totals grew by between two stats updates, and the event
    the response produced (matched by time: the first agent event stamped at or after the
    update, before the next one; None when the call produced none, e.g. a title)."""

    stats_id: str | None
    event_id: str | None
    label: str
    cost: float
    tokens: int
    timestamp: str | None

    @property
    def open_id(self) -> str | None:
        """The event to show for this step: what it produced, else the stats update."""
        return self.event_id or self.stats_id


@dataclass(frozen=True)
class RepeatedFailure:
    """The same command or edit failing more than twice."""

    tool: str
    label: str
    count: int
    first_id: str | None
    last_id: str | None


@dataclass(frozen=True)
class Mark:
    """A moment worth marking on the timeline (a condensation, a conversation error)."""

    timestamp: str | None
    offset_s: float | None  # seconds from the timeline's start
    event_id: str | None
    label: str


@dataclass(frozen=True)
class TimelinePoint:
    """One time bucket: activity in it, and the totals reached by its end (None before the
    first stats update)."""

    offset_s: float  # bucket start, seconds from the timeline's start
    events: int
    errors: int  # failures (tui.models.failure), as the list marks them
    user_messages: int
    condensations: int
    cost: float | None
    tokens: int | None


@dataclass(frozen=True)
class Timeline:
    """Time buckets from ``start``: the minute of the earliest timestamp (naive, as the
    server sends them), ``bucket_s`` wide; only buckets with something in them."""

    start: str | None
    bucket_s: int
    points: list[TimelinePoint]


@dataclass(frozen=True)
class Insights:
    """Everything one pass over a conversation's events found (see the module doc)."""

    conversation_id: str | None
    title: str | None
    events: int  # the event log's rows: transient events folded away, a repeated id shown again
    duplicates: int
    unreadable: int  # events the client could not type (their readable fields still count)
    first_timestamp: str | None
    last_timestamp: str | None
    span_s: float | None
    quiet_s: float | None  # gaps of QUIET_S or more without any event
    quiet_gaps: int
    tool_s: float  # sum of action (or approval) → result times (parallel calls each count)
    model_s: float | None  # sum of model response times, where the log has them
    cost: float | None
    cost_from: str  # "stats updates", "completion logs", "conversation record" or "nothing"
    prompt_tokens: int | None
    completion_tokens: int | None
    cache_read_tokens: int | None
    stats_updates: int
    record_cost: float | None  # what the conversation record says (a cross-check)
    user_messages: int
    errors: int  # failures (tui.models.failure), as the list marks them
    condensations: list[Mark]
    conversation_errors: list[Mark]
    models: list[ModelUsage]
    tools: list[ToolFigures]
    slowest: list[TimedAction]
    costly: list[Step]
    costly_by: str  # "cost", or "tokens" when the server counts no cost
    steps: int  # model responses seen as stats growth
    failures: list[RepeatedFailure]
    timeline: Timeline
    far_off: int = 0  # events stamped outside the years agents run in: left out of all times
    folded: int = 0  # streaming deltas and full_state snapshots, folded away as the list does
    failed_by: dict[str, int] = field(default_factory=dict)  # failures by why, most first
    notes: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int | None:
        if self.prompt_tokens is None or self.completion_tokens is None:
            return None
        return self.prompt_tokens + self.completion_tokens

    @property
    def active_s(self) -> float | None:
        """The span without the quiet gaps: how long something was happening."""
        if self.span_s is None:
            return None
        return max(0.0, self.span_s - (self.quiet_s or 0.0))

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (non-finite numbers as null), with the derived figures too."""
        data = asdict(self)
        data["tokens"] = self.tokens
        data["active_s"] = self.active_s
        for tool, figures in zip(data["tools"], self.tools, strict=True):
            tool["error_rate"] = figures.error_rate
        for model, figures in zip(data["models"], self.models, strict=True):
            model["cache_share"] = figures.cache_share
        return _finite(data)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
