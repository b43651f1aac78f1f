"""The timeline: activity per minute and the totals reached, over the conversation's time.

Events are counted in sparse one-minute buckets as they arrive (log order is not time
order: stats updates are stamped before the events logged ahead of them), and widened at
the end so that a long conversation still has at most :data:`MAX_POINTS` points. State
updates, streaming deltas, token ids and completion logs are not activity and are left
out of the counts. Quiet gaps (:data:`QUIET_S` or more without any event) are summed so
that "how long did it take" can leave out the hours nobody was there.
"""

from __future__ import annotations

from .figures import Timeline, TimelinePoint

MAX_POINTS = 240
QUIET_S = 300.0
#: Bucket widths tried, in minutes.
WIDTHS = (1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 720, 1440, 2880, 10080)
EVENTS, ERRORS, USERS, CONDENSATIONS, COST, TOKENS = range(6)


class TimelineTracker:
    def __init__(self) -> None:
        self._minutes: dict[int, list] = {}
        self.first: float | None = None
        self.last: float | None = None
        self.first_text: str | None = None
        self.last_text: str | None = None
        self.quiet_s = 0.0
        self.quiet_gaps = 0

    def _bucket(self, moment: float) -> list:
        minute = int(moment // 60)
        found = self._minutes.get(minute)
        if found is None:
            found = self._minutes[minute] = [0, 0, 0, 0, None, None]
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
        if not self._minutes or self.first is None or self.last is None:
            return Timeline(start=self.start_text(), bucket_s=60, points=[])
        span_min = (self.last - self.first) / 60
        width = next((w for w in WIDTHS if span_min / w <= MAX_POINTS), WIDTHS[-1])
        start_minute = int(self.first // 60)
        merged: dict[int, list] = {}
        for minute, counts in self._minutes.items():
            slot = (minute - start_minute) // width
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
                    offset_s=float(slot * width * 60),
                    events=counts[EVENTS],
                    errors=counts[ERRORS],
                    user_messages=counts[USERS],
                    condensations=counts[CONDENSATIONS],
                    cost=cost,
                    tokens=tokens,
                )
            )
        return Timeline(start=self.start_text(), bucket_s=width * 60, points=points)
