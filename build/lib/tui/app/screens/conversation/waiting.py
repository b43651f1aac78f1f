"""Honest waiting: what the screen is waiting for from the server, and for how long.

The event store lists the loads on their way (``ConversationEvents.waiting``: what, since
when, and after a failure why and until when it waits). Once a second the screen says the
oldest one where the user looks: in the list's place while it has no rows ("Waiting for
the server: events page 1 (12 s)…"), else in the list's corner; a pause the server asked
for (``Retry-After``) or a backoff after a failure counts down to the next try. Loads that
answer within :data:`SLOW_AFTER` seconds are never mentioned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.app.widgets.conversation.event_list import EventList

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents, Waiting

#: A load is called slow on screen after this many seconds.
SLOW_AFTER = 2.0
#: How often what is said is brought up to date.
TICK_S = 1.0


def duration(seconds: float) -> str:
    """``7 s``, ``1:58``, ``12:04``: a countdown or an elapsed time at a glance."""
    seconds = max(0, int(seconds + 0.5))
    if seconds < 60:
        return f"{seconds} s"
    return f"{seconds // 60}:{seconds % 60:02d}"


def short_reason(exc: BaseException | None) -> str:
    """A failure in a few words, for a line that also says what and how long."""
    if exc is None:
        return "failed"
    status = getattr(exc, "status", None)
    name = type(exc).__name__
    if status == 429:
        return "server busy: 429"
    if isinstance(status, int) and status >= 500:
        return f"server error {status}"
    if name in ("RequestTimeout", "OutcomeUnknownTimeout"):
        return "no answer in time"
    if name in ("ConnectionLost", "OutcomeUnknown"):
        return "connection lost"
    if name == "NotTheAPI":
        return (
            "redirected (a login page?)"
            if getattr(exc, "location", None)
            else ("a web page, not the API")
        )
    if name == "ResponseTooLarge":
        return "answer too large"
    if name == "BadResponse":
        return "answer cut off"
    return f"HTTP {status}" if isinstance(status, int) else name


def waiting_text(wait: Waiting | None, now: float) -> str | None:
    """What to say about ``wait`` at ``now`` (None: nothing worth saying yet)."""
    if wait is None:
        return None
    if wait.retry_at is not None:
        left = duration(wait.retry_at - now)
        why = short_reason(wait.failure)
        if wait.asked:
            return f"The server asked to wait ({why}): {wait.what} again in {left}…"
        return f"{wait.what}: {why}; trying again in {left} (try {wait.tries + 1})…"
    elapsed = now - wait.since
    if elapsed < SLOW_AFTER:
        return None
    tries = f", try {wait.tries}" if wait.tries > 1 else ""
    return f"Waiting for the server: {wait.what} ({duration(elapsed)}{tries})…"


class WaitingMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    events: ConversationEvents
    waiting_said: str | None = None  # what the screen says about waiting (None: nothing)
    _empty_before: str = ""  # the list's own empty text, while a wait is said in its place
    _said_in_list: str | None = None  # the wait said in the empty list's place

    def start_waiting_clock(self) -> None:
        self.set_interval(TICK_S, self.say_waiting)

    def say_waiting(self) -> None:
        """Bring what the screen says about waiting up to date (once a second)."""
        if self.closing:
            return
        said = waiting_text(self.events.waiting, self.events.clock())
        if said == self.waiting_said:
            return
        self.waiting_said = said
        event_list = self.query_one(EventList)
        shown = self._said_in_list
        if shown is not None and event_list.empty_text == shown:
            event_list.empty_text = self._empty_before  # unless the screen set its own since
        self._said_in_list = None
        if said is not None and len(event_list.source) == 0:
            self._empty_before = event_list.empty_text
            event_list.empty_text = self._said_in_list = said
        event_list.refresh()
        self.update_list_title()

    def list_status(self) -> str | None:
        """What the list's corner says before anything else: an export, then a wait (while
        the list has rows; an empty list says it in its own place)."""
        export = getattr(self, "export_status", "")
        if export:
            return export
        if self.waiting_said and len(self.query_one(EventList).source):
            return self.waiting_said
        return None
