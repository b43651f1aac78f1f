"""The builder a live agent run emits its events through: wall-clock times, running usage
(per-call usage kept, capped, for the ``full_state`` stats), and how long the next step takes."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from tui.models import ROOT_PARENT

from .conversation_builder import ConversationBuilder
from .events_builder import WORKDIR

#: Per-call usage entries kept for the ``full_state`` stats (newest last).
MAX_USAGE_ENTRIES = 50


class LiveBuilder(ConversationBuilder):
    """A :class:`ConversationBuilder` on the wall clock (the app's ``clock``) that continues an
    existing log: ``head`` and usage come from the store, timestamps strictly increase, and
    per-call usage is kept (capped) for the ``full_state`` stats."""

    def __init__(
        self,
        rng: random.Random,
        *,
        conversation_id: str,
        model: str,
        clock: Callable[[], float],
        head: str | None,
        metrics: dict[str, Any] | None,
        backdate_stats: bool = False,
    ) -> None:
        """``backdate_stats``: stats updates are stamped a little before the step they
        follow, as the real app server's stored history has them (facts §10)."""
        super().__init__(
            rng,
            datetime.fromtimestamp(clock()),
            conversation_id=conversation_id,
            model=model,
            workdir=WORKDIR,
        )
        self.clock = clock
        self.backdate_stats = backdate_stats
        self.now = datetime.fromtimestamp(clock()) - timedelta(microseconds=1)
        self.head = head or ROOT_PARENT
        self.set_totals(metrics)
        self.token_usages: deque[dict[str, Any]] = deque(maxlen=MAX_USAGE_ENTRIES)
        self.costs: deque[dict[str, Any]] = deque(maxlen=MAX_USAGE_ENTRIES)
        self.latencies: deque[dict[str, Any]] = deque(maxlen=MAX_USAGE_ENTRIES)
        #: paces until the next step (the runner's wait: a test run takes longer than a
        #: file view); set by the step just played, 1 unless a script says otherwise
        self.wait = 1.0
        #: (paces the next tool runs, paces the model thinks after it): ``paced``
        self.pacing: tuple[float, float] | None = None

    def paced(self, runs: float, then: float) -> None:
        """The next tool call runs ``runs`` paces and the model thinks ``then`` paces over
        its result (a script's realistic rhythm; ``script_steps.tool`` applies it)."""
        self.pacing = (runs, then)

    def take_pacing(self) -> tuple[float, float]:
        pacing, self.pacing = self.pacing or (1.0, 1.0), None
        return pacing

    def take_wait(self) -> float:
        """Paces to wait before the next step (then back to 1)."""
        wait, self.wait = self.wait, 1.0
        return wait

    def set_totals(self, metrics: dict[str, Any] | None) -> None:
        """Cost and tokens so far from a MetricsSnapshot (the record's ``metrics``): where
        the run goes on elsewhere (a local folder the agent writes), its ``full_state``
        snapshots carry the record's figures, not those of when following began."""
        usage = (metrics or {}).get("accumulated_token_usage") or {}
        self.cost = float((metrics or {}).get("accumulated_cost") or 0.0)
        self.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        self.completion_tokens = int(usage.get("completion_tokens") or 0)
        self.cache_read_tokens = int(usage.get("cache_read_tokens") or 0)

    def tick(self, low_ms: float = 2, high_ms: float = 600) -> str:
        now = datetime.fromtimestamp(self.clock())
        if now <= self.now:
            now = self.now + timedelta(microseconds=1)
        self.now = now
        return now.isoformat(timespec="microseconds")

    def state(self, key: str, value: Any, *, earlier: bool = False) -> str:
        # back-dated only when asked to: a live log's times otherwise only increase
        return super().state(key, value, earlier=earlier and self.backdate_stats)

    def llm_call(self, prompt: int | None = None, completion: int | None = None) -> str:
        before = (self.prompt_tokens, self.completion_tokens, self.cache_read_tokens, self.cost)
        response_id = super().llm_call(prompt, completion)
        p = self.prompt_tokens - before[0]
        c = self.completion_tokens - before[1]
        self.token_usages.append(
            {
                "model": self.model,
                "prompt_tokens": p,
                "completion_tokens": c,
                "cache_read_tokens": self.cache_read_tokens - before[2],
                "cache_write_tokens": 0,
                "reasoning_tokens": 0,
                "context_window": 200000,
                "per_turn_token": p + c,
                "response_id": response_id,
            }
        )
        self.costs.append(
            {
                "model": self.model,
                "cost": round(self.cost - before[3], 6),
                "timestamp": self.clock(),
            }
        )
        self.latencies.append(
            {
                "model": self.model,
                "latency": round(0.8 + self.rng.random() * 4, 3),
                "response_id": response_id,
            }
        )
        return response_id

    def full_metrics(self) -> dict[str, Any]:
        """The full Metrics form ``full_state`` carries (nulls left out, lists capped)."""
        snapshot = self.metrics()
        snapshot.pop("max_budget_per_task", None)
        snapshot["costs"] = list(self.costs)
        snapshot["response_latencies"] = list(self.latencies)
        snapshot["token_usages"] = list(self.token_usages)
        return snapshot
