"""How many status notifications the board sends: a few at a time, the rest summed up.

Two hundred agents finish, fail and wait all the time; one toast each would cover the
board and ring the bell without pause. The changes a flush collects go to the app one by
one (it decides what is news: ``notices.Notifier``) while at most ``per_window`` have gone
in the last ``window`` seconds, those needing a human first; the rest become one line.
While a screen whose rows show the changes is in view (the board, the conversations list),
they are said in its status line instead (:class:`Lately`, :func:`tell_in_status_line`).
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable, Iterable

from tui.app.board.options import ATTENTION
from tui.app.notices import alert
from tui.text import one_line

WINDOW_S = 10.0
PER_WINDOW = 3
#: What a held change is called in the summary.
WORDS = {
    "finished": "finished",
    "error": "stopped with an error",
    "stuck": "got stuck",
    "waiting_for_confirmation": "wait for confirmation",
    "paused": "paused",
    "running": "running",
    "idle": "idle",
}

Change = tuple[object, str | None, str | None]  # (row, old, new)


def app_newsworthy(app: object) -> Callable[[str | None, str | None], bool]:
    """Whether the app would tell a change (its notifier's statuses; a first sight is not
    a change): what the gate counts against its window."""

    def newsworthy(old: str | None, new: str | None) -> bool:
        statuses = getattr(getattr(app, "notifier", None), "statuses", ())
        return old is not None and new != old and new in statuses

    return newsworthy


class NoticeGate:
    def __init__(
        self,
        newsworthy: Callable[[str | None, str | None], bool],
        *,
        window: float = WINDOW_S,
        per_window: int = PER_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.newsworthy = newsworthy
        self.window, self.per_window, self.clock = window, per_window, clock
        self._sent: deque[float] = deque()
        self.held: Counter[str] = Counter()

    def admit(self, changes: Iterable[Change]) -> tuple[list[Change], str | None]:
        """The changes to pass on now, and a summary of those held back (when there is
        room for it)."""
        now = self.clock()
        while self._sent and now - self._sent[0] >= self.window:
            self._sent.popleft()
        passed: list[Change] = []
        ordered = sorted(changes, key=lambda change: change[2] not in ATTENTION)
        for change in ordered:
            if not self.newsworthy(change[1], change[2]):
                passed.append(change)  # the app ignores it anyway: costs nothing
            elif len(self._sent) < self.per_window:
                self._sent.append(now)
                passed.append(change)
            else:
                self.held[change[2] or "?"] += 1
        summary = None
        if self.held and len(self._sent) < self.per_window:
            self._sent.append(now)
            parts = [f"{n} {WORDS.get(status, status)}" for status, n in self.held.most_common()]
            total = sum(self.held.values())
            summary = f"{total} more agent{'s' if total != 1 else ''}: " + ", ".join(parts)
            self.held.clear()
        return passed, summary


LATELY_S = 30.0
#: What the status line calls an agent that reached a status.
SHORT = {
    "finished": "finished",
    "error": "failed",
    "stuck": "stuck",
    "waiting_for_confirmation": "to confirm",
    "paused": "paused",
    "idle": "idle",
}


#: Characters of a title a status line gives its news (at most; at least, else counted).
TITLE_CHARS = 40
MIN_TITLE_CHARS = 12
#: What a status line says of one conversation that reached a status.
TITLED = {**SHORT, "stuck": "got stuck", "waiting_for_confirmation": "waits for you"}


class Lately:
    """The news of the last :data:`LATELY_S` seconds, said in a status line.

    While the board (or the conversations list) is on screen its rows already show every
    change (and the board floats the ones needing a human up): a toast per change would only
    cover the columns it updates. The app's notifier still hears of each change (so nothing
    is news again elsewhere), and what it would have told is counted here instead; a single
    piece of news is said with the conversation's title when it has one."""

    def __init__(self, *, keep: float = LATELY_S, clock: Callable[[], float] = time.monotonic):
        self.keep, self.clock = keep, clock
        self._seen: deque[tuple[float, str, str | None]] = deque()

    def add(self, status: str, title: str | None = None) -> None:
        self._seen.append((self.clock(), status, title))

    def add_counts(self, counts: Counter[str]) -> None:
        for status, n in counts.items():
            for _ in range(n):
                self.add(status)

    def summary(self, room: int | None = None) -> str:
        """``"lately: 2 finished, 1 to confirm"`` (``"lately: “Fix the build” finished"``
        for one, its title cut to fit ``room`` characters, else counted), or "" when
        nothing happened lately."""
        now = self.clock()
        while self._seen and now - self._seen[0][0] >= self.keep:
            self._seen.popleft()
        if len(self._seen) == 1 and self._seen[0][2]:
            _at, status, title = self._seen[0]
            words = TITLED.get(status, status)
            fits = TITLE_CHARS if room is None else room - len(f"lately: “” {words}")
            if fits >= MIN_TITLE_CHARS:
                return f"lately: “{one_line(title or '', min(fits, TITLE_CHARS))}” {words}"
        counts = Counter(status for _at, status, _title in self._seen)
        parts = [f"{n} {SHORT.get(status, status)}" for status, n in counts.most_common()]
        return "lately: " + ", ".join(parts) if parts else ""

    def __bool__(self) -> bool:
        return bool(self._seen)


#: (conversation id, title, old status, new status)
StatusNews = tuple[str, str, str | None, str | None]


def tell_in_status_line(
    app: object, lately: Lately, changes: Iterable[StatusNews], *, titled: bool = True
) -> bool:
    """Changes a screen's rows already show: each the app's notifier would tell is counted
    in ``lately`` (with its title when ``titled``) instead of a toast, and rings the bell as
    a toast would (:func:`~tui.app.notices.alert`). Whether anything was told."""
    notifier = getattr(app, "notifier", None)
    if notifier is None:
        return False
    told = []
    for conversation_id, title, old, new in changes:
        found = notifier.notice(conversation_id, title, old, new)
        if found is not None:
            lately.add(new or "?", title if titled else None)
            told.append(found[0])
    alert(app, told)
    return bool(told)
