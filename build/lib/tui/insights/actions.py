"""Tools: calls, failures, and the time from each action to its result.

A result finds its action by ``action_id`` (exact), else by ``tool_call_id`` (an agent
error for a call that could not run has only that; ids are not guaranteed unique, so the
newest action with it wins). Memory stays bounded: actions waiting for a result are capped
(:data:`MAX_PENDING`; the oldest beyond it count as "no result"), the slowest are a heap of
ten, and per tool only the durations are kept (eight bytes each) for an exact median.

The user's approval is not tool time. Under a confirmation policy the actions of a step are
logged, then the status becomes ``waiting_for_confirmation``; approving sets it ``running``
again and the tools run from there, rejecting answers each action with a
``UserRejectObservation``. So an action still waiting for its result when the status
becomes ``waiting_for_confirmation`` is timed from the next ``running``, and a rejected
action, which never ran, is not timed at all.
"""

from __future__ import annotations

import heapq
import itertools
import statistics
from array import array
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tui.models import redact_text

from .figures import RepeatedFailure, TimedAction, ToolFigures
from .reading import action_label, text

MAX_PENDING = 20_000
#: Distinct failing commands remembered (a hostile log's millions of distinct ones are not).
MAX_FAILURE_KEYS = 20_000
TOP = 10
#: "More than twice": a failure listed as repeated.
REPEATED = 3


@dataclass
class _Pending:
    event_id: str | None
    tool: str
    label: str
    key: str
    start: float | None
    timestamp: str | None
    call_id: str | None
    waiting: bool = False  # waiting for the user's approval: not running yet


@dataclass
class _Tool:
    calls: int = 0
    failed: int = 0
    rejected: int = 0
    no_result: int = 0
    total: float = 0.0
    durations: array = field(default_factory=lambda: array("d"))


class ActionTracker:
    """Pairs actions with their results as events arrive (see the module doc)."""

    def __init__(self) -> None:
        self._pending: dict[str, _Pending] = {}
        self._by_call: dict[str, str] = {}
        self._tools: dict[str, _Tool] = {}
        self._slowest: list[tuple[float, int, TimedAction]] = []
        self._seq = itertools.count()
        # key → [count, first id, last id, tool, label]
        self._failures: dict[str, list[Any]] = {}
        # actions logged since the run began, and those waiting for the user's approval
        self._recent: deque[str] = deque(maxlen=MAX_PENDING)
        self._waiting: deque[str] = deque(maxlen=MAX_PENDING)
        self.tool_seconds = 0.0
        self.unpaired_results = 0

    def _tool(self, name: str) -> _Tool:
        found = self._tools.get(name)
        if found is None:
            found = self._tools[name] = _Tool()
        return found

    def action(self, event: dict[str, Any], start: float | None) -> str:
        """An action arrived; returns its label."""
        tool = text(event.get("tool_name")) or "?"
        label, key = action_label(event)
        event_id = text(event.get("id"))
        call_id = text(event.get("tool_call_id"))
        self._tool(tool).calls += 1
        pending_id = event_id or f"\0{next(self._seq)}"
        if pending_id in self._pending:  # the same id again: the first one had no result
            self._tool(self._pending.pop(pending_id).tool).no_result += 1
        self._pending[pending_id] = _Pending(
            event_id, tool, label, key, start, text(event.get("timestamp")), call_id
        )
        if call_id:
            self._by_call[call_id] = pending_id
        self._recent.append(pending_id)
        if len(self._pending) > MAX_PENDING:
            oldest = next(iter(self._pending))
            self._drop(oldest)
        return label

    def status(self, status: object, moment: float | None) -> None:
        """The conversation's ``execution_status`` changed (see the module doc). Each action
        is looked at once or twice whatever the log's length: those logged since the run
        began wait, and only those are started again."""
        if status == "waiting_for_confirmation":
            for pending_id in self._recent:
                found = self._pending.get(pending_id)
                if found is not None and not found.waiting:
                    found.waiting = True
                    self._waiting.append(pending_id)
            self._recent.clear()
        elif status == "running":
            for pending_id in self._waiting:
                found = self._pending.get(pending_id)
                if found is not None and found.waiting:  # approved: the tool starts now
                    found.waiting, found.start = False, moment
            self._waiting.clear()
            self._recent.clear()

    def _drop(self, pending_id: str) -> _Pending | None:
        found = self._pending.pop(pending_id, None)
        if found is not None:
            if found.call_id and self._by_call.get(found.call_id) == pending_id:
                del self._by_call[found.call_id]
            self._tool(found.tool).no_result += 1
        return found

    def result(
        self, event: dict[str, Any], end: float | None, *, failed: bool, rejected: bool = False
    ) -> None:
        """An observation, agent error or rejection arrived."""
        action_id = text(event.get("action_id"))
        call_id = text(event.get("tool_call_id"))
        pending_id = action_id if action_id in self._pending else None
        if pending_id is None and call_id and not action_id:
            pending_id = self._by_call.get(call_id)
        found = self._pending.pop(pending_id, None) if pending_id is not None else None
        if found is None:
            self.unpaired_results += 1
            tool = self._tool(text(event.get("tool_name")) or "?")
            tool.calls += 1  # its action is not in the log, but the tool was called
            tool.failed += failed
            tool.rejected += rejected
            return
        if found.call_id and self._by_call.get(found.call_id) == pending_id:
            del self._by_call[found.call_id]
        tool = self._tool(found.tool)
        tool.failed += failed
        tool.rejected += rejected
        if failed:
            self._failed(found, text(event.get("id")))
        if rejected or found.waiting:  # it never ran (or was never seen approved)
            return
        if found.start is None or end is None or end < found.start:
            return
        seconds = end - found.start
        tool.total += seconds
        tool.durations.append(seconds)
        self.tool_seconds += seconds
        entry = (seconds, next(self._seq), found, text(event.get("id")), failed)
        if len(self._slowest) < TOP:
            heapq.heappush(self._slowest, self._timed(*entry))
        elif seconds > self._slowest[0][0]:
            heapq.heapreplace(self._slowest, self._timed(*entry))

    @staticmethod
    def _timed(
        seconds: float, seq: int, found: _Pending, result_id: str | None, failed: bool
    ) -> tuple[float, int, TimedAction]:
        return (
            seconds,
            seq,
            TimedAction(
                event_id=found.event_id,
                result_id=result_id,
                tool=found.tool,
                label=found.label,
                seconds=seconds,
                failed=failed,
                timestamp=found.timestamp,
            ),
        )

    def _failed(self, found: _Pending, result_id: str | None) -> None:
        entry = self._failures.get(found.key)
        if entry is None:
            if len(self._failures) >= MAX_FAILURE_KEYS:
                return
            self._failures[found.key] = [1, found.event_id, found.event_id, found.tool, found.label]
        else:
            entry[0] += 1
            entry[2] = found.event_id

    # --- results -----------------------------------------------------------------------------

    def finish(self) -> None:
        """The log ended: actions still waiting have no result."""
        for pending_id in list(self._pending):
            self._drop(pending_id)

    def tools(self) -> list[ToolFigures]:
        rows = []
        for name, tool in self._tools.items():
            ordered = sorted(tool.durations)
            rows.append(
                ToolFigures(
                    tool=redact_text(name),
                    calls=tool.calls,
                    failed=tool.failed,
                    rejected=tool.rejected,
                    no_result=tool.no_result,
                    timed=len(ordered),
                    total_s=tool.total,
                    median_s=statistics.median(ordered) if ordered else None,
                    longest_s=ordered[-1] if ordered else None,
                )
            )
        rows.sort(key=lambda row: (-row.total_s, -row.calls, row.tool))
        return rows

    def slowest(self) -> list[TimedAction]:
        ordered = sorted(self._slowest, key=lambda entry: (-entry[0], entry[1]))
        return [_masked(entry[2]) for entry in ordered]

    def repeated_failures(self) -> list[RepeatedFailure]:
        found = [
            RepeatedFailure(
                tool=redact_text(tool),
                label=redact_text(label),
                count=n,
                first_id=first,
                last_id=last,
            )
            for n, first, last, tool, label in self._failures.values()
            if n >= REPEATED
        ]
        found.sort(key=lambda failure: (-failure.count, failure.label))
        return found


def _masked(action: TimedAction) -> TimedAction:
    return TimedAction(
        event_id=action.event_id,
        result_id=action.result_id,
        tool=redact_text(action.tool),
        label=redact_text(action.label),
        seconds=action.seconds,
        failed=action.failed,
        timestamp=action.timestamp,
    )
