"""Steps: what each model response cost, and which event it produced.

A step is the growth of the totals between two consecutive stats updates (the server
sends one after each model response). A response's events (actions, an agent message, a
condensation: whatever carries its ``llm_response_id``) are grouped by that id. Which group
an update paid for depends on how the log is ordered:

* **log order** (an agent server's search, a local folder, the reference server): the
  update is emitted from another thread and lands after the step it paid for — usually
  after the action and its result, sometimes (a call that could not run, a final reply)
  just before the action. An update takes the response logged last since the previous
  update; a response left over takes the nearest update before it that has none (the
  title's call, for one, takes nothing).
* **time order** (an app server's stored history, sorted by timestamp): older servers
  stamp the update as the response arrives, a millisecond before its action, so an update
  takes the response right after it. When the data does not show that (the response after
  an update is not within :data:`CLOSE_S` in most steps), log order's rule is used.

A log whose timestamps never go backwards is in time order. Both answers are kept per
step and the choice is made at the end, in one pass and bounded memory: only the ten
dearest steps are kept (by cost, and by tokens for servers that count no cost), and the
responses since the last update (at most :data:`RECENT`).
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

from tui.models import redact_text

from .figures import Step

TOP = 10
RECENT = 64
#: An agent event stamped this soon after an update is the response the update counted.
CLOSE_S = 0.05
NO_EVENT = "no event (a call outside the agent's steps)"


@dataclass
class _Response:
    """One model response's events, as logged."""

    response_id: str
    event_id: str | None
    label: str
    moment: float | None
    events: int = 1


@dataclass
class _Step:
    stats_id: str | None
    timestamp: str | None
    cost: float
    tokens: int
    moment: float | None
    before: _Response | None = None  # log order's answer
    after: _Response | None = None  # time order's answer
    unclaimed: int = 0  # other responses in its interval no update took

    def done(self, *, after: bool) -> Step:
        found = self.after if after else self.before
        label = NO_EVENT
        if found is not None:
            more = found.events - 1 + (0 if after else self.unclaimed)
            label = redact_text(found.label) + (f" (+{more:,} more)" if more > 0 else "")
        return Step(
            stats_id=self.stats_id,
            event_id=found.event_id if found else None,
            label=label,
            cost=self.cost,
            tokens=self.tokens,
            timestamp=self.timestamp,
        )


class StepTracker:
    def __init__(self) -> None:
        self._since: list[_Response] = []  # responses logged since the last update
        self._open: _Step | None = None  # the last update's step
        self._by_cost: list[tuple[float, int, _Step]] = []
        self._by_tokens: list[tuple[int, int, _Step]] = []
        self._seq = itertools.count()
        self.count = 0
        self._timed = 0  # closed steps with both the update's and the next response's time
        self._close_after = 0  # … where that response came within CLOSE_S of the update

    def produced(
        self, response_id: str, event_id: str | None, label: str, moment: float | None
    ) -> None:
        """An event a model response produced (it has an ``llm_response_id``) arrived."""
        since = self._since
        if since and since[-1].response_id == response_id:
            since[-1].events += 1  # parallel tool calls of one response
        else:
            since.append(_Response(response_id, event_id, label, moment))
            if len(since) > RECENT:
                del since[0]
        step = self._open
        if step is not None and step.after is None:
            step.after = since[-1]

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
        step = _Step(stats_id, timestamp, cost, tokens, moment)
        self._claim(step)
        self._close()
        self._open = step

    def _claim(self, step: _Step | None) -> None:
        """``step`` takes the last response since the previous update; the previous step,
        if it took none, takes the first of the others (logged after it: its own)."""
        since, previous = self._since, self._open
        self._since = []
        if step is not None and since:
            step.before = since.pop()
        if previous is not None and previous.before is None and since:
            previous.before = since.pop(0)
        if step is not None:
            step.unclaimed = len(since)
        elif previous is not None:
            previous.unclaimed += len(since)

    def _close(self) -> None:
        step, self._open = self._open, None
        if step is None:
            return
        if step.moment is not None and step.after is not None and step.after.moment is not None:
            self._timed += 1
            self._close_after += 0 <= step.after.moment - step.moment <= CLOSE_S
        seq = next(self._seq)
        for heap, value in ((self._by_cost, step.cost), (self._by_tokens, step.tokens)):
            item = (value, -seq, step)
            if len(heap) < TOP:
                heapq.heappush(heap, item)
            elif item[:2] > heap[0][:2]:
                heapq.heapreplace(heap, item)

    def finish(self, *, by_cost: bool, log_order: bool) -> list[Step]:
        self._claim(None)  # responses after the last update: the last step's, if it has none
        self._close()
        after = not log_order and 2 * self._close_after > self._timed
        heap = self._by_cost if by_cost else self._by_tokens
        ordered = sorted(heap, key=lambda item: (-item[0], -item[1]))
        return [item[2].done(after=after) for item in ordered]
