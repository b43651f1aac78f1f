"""One pass over a conversation's events: :class:`InsightsBuilder` folds them as they come.

``feed(event)`` costs a few microseconds and keeps nothing of the event but numbers, a
few ids and short labels, so a 100,000-event conversation is read page by page in bounded
memory; ``finish()`` makes the :class:`~.figures.Insights`. :func:`compute_insights` is
the same over any iterable of events (typed events, or unreadable ones kept raw).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tui.models import RawEvent, redact_text
from tui.models.event_facts import is_transient
from tui.models.failure import REJECTED, UNREADABLE, failure_of
from tui.text import clean, one_line

from .actions import ActionTracker
from .figures import Insights, Mark
from .reading import far_off, fields, seconds, text
from .seen import SeenIds
from .steps import StepTracker
from .timeline import QUIET_KINDS, QUIET_S, TimelineTracker
from .usage import UsageTracker
from .words import plural

#: Marks kept for the listing (a log with 100,000 condensations is not listed whole).
MAX_MARKS = 500
#: Kinds of failure counted apart (by their words: "exit code 2", "tool error"…).
MAX_WHYS = 50
OTHER = "other"


class InsightsBuilder:
    """Feed events in log order (oldest first); ``finish()`` once at the end."""

    def __init__(
        self,
        conversation_id: str | None = None,
        *,
        title: str | None = None,
        record_cost: float | None = None,
    ) -> None:
        self.conversation_id = conversation_id
        self.title = redact_text(title) if title else title  # shown and written: masked
        self.record_cost = record_cost
        self.count = 0  # the list's rows: transient events folded away, duplicates shown
        self.folded = 0  # streaming deltas and full_state snapshots, as the list folds them
        self.duplicates = 0
        self.unreadable = 0
        self.user_messages = 0
        self.errors = 0
        self.failed_by: dict[str, int] = {}  # why → failures (MAX_WHYS kinds, then "other")
        self.far_off = 0  # events stamped outside the years agents run in (reading.py)
        self._far_off_example: str | None = None
        self._seen = SeenIds()
        self.usage = UsageTracker()
        self.actions = ActionTracker()
        self.steps = StepTracker()
        self.timeline = TimelineTracker()
        self._condensations: list[tuple[float | None, str | None, str | None, str]] = []
        self._conversation_errors: list[tuple[float | None, str | None, str | None, str]] = []

    def feed(self, event: Any) -> None:
        data = fields(event)
        if isinstance(event, RawEvent):
            self.unreadable += 1
        # counted as the list shows it: a row unless folded away, marked when it failed
        failure = None
        if is_transient(event):
            self.folded += 1
        else:
            self.count += 1
            failure = failure_of(event)
            if failure is not None:
                self.errors += 1
                self._why(failure.why)
        event_id = text(data.get("id"))
        if event_id is not None and not self._seen.add(event_id):
            self.duplicates += 1
            return
        kind = text(data.get("kind")) or ""
        timestamp = text(data.get("timestamp"))
        moment = seconds(timestamp)
        if moment is not None and far_off(moment):
            self.far_off += 1
            self._far_off_example = self._far_off_example or timestamp
            moment = None  # counted, but it times nothing: not the timeline, span or durations
        self.timeline.seen(moment, timestamp)
        if kind == "ConversationStateUpdateEvent":
            self._state(data, event_id, moment, timestamp)
        elif kind == "LLMCompletionLogEvent":
            self.usage.completion_log(data)
        if kind in QUIET_KINDS and failure is None:
            return  # not activity (an unreadable one is: it is marked)
        error = failure is not None
        if kind == "ActionEvent":
            self._produced(data, moment, self.actions.action(data, moment))
        elif kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
            result = failure
            if result is not None and result.what == UNREADABLE:
                result = failure_of(data)  # the tool's outcome, as far as its fields tell
            rejected = result is not None and result.what == REJECTED
            failed = result is not None and not rejected
            self.actions.result(data, moment, failed=failed, rejected=rejected)
            if kind != "AgentErrorEvent":
                self.steps.result(text(data.get("action_id")), moment)
        elif kind == "MessageEvent":
            if data.get("source") == "user":
                self.user_messages += 1
            elif text(data.get("llm_response_id")):
                self._produced(data, moment)
        elif kind == "Condensation":
            if len(self._condensations) < MAX_MARKS:
                forgotten = data.get("forgotten_event_ids")
                size = len(forgotten) if isinstance(forgotten, list) else 0
                self._condensations.append((moment, timestamp, event_id, f"forgot {size:,} events"))
            self._produced(data, moment)
        elif kind in ("ConversationErrorEvent", "ServerErrorEvent") and (
            len(self._conversation_errors) < MAX_MARKS
        ):
            code = text(data.get("code")) or kind
            detail = text(data.get("detail")) or ""
            label = one_line(redact_text(f"{code}: {detail}"[:1000]), 200)  # masked, then cut
            self._conversation_errors.append((moment, timestamp, event_id, label))
        self.timeline.activity(
            moment,
            error=error,
            user=kind == "MessageEvent" and data.get("source") == "user",
            condensation=kind == "Condensation",
        )

    def _why(self, why: str) -> None:
        """Count a failure by its words (a hostile log's endless exit codes are "other")."""
        if why not in self.failed_by and len(self.failed_by) >= MAX_WHYS:
            why = OTHER
        self.failed_by[why] = self.failed_by.get(why, 0) + 1

    def _produced(
        self, data: dict[str, Any], moment: float | None, label: str | None = None
    ) -> None:
        """An event a model response produced at ``moment`` (``label`` given for actions)."""
        response_id = text(data.get("llm_response_id"))
        if not response_id:
            return
        if label is None:
            label = "condensation" if data.get("kind") == "Condensation" else _reply(data)
        self.steps.produced(response_id, text(data.get("id")), label, moment)

    def _state(
        self, data: dict[str, Any], event_id: str | None, moment: float | None, ts: str | None
    ) -> None:
        key = data.get("key")
        value = data.get("value")
        if key == "execution_status":
            self.actions.status(value, moment)  # the user's approval wait is no tool time
            return
        if key == "full_state":
            value = fields(value).get("stats")
        elif key != "stats":
            return
        grown = self.usage.stats(value)
        if grown is None:
            return
        cost, tokens = grown
        prompt, completion, _ = self.usage.token_totals
        self.timeline.totals(moment, self.usage.cost, prompt + completion)
        if cost > 0 or tokens > 0:
            self.steps.grew(event_id, moment, ts, cost, tokens)

    # --- the result ------------------------------------------------------------------------

    def finish(self) -> Insights:
        self.actions.finish()
        usage = self.usage
        notes: list[str] = []
        cost: float | None
        prompt: int | None
        completion: int | None
        cache: int | None
        logs = usage.logs_totals()
        if usage.updates:
            cost, cost_from = usage.cost, "stats updates"
            prompt, completion, cache = usage.token_totals
        elif logs is not None:
            cost, prompt, completion, cache = logs
            cost_from = "completion logs"
            notes.append(
                "No stats updates in the log: cost and tokens are summed from its completion logs."
            )
        elif self.record_cost is not None:
            cost, cost_from = self.record_cost, "conversation record"
            prompt = completion = cache = None
            notes.append(
                "No stats updates in the log: the cost is the conversation record's; "
                "steps and tokens over time cannot be known."
            )
        else:
            cost, cost_from = None, "nothing"
            prompt = completion = cache = None
            notes.append("No stats updates in the log: cost and tokens cannot be known.")
        by_cost = bool(cost)
        costly = self.steps.finish(by_cost=by_cost)
        if usage.updates and not cost:
            notes.append(
                "The server counts no cost for this model ($0): steps are ranked by tokens."
            )
        if usage.went_down:
            notes.append(
                "The totals went down once (the server restarted its counts): growth after it is counted from there."
            )
        model_s = usage.model_seconds()
        if model_s is None:
            notes.append(
                "Model response times are not in the log (no completion logs or full metrics)."
            )
        if self.unreadable:
            notes.append(
                f"{self.unreadable:,} events could not be read fully; what they hold still counts."
            )
        if self.duplicates:
            notes.append(
                f"{plural(self.duplicates, 'event')} repeat an earlier id: listed, as in the "
                "list, but counted once in the figures."
            )
        if self.actions.unpaired_results:
            notes.append(
                f"{self.actions.unpaired_results:,} results have no action in the log (not timed)."
            )
        if self.far_off:
            notes.append(
                f"{plural(self.far_off, 'event')} with far-off times (such as "
                f"{clean(one_line(self._far_off_example or '?', 40))}) left out of the timeline, "
                "the span and the durations."
            )
        timeline = self.timeline
        span = None if timeline.first is None else timeline.last - timeline.first
        return Insights(
            conversation_id=self.conversation_id,
            title=self.title,
            events=self.count,
            folded=self.folded,
            duplicates=self.duplicates,
            unreadable=self.unreadable,
            first_timestamp=timeline.first_text,
            last_timestamp=timeline.last_text,
            span_s=span,
            quiet_s=timeline.quiet_s if span is not None else None,
            quiet_gaps=timeline.quiet_gaps,
            tool_s=self.actions.tool_seconds,
            model_s=model_s,
            cost=cost,
            cost_from=cost_from,
            prompt_tokens=prompt,
            completion_tokens=completion,
            cache_read_tokens=cache,
            stats_updates=usage.updates,
            record_cost=self.record_cost,
            user_messages=self.user_messages,
            errors=self.errors,
            failed_by=dict(sorted(self.failed_by.items(), key=_most_first)),
            condensations=self._marks(self._condensations),
            conversation_errors=self._marks(self._conversation_errors),
            models=usage.models(),
            tools=self.actions.tools(),
            slowest=self.actions.slowest(),
            costly=costly,
            costly_by="cost" if by_cost else "tokens",
            steps=self.steps.count,
            failures=self.actions.repeated_failures(),
            timeline=timeline.finish(),
            far_off=self.far_off,
            notes=notes,
        )

    def _marks(self, found: list[tuple[float | None, str | None, str | None, str]]) -> list[Mark]:
        return [
            Mark(
                timestamp=timestamp,
                offset_s=self.timeline.offset(moment),
                event_id=event_id,
                label=label,
            )
            for moment, timestamp, event_id, label in found
        ]


def _most_first(item: tuple[str, int]) -> tuple[bool, int, str]:
    """Failures by why: the commonest first, "other" last."""
    return item[0] == OTHER, -item[1], item[0]


def _reply(data: dict[str, Any]) -> str:
    """An agent message's words, for the step that produced it."""
    content = fields(data.get("llm_message")).get("content")
    words = ""
    if isinstance(content, list):
        words = " ".join(text(fields(block).get("text")) or "" for block in content[:3]).strip()
    return "agent: " + (one_line(redact_text(words[:1000]), 200) if words else "(no text)")


def compute_insights(
    events: Iterable[Any],
    conversation_id: str | None = None,
    *,
    title: str | None = None,
    record_cost: float | None = None,
) -> Insights:
    """Insights of ``events`` (in log order), in one pass."""
    builder = InsightsBuilder(conversation_id, title=title, record_cost=record_cost)
    for event in events:
        builder.feed(event)
    return builder.finish()


__all__ = ["QUIET_KINDS", "QUIET_S", "InsightsBuilder", "compute_insights"]
