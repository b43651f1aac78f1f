"""Steps: what each model response cost, and which event it produced.

A step is the growth of the totals between two consecutive stats updates (the server
sends one after each model response). Which event the response produced depends on how
the log is ordered:

* **log order** (an agent server's search, a local folder, the reference server): the
  update is emitted from another thread and logged after the step it paid for (after the
  action and its result), so it is stamped earlier than events logged before it. A
  step's event is then the first agent event logged since the previous update.
* **time order** (an app server's stored history, sorted by timestamp): a real server
  stamps the update as the response arrives, a millisecond before the action it paid
  for, so a step's event is the first agent event after it. Data stamped otherwise (the
  reference server's demo stamps an update just before the action's result) shows it:
  the event after the update is then not within :data:`CLOSE_S` of it in most steps, and
  the event before it is taken, as in log order.

A log whose timestamps never go backwards is in time order. Both candidates are kept per
step and the choice is made at the end, in one pass and bounded memory: only the ten
dearest steps are kept (by cost, and by tokens for servers that count no cost).
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

from tui.models import redact_text

from .figures import Step

TOP = 10
#: An agent event stamped this soon after an update is the response the update counted.
CLOSE_S = 0.05
NO_EVENT = "no event (a call outside the agent's steps)"
Produced = tuple[str | None, str]  # (event id, label)


@dataclass
class _Step:
    stats_id: str | None
    timestamp: str | None
    cost: float
    tokens: int
    moment: float | None
    before: Produced | None  # first agent event logged since the previous update
    after: Produced | None = None  # first agent event logged after this update
    after_moment: float | None = None
    before_count: int = 0
    after_count: int = 0

    def done(self, *, after: bool) -> Step:
        event, count = (self.after, self.after_count) if after else (self.before, self.before_count)
        label = NO_EVENT
        if event is not None:
            label = redact_text(event[1]) + (f" (+{count - 1:,} more)" if count > 1 else "")
        return Step(
            stats_id=self.stats_id,
            event_id=event[0] if event else None,
            label=label,
            cost=self.cost,
            tokens=self.tokens,
            timestamp=self.timestamp,
        )


class StepTracker:
    def __init__(self) -> None:
        self._since: Produced | None = None  # first agent event since the last update
        self._since_count = 0
        self._open: _Step | None = None
        self._by_cost: list[tuple[float, int, _Step]] = []
        self._by_tokens: list[tuple[int, int, _Step]] = []
        self._seq = itertools.count()
        self.count = 0
        self._timed = 0  # closed steps with both the update's and the next event's time
        self._close_after = 0  # … where that event came within CLOSE_S of the update

    def produced(self, event_id: str | None, label: str, moment: float | None) -> None:
        """An event a model response produced (it has an ``llm_response_id``) arrived."""
        if self._since is None:
            self._since = (event_id, label)
        self._since_count += 1
        step = self._open
        if step is not None:
            step.after_count += 1
            if step.after is None:
                step.after, step.after_moment = (event_id, label), moment

    def grew(
        self,
        stats_id: str | None,
        moment: float | None,
        timestamp: str | None,
        cost: float,
        tokens: int,
    ) -> None:
        """A stats update grew the totals by ``cost`` and ``tokens``: a new step."""
        self.count += 1
        self._close()
        self._open = _Step(stats_id, timestamp, cost, tokens, moment, before=self._since)
        self._open.before_count = self._since_count
        self._since, self._since_count = None, 0

    def _close(self) -> None:
        step, self._open = self._open, None
        if step is None:
            return
        if step.moment is not None and step.after_moment is not None:
            self._timed += 1
            self._close_after += 0 <= step.after_moment - step.moment <= CLOSE_S
        seq = next(self._seq)
        for heap, value in ((self._by_cost, step.cost), (self._by_tokens, step.tokens)):
            item = (value, -seq, step)
            if len(heap) < TOP:
                heapq.heappush(heap, item)
            elif item[:2] > heap[0][:2]:
                heapq.heapreplace(heap, item)

    def finish(self, *, by_cost: bool, log_order: bool) -> list[Step]:
        self._close()
        after = not log_order and 2 * self._close_after > self._timed
        heap = self._by_cost if by_cost else self._by_tokens
        ordered = sorted(heap, key=lambda item: (-item[0], -item[1]))
        return [item[2].done(after=after) for item in ordered]
