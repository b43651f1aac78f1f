"""One row of the board: what it shows of one conversation, or of a server that failed.

A row is plain data the feed changes in place (never a widget); ``version`` grows with
every change so the list knows what to draw again.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime
from typing import TYPE_CHECKING

from tui.app.board.options import ATTENTION

if TYPE_CHECKING:
    from tui.failures import Failure
    from tui.models import AppConversation

#: Seconds of samples a rate is worked out over (the recent pace, not the lifetime average).
RATE_WINDOW_S = 300.0
#: A rate needs samples at least this far apart.
RATE_MIN_SPAN_S = 15.0
#: Action ids remembered per row (to count each step once across replays).
SEEN_ACTIONS = 2000


class RateMeter:
    """Cost and tokens per minute over the last few minutes, from samples of the totals."""

    def __init__(self) -> None:
        self._samples: deque[tuple[float, float, int]] = deque()

    def add(self, moment: float, cost: float | None, tokens: int | None) -> None:
        if cost is None and tokens is None:
            return
        sample = (moment, cost or 0.0, tokens or 0)
        samples = self._samples
        if samples and samples[-1][1:] == sample[1:] and moment - samples[-1][0] < 10:
            return  # nothing new: keep the older sample as the span's end
        if samples and (sample[1] < samples[-1][1] or sample[2] < samples[-1][2]):
            samples.clear()  # totals went down (a new run counting afresh): start over
        samples.append(sample)
        while len(samples) > 2 and moment - samples[1][0] >= RATE_WINDOW_S:
            samples.popleft()

    def per_minute(self, now: float) -> tuple[float, float] | None:
        """(cost, tokens) per minute, or None until the samples span long enough."""
        samples = self._samples
        if len(samples) < 2:
            return None
        first, last = samples[0], samples[-1]
        span = max(now, last[0]) - first[0]
        if span < RATE_MIN_SPAN_S:
            return None
        return (last[1] - first[1]) * 60 / span, (last[2] - first[2]) * 60 / span


class BoardRow:
    """One conversation on the board (``failure`` set: a server that could not be read)."""

    __slots__ = (
        "conversation",
        "conversation_id",
        "cost",
        "created",
        "detail_key",
        "error",
        "failure",
        "follow_failed_at",
        "key",
        "leaving_at",
        "link",
        "rate",
        "readonly",
        "sandbox_status",
        "seen_actions",
        "source",
        "status",
        "status_since",
        "step",
        "steps",
        "tail_ids",
        "title",
        "tokens",
        "updated",
        "version",
    )

    def __init__(self, source: str, conversation_id: str) -> None:
        self.source = source
        self.conversation_id = conversation_id
        self.key = (source, conversation_id)
        self.title = ""
        self.status: str | None = None
        self.status_since: datetime | None = None
        self.sandbox_status: str | None = None
        self.step = ""  # the last action's summary
        self.steps: int | None = None  # actions so far
        self.created: datetime | None = None
        self.updated: str | None = None  # the record's updated_at, as sent
        self.cost: float | None = None
        self.tokens: int | None = None
        self.error = ""  # the last error's one line
        self.failure: Failure | None = None
        self.conversation: AppConversation | None = None  # the newest record, for actions
        self.readonly = False  # its server is read-only (local folders)
        self.rate = RateMeter()
        self.seen_actions: dict[str, None] = {}  # an ordered set
        #: ids of the newest events read (where a stream's gap fill meets what is known)
        self.tail_ids: frozenset[str] = frozenset()
        self.link: str | None = None  # the websocket's state while followed
        self.follow_failed_at: float | None = None
        self.detail_key: tuple[object, ...] | None = None  # what the details were fetched for
        self.leaving_at: float | None = None  # when it left the board's statuses
        self.version = 0

    @classmethod
    def failed(cls, source: str, failure: Failure) -> BoardRow:
        row = cls(source, "")
        row.failure = failure
        row.title = failure.title
        return row

    def __repr__(self) -> str:
        return f"BoardRow({self.source!r}, {self.conversation_id[:8]!r}, {self.status!r})"

    @property
    def followed(self) -> bool:
        """A websocket speaks for this row now (the listing's status and stats wait)."""
        return self.link == "live"

    @property
    def needs_human(self) -> bool:
        return self.failure is not None or (self.status in ATTENTION and self.leaving_at is None)

    def changed(self) -> None:
        self.version += 1

    def saw_action(self, event_id: str | None) -> bool:
        """Remember an action id; False when it was counted before."""
        if not event_id:
            return True
        if event_id in self.seen_actions:
            return False
        self.seen_actions[event_id] = None
        if len(self.seen_actions) > SEEN_ACTIONS:
            del self.seen_actions[next(iter(self.seen_actions))]
        return True
