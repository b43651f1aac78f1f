"""Cost, tokens and model calls, from what the server reports about its LLMs.

Three sources, each used for what it is exact about:

* **stats updates** (``ConversationStateUpdateEvent`` key ``stats``, and the ``stats`` of a
  ``full_state`` snapshot): ``{"usage_to_metrics": {usage_id: metrics}}``, accumulated
  cost and token usage per usage id, one update after each model response. The totals
  are the last update's; a step's cost is the growth between two updates.
* **full metrics** (the ``full_state`` form): adds one entry per response
  (``token_usages``, ``response_latencies``): call counts and latencies.
* **completion logs** (``LLMCompletionLogEvent``, when completion logging is on): one per
  call, with its latency, cost and usage.

Nothing is estimated: without a source a figure stays unknown.
"""

from __future__ import annotations

import json
import statistics
from array import array
from dataclasses import dataclass, field
from typing import Any

from .figures import Latency, ModelUsage
from .reading import count, fields, number, text

TOKEN_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


@dataclass(slots=True)
class UsageFigures:
    """One usage id's accumulated figures, as the latest stats update gave them."""

    model: str
    cost: float
    tokens: tuple[int, int, int, int, int]  # in TOKEN_FIELDS order


def read_stats(value: Any) -> dict[str, UsageFigures] | None:
    """A ``ConversationStats`` value (snapshot or full form) per usage id, or None."""
    per_usage = fields(value).get("usage_to_metrics")
    if not isinstance(per_usage, dict):
        return None
    found = {}
    for usage_id, metrics in per_usage.items():
        metrics = fields(metrics)
        usage = fields(metrics.get("accumulated_token_usage"))
        model = metrics.get("model_name") or usage.get("model")
        found[str(usage_id)] = UsageFigures(
            model=model if isinstance(model, str) and model else "default",
            cost=number(metrics.get("accumulated_cost")),
            tokens=(
                count(usage.get("prompt_tokens")),
                count(usage.get("completion_tokens")),
                count(usage.get("cache_read_tokens")),
                count(usage.get("cache_write_tokens")),
                count(usage.get("reasoning_tokens")),
            ),
        )
    return found


def _has_lists(value: Any) -> bool:
    """The full ``Metrics`` form (per-response lists), not the snapshot form."""
    per_usage = fields(value).get("usage_to_metrics")
    if not isinstance(per_usage, dict):
        return False
    return any(
        "token_usages" in metrics or "response_latencies" in metrics
        for metrics in map(fields, per_usage.values())
    )


@dataclass
class _Calls:
    """Per-call figures of one usage (from full metrics or completion logs)."""

    model: str = ""
    calls: int = 0
    failed: int = 0
    latencies: array = field(default_factory=lambda: array("d"))
    cost: float = 0.0
    tokens: list[int] = field(default_factory=lambda: [0] * len(TOKEN_FIELDS))


def _latency(values: array) -> Latency | None:
    if not values:
        return None
    ordered = sorted(values)
    return Latency(
        count=len(ordered),
        total=sum(ordered),
        median=statistics.median(ordered),
        p90=ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))],
        longest=ordered[-1],
    )


class UsageTracker:
    """Folds stats updates, full metrics and completion logs (see the module doc)."""

    def __init__(self) -> None:
        self.latest: dict[str, UsageFigures] = {}
        self.updates = 0
        self.stats_calls: dict[str, int] = {}
        self.went_down = False
        self._full: dict[str, _Calls] = {}
        self._logs: dict[str, _Calls] = {}
        self.unreadable_logs = 0
        self._cost = 0.0  # the sums over ``latest``, kept as it changes
        self._prompt = self._completion = self._cache = 0

    # --- totals --------------------------------------------------------------------------

    @property
    def cost(self) -> float:
        return self._cost

    @property
    def token_totals(self) -> tuple[int, int, int]:
        """(prompt, completion, cache read) over every usage."""
        return self._prompt, self._completion, self._cache

    def stats(self, value: Any) -> tuple[float, int] | None:
        """Fold one stats value; returns what the totals grew by (cost, prompt+completion
        tokens), or None when the value is not stats. Totals that shrink (a server that
        restarted its counts) start a new base: the growth is never negative."""
        found = read_stats(value)
        if found is None:
            return None
        self.updates += 1
        if _has_lists(value):
            self._full_metrics(value)
        before_cost, before_tokens = self._cost, self._prompt + self._completion
        latest = self.latest
        for usage_id, figures in found.items():
            old = latest.get(usage_id)
            new_prompt, new_completion = figures.tokens[0], figures.tokens[1]
            if old is None:
                grew = figures.cost > 0 or new_prompt > 0 or new_completion > 0
            else:
                old_prompt, old_completion = old.tokens[0], old.tokens[1]
                grew = (
                    figures.cost > old.cost
                    or new_prompt > old_prompt
                    or new_completion > old_completion
                )
                if (
                    figures.cost < old.cost
                    or new_prompt < old_prompt
                    or new_completion < old_completion
                ):
                    self.went_down = True
                self._cost -= old.cost
                self._prompt -= old_prompt
                self._completion -= old_completion
                self._cache -= old.tokens[2]
            if grew:
                self.stats_calls[usage_id] = self.stats_calls.get(usage_id, 0) + 1
            latest[usage_id] = figures
            self._cost += figures.cost
            self._prompt += new_prompt
            self._completion += new_completion
            self._cache += figures.tokens[2]
        return (
            max(0.0, self._cost - before_cost),
            max(0, self._prompt + self._completion - before_tokens),
        )

    def _full_metrics(self, value: Any) -> None:
        """Per-response lists of a full ``Metrics`` (keep the most complete seen)."""
        for usage_id, metrics in fields(value).get("usage_to_metrics", {}).items():
            metrics = fields(metrics)
            usages = metrics.get("token_usages")
            latencies = metrics.get("response_latencies")
            if not isinstance(usages, list) and not isinstance(latencies, list):
                continue
            calls = max(
                len(usages) if isinstance(usages, list) else 0,
                len(latencies) if isinstance(latencies, list) else 0,
            )
            known = self._full.get(str(usage_id))
            if known is not None and known.calls > calls:
                continue
            entry = _Calls(model=text(metrics.get("model_name")) or "", calls=calls)
            for item in latencies if isinstance(latencies, list) else ():
                latency = fields(item).get("latency")
                if isinstance(latency, int | float) and not isinstance(latency, bool):
                    entry.latencies.append(number(latency))
            self._full[str(usage_id)] = entry

    # --- completion logs -------------------------------------------------------------------

    def completion_log(self, event: dict[str, Any]) -> float | None:
        """Fold one ``LLMCompletionLogEvent``'s fields; returns the call's latency."""
        usage_id = text(event.get("usage_id")) or "default"
        entry = self._logs.setdefault(usage_id, _Calls())
        entry.model = text(event.get("model_name")) or entry.model
        entry.calls += 1
        try:
            data = json.loads(event.get("log_data") or "null")
        except (TypeError, ValueError, RecursionError):
            data = None
        failed = (text(event.get("filename")) or "").endswith("-error.json")
        if not isinstance(data, dict):
            self.unreadable_logs += 1
            entry.failed += failed
            return None
        entry.failed += failed or "error" in data
        entry.cost += number(data.get("cost"))
        usage = fields(data.get("usage_summary"))
        for index, name in enumerate(TOKEN_FIELDS):
            entry.tokens[index] += count(usage.get(name))
        latency = data.get("latency_sec")
        if isinstance(latency, int | float) and not isinstance(latency, bool):
            entry.latencies.append(number(latency))
            return number(latency)
        return None

    # --- results -----------------------------------------------------------------------------

    def model_seconds(self) -> float | None:
        """Sum of response times where the log has them (logs win over full metrics)."""
        total, known = 0.0, False
        for usage_id in set(self._logs) | set(self._full):
            source = self._logs.get(usage_id) or self._full.get(usage_id)
            if source is not None and source.latencies:
                total += sum(source.latencies)
                known = True
        return total if known else None

    def models(self) -> list[ModelUsage]:
        """One row per usage id, the most used first."""
        rows = []
        for usage_id in sorted(set(self.latest) | set(self._logs) | set(self._full)):
            stats = self.latest.get(usage_id)
            logs = self._logs.get(usage_id)
            full = self._full.get(usage_id)
            if logs is not None and logs.calls:
                calls, calls_from = logs.calls, "completion logs"
            elif full is not None and full.calls:
                calls, calls_from = full.calls, "full metrics"
            elif usage_id in self.latest:
                calls, calls_from = self.stats_calls.get(usage_id, 0), "stats updates"
            else:
                calls, calls_from = None, "nothing"
            if stats is not None:
                cost, tokens = stats.cost, list(stats.tokens)
            elif logs is not None:
                cost, tokens = logs.cost, logs.tokens
            else:
                cost, tokens = None, [0] * len(TOKEN_FIELDS)
            timing = (logs.latencies if logs is not None and logs.latencies else None) or (
                full.latencies if full is not None else None
            )
            model = (
                (stats.model if stats else "")
                or (logs.model if logs else "")
                or (full.model if full else "")
            )
            rows.append(
                ModelUsage(
                    usage_id=usage_id,
                    model=model or "default",
                    calls=calls,
                    calls_from=calls_from,
                    cost=cost,
                    prompt_tokens=tokens[0],
                    completion_tokens=tokens[1],
                    cache_read_tokens=tokens[2],
                    cache_write_tokens=tokens[3],
                    reasoning_tokens=tokens[4],
                    latency=_latency(timing) if timing else None,
                    failed_calls=logs.failed if logs is not None else 0,
                )
            )
        rows.sort(key=lambda row: (-(row.prompt_tokens + row.completion_tokens), row.usage_id))
        return rows

    def logs_totals(self) -> tuple[float, int, int, int] | None:
        """(cost, prompt, completion, cache read) summed over completion logs, if any."""
        if not self._logs:
            return None
        entries = self._logs.values()
        return (
            sum(e.cost for e in entries),
            sum(e.tokens[0] for e in entries),
            sum(e.tokens[1] for e in entries),
            sum(e.tokens[2] for e in entries),
        )
