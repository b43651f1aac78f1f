"""The timeline: activity over time and the totals reached, over the conversation's time.

Events are counted in sparse ten-second buckets as they arrive (log order is not time
order: stats updates are stamped before the events logged ahead of them), and widened at
the end (to half minutes, minutes, …, weeks, then as many weeks as it takes) so that a
conversation has at most :data:`MAX_POINTS` + 1 points whatever its span: a one-minute run
gets six bars, a day-long one 96. State
updates, streaming deltas, token ids and completion logs are not activity and are left
out of the counts. Quiet gaps (:data:`QUIET_S` or more without any event) are summed so
that "how long did it take" can leave out the hours nobody was there.
"""

from __future__ import annotations

import math

from .figures import Timeline, TimelinePoint

#: Kinds that are not activity: the timeline's event counts leave them out (an unreadable
#: one is counted: it is a failure, marked like any other).
QUIET_KINDS = frozenset(
    {"ConversationStateUpdateEvent", "StreamingDeltaEvent", "TokenEvent", "LLMCompletionLogEvent"}
)
#: What the timeline's event counts leave out, in words (said wherever they are shown).
LEFT_OUT = "state updates, LLM logs, token and streaming events"
LEFT_OUT_SHORT = "state/LLM log/token/streaming"
MAX_POINTS = 120
GRAIN = 10  # seconds: the finest bucket
QUIET_S = 300.0
#: Bucket widths tried, in grains (ten seconds): 10 s, 30 s, 1 min, 2, 5, 10, 15, 30 min, 1 h…
WIDTHS = (1, 3, 6, 12, 30, 60, 90, 180, 360, 720, 1440, 2880, 4320, 8640, 17280, 60480)
EVENTS, ERRORS, USERS, CONDENSATIONS, COST, TOKENS = range(6)


class TimelineTracker:
    def __init__(self) -> None:
        self._grains: dict[int, list] = {}
        self.first: float | None = None
        self.last: float | None = None
        self.first_text: str | None = None
        self.last_text: str | None = None
        self.quiet_s = 0.0
        self.quiet_gaps = 0

    def _bucket(self, moment: float) -> list:
        grain = int(moment // GRAIN)
        found = self._grains.get(grain)
        if found is None:
            found = self._grains[grain] = [0, 0, 0, 0, None, None]
        return found

    def seen(self, moment: float | None, timestamp: str | None) -> None:
        """Any event with a timestamp: the span and the quiet gaps."""
        if moment is None:
            return
        if self.last is None or self.first is None:
            self.first = self.last = moment
            self.first_text = self.last_text = timestamp
            return
        if moment - self.last >= QUIET_S:
            self.quiet_s += moment - self.last
            self.quiet_gaps += 1
        if moment > self.last:
            self.last, self.last_text = moment, timestamp
        elif moment < self.first:
            self.first, self.first_text = moment, timestamp

    def activity(
        self,
        moment: float | None,
        *,
        error: bool = False,
        user: bool = False,
        condensation: bool = False,
    ) -> None:
        if moment is None:
            return
        bucket = self._bucket(moment)
        bucket[EVENTS] += 1
        bucket[ERRORS] += error
        bucket[USERS] += user
        bucket[CONDENSATIONS] += condensation

    def totals(self, moment: float | None, cost: float, tokens: int) -> None:
        """The totals after a stats update stamped ``moment``."""
        if moment is None:
            return
        bucket = self._bucket(moment)
        if bucket[COST] is None or cost > bucket[COST]:
            bucket[COST] = cost
        if bucket[TOKENS] is None or tokens > bucket[TOKENS]:
            bucket[TOKENS] = tokens

    @property
    def origin(self) -> float | None:
        """Where the timeline starts: the minute the first event happened in."""
        return None if self.first is None else (self.first // 60) * 60

    def offset(self, moment: float | None) -> float | None:
        """Seconds from the timeline's start (:attr:`origin`)."""
        origin = self.origin
        return None if moment is None or origin is None else moment - origin

    def start_text(self) -> str | None:
        """The origin as the servers write timestamps (naive, to the minute)."""
        if self.first_text is None or self.first is None:
            return None
        cut = self.first_text.find("T")
        if cut < 0 or len(self.first_text) < cut + 6:
            return self.first_text
        return self.first_text[: cut + 6] + ":00"

    def finish(self) -> Timeline:
        if not self._grains or self.first is None or self.last is None:
            return Timeline(start=self.start_text(), bucket_s=GRAIN, points=[])
        origin = int(self.first // 60) * 60 // GRAIN  # the first event's minute, in grains
        span = (self.last - origin * GRAIN) / GRAIN
        width = next((w for w in WIDTHS if span / w <= MAX_POINTS), None)
        if width is None:  # longer than MAX_POINTS weeks: as many weeks a bucket as it takes
            width = WIDTHS[-1] * math.ceil(span / (WIDTHS[-1] * MAX_POINTS))
        merged: dict[int, list] = {}
        for grain, counts in self._grains.items():
            slot = (grain - origin) // width
            into = merged.get(slot)
            if into is None:
                merged[slot] = list(counts)
                continue
            for index in (EVENTS, ERRORS, USERS, CONDENSATIONS):
                into[index] += counts[index]
            for index in (COST, TOKENS):
                if counts[index] is not None and (
                    into[index] is None or counts[index] > into[index]
                ):
                    into[index] = counts[index]
        points = []
        cost = tokens = None
        for slot in sorted(merged):
            counts = merged[slot]
            # totals only grow: a bucket without an update carries the last one forward
            if counts[COST] is not None:
                cost = counts[COST] if cost is None else max(cost, counts[COST])
            if counts[TOKENS] is not None:
                tokens = counts[TOKENS] if tokens is None else max(tokens, counts[TOKENS])
            points.append(
                TimelinePoint(
                    offset_s=float(slot * width * GRAIN),
                    events=counts[EVENTS],
                    errors=counts[ERRORS],
                    user_messages=counts[USERS],
                    condensations=counts[CONDENSATIONS],
                    cost=cost,
                    tokens=tokens,
                )
            )
        return Timeline(start=self.start_text(), bucket_s=width * GRAIN, points=points)
