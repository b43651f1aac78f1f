"""Steps: what each model response cost, and which event it produced.

A step is the growth of the totals between two consecutive stats updates (the server
sends one after each model response). A response's events (actions, an agent message, a
condensation: whatever carries its ``llm_response_id``) are grouped by that id, and the
response spans the time from its first event to its last result.

Which response an update paid for cannot be read off the log's order: servers emit the
update from another thread, and it lands after the response's action and result, or just
before the action, or (SDK 1.43) is stamped before the action but logged after its result;
an app server sorts the history by time. What holds everywhere is that the update is made
at the moment of its response: it is nearer in time to that response than to the one
before or after. So each update is matched to the nearer of two candidates — the last
response logged since the previous update and still unclaimed, and the first one logged
after it, which must be :data:`PREFER_BEFORE` times nearer to win — and when two updates
want one response, the nearer keeps it (the title's call, for one, makes an update that
takes none).

One pass, bounded memory: responses are remembered for the last :data:`RECENT`, an update
is decided when the next arrives and can still lose its response to the one after, then
only the ten dearest steps are kept (by cost, and by tokens for servers that count none).
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from dataclasses import dataclass, field

from tui.models import redact_text

from .figures import Step

TOP = 10
RECENT = 64
#: The response after an update wins only when this many times nearer than the one before:
#: an update lands after its response unless its thread got the log first, and a loaded
#: machine stamps it late (460 ms after its result was seen, with the next response 140 ms
#: on); one that got there first is stamped tens of milliseconds before its action, a
#: model call after the response before.
PREFER_BEFORE = 4.0
NO_EVENT = "no event (a call outside the agent's steps)"
FAR = float("inf")


@dataclass(eq=False)
class _Response:
    """One model response's events, as logged."""

    response_id: str
    event_id: str | None
    label: str
    start: float | None
    end: float | None
    events: int = 1
    owner: _Step | None = None


@dataclass(eq=False)
class _Step:
    stats_id: str | None
    timestamp: str | None
    cost: float
    tokens: int
    moment: float | None
    before: _Response | None = None  # the last unclaimed response logged since the last update
    after: _Response | None = None  # the first response logged after it
    choice: _Response | None = field(default=None, repr=False)
    distance: float = FAR

    def distance_to(self, response: _Response) -> float:
        """Seconds between the update and the response's span (0 inside it), times
        :data:`PREFER_BEFORE` for the response after it; unknown times are far, so that
        log order decides (the response before the update first)."""
        if self.moment is None or response.start is None:
            return FAR
        if self.moment < response.start:
            seconds = response.start - self.moment
        else:
            seconds = max(0.0, self.moment - (response.end or response.start))
        return seconds * PREFER_BEFORE if response is self.after else seconds

    def done(self) -> Step:
        found = self.choice
        label = NO_EVENT
        if found is not None:
            more = found.events - 1
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
        self._responses: dict[str, _Response] = {}  # the last RECENT, by response id
        self._by_action: dict[str, _Response] = {}  # their actions, to stretch them to results
        self._since: list[_Response] = []  # responses logged since the last update
        self._waiting: _Step | None = None  # the last update: its "after" is still to come
        self._decided: deque[_Step] = deque()  # decided, but may lose to the next update
        self._by_cost: list[tuple[float, int, _Step]] = []
        self._by_tokens: list[tuple[int, int, _Step]] = []
        self._seq = itertools.count()
        self.count = 0

    def produced(
        self, response_id: str, event_id: str | None, label: str, moment: float | None
    ) -> None:
        """An event a model response produced (it has an ``llm_response_id``) arrived."""
        response = self._responses.get(response_id)
        if response is not None:  # parallel tool calls of one response
            response.events += 1
            self._stretch(response, moment)
        else:
            response = _Response(response_id, event_id, label, moment, moment)
            self._responses[response_id] = response
            self._since.append(response)
            if len(self._responses) > RECENT:
                oldest = next(iter(self._responses.values()))
                del self._responses[oldest.response_id]
                self._by_action = {k: v for k, v in self._by_action.items() if v is not oldest}
            if self._waiting is not None and self._waiting.after is None:
                self._waiting.after = response
        if event_id is not None:
            self._by_action[event_id] = response

    def result(self, action_id: str | None, moment: float | None) -> None:
        """An action's result arrived: its response lasted until then."""
        response = self._by_action.pop(action_id, None) if action_id else None
        if response is not None:
            self._stretch(response, moment)

    @staticmethod
    def _stretch(response: _Response, moment: float | None) -> None:
        if moment is None:
            return
        if response.start is None or moment < response.start:
            response.start = moment
        if response.end is None or moment > response.end:
            response.end = moment

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
        step.before = next((r for r in reversed(self._since) if r.owner is None), None)
        self._since = []
        if self._waiting is not None:
            self._decide(self._waiting)
        self._waiting = step

    def _decide(self, step: _Step) -> None:
        """The nearer candidate (the one before on a tie); a response another step holds
        is taken from it when this step is nearer, and that step falls back to its other
        candidate if free."""
        options = sorted(
            (c for c in (step.before, step.after) if c is not None),
            key=lambda c: (step.distance_to(c), c is step.after),
        )
        for candidate in options:
            distance = step.distance_to(candidate)
            holder = candidate.owner
            if holder is None or distance < holder.distance:
                if holder is not None:
                    holder.choice, holder.distance = None, FAR
                    self._assign(holder, exclude=candidate)
                step.choice, step.distance, candidate.owner = candidate, distance, step
                break
        self._decided.append(step)
        while len(self._decided) > 2:
            self._close(self._decided.popleft())

    def _assign(self, step: _Step, *, exclude: _Response) -> None:
        """A step that lost its response takes its other candidate, if no one holds it."""
        for candidate in (step.before, step.after):
            if candidate is not None and candidate is not exclude and candidate.owner is None:
                step.choice, step.distance = candidate, step.distance_to(candidate)
                candidate.owner = step
                return

    def _close(self, step: _Step) -> None:
        seq = next(self._seq)
        for heap, value in ((self._by_cost, step.cost), (self._by_tokens, step.tokens)):
            item = (value, -seq, step)
            if len(heap) < TOP:
                heapq.heappush(heap, item)
            elif item[:2] > heap[0][:2]:
                heapq.heapreplace(heap, item)

    def finish(self, *, by_cost: bool) -> list[Step]:
        if self._waiting is not None:
            self._decide(self._waiting)
            self._waiting = None
        while self._decided:
            self._close(self._decided.popleft())
        heap = self._by_cost if by_cost else self._by_tokens
        ordered = sorted(heap, key=lambda item: (-item[0], -item[1]))
        return [item[2].done() for item in ordered]
