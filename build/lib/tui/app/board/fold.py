"""What a conversation record, a page of its newest events or a batch of its stream
changes in a board row. No I/O; each function says whether the agent's status changed.

Where the step, the step count and the last error come from:

- a polled row: the newest events (one page, newest first) and the count of its actions,
  fetched again when its record changed (``feed.py``);
- a followed row: the same once, then each action the stream brings (counted once by id,
  whatever a reconnect replays); after a gap fill (what was logged while the socket was
  down, ``StreamEvent.filled``) the newest events and the count are read again instead
  (``feed.py``): a fill may bring actions the count already had.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from tui.app.board.row import BoardRow
from tui.app.format import conversation_cost, parse_time, status_value, title_of
from tui.app.store.rows import summarize
from tui.models.failure import failure_of
from tui.text import one_line

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from tui.client import StreamEvent, StreamState, StreamStatus
    from tui.models import AnyEvent, AppConversation

RESULT_KINDS = frozenset({"ObservationEvent", "UserRejectObservation", "AgentErrorEvent"})
STEP_CHARS = 300

StatusChange = tuple[str | None, str | None]


def _set_status(row: BoardRow, status: str | None, now: datetime) -> StatusChange | None:
    if status == row.status:
        return None
    old, row.status = row.status, status
    # first sight: how long it has been so is not known yet (the details may say)
    row.status_since = now if old is not None else None
    return old, status


def _set_totals(row: BoardRow, cost: float | None, tokens: int | None, moment: float) -> None:
    row.cost, row.tokens = cost, tokens
    row.rate.add(moment, cost, tokens)


def apply_record(
    row: BoardRow, conv: AppConversation, now: datetime, moment: float
) -> StatusChange | None:
    """A fresh record from a listing. While a websocket speaks for the row, its status and
    totals are the stream's (fresher); the record gives the rest."""
    row.conversation = conv
    row.title = title_of(conv)
    row.sandbox_status = status_value(conv.sandbox_status)
    row.created = parse_time(conv.created_at)
    row.updated = conv.updated_at
    change = None
    if not row.followed:
        change = _set_status(row, status_value(conv.execution_status), now)
        _set_totals(row, *conversation_cost(conv), moment)
    row.changed()
    return change


def _error_text(event: AnyEvent) -> str:
    """The last failure (:mod:`tui.models.failure`, as the list marks it) in one line."""
    return one_line(summarize(event), STEP_CHARS)


def apply_tail(row: BoardRow, events: Sequence[AnyEvent], steps: int | None, now: datetime) -> None:
    """The conversation's newest events (newest first) and its count of actions."""
    step = error = None
    since: datetime | None = None
    status_seen = False
    row.tail_ids = frozenset(e.id for e in events if e.id)  # where a stream's log meets it
    for event in events:
        kind = event.kind
        if error is None and failure_of(event) is not None:
            error = _error_text(event)
        if kind == "ActionEvent":
            row.saw_action(event.id)
            if step is None:
                step = one_line(summarize(event), STEP_CHARS)
        elif (
            kind == "ConversationStateUpdateEvent"
            and not status_seen
            and getattr(event, "key", None) == "execution_status"
        ):
            status_seen = True  # the newest change of status: the one in force
            if getattr(event, "value", None) == row.status:
                since = parse_time(event.timestamp)
    if step is not None:
        row.step = step
    if error is not None:
        row.error = error
    if since is not None and row.status_since is None:
        row.status_since = min(since, now)  # a server clock ahead of ours: not in the future
    if steps is not None:
        row.steps = steps
    row.detail_key = detail_key(row)
    row.changed()


def detail_key(row: BoardRow) -> tuple[object, ...]:
    """What a row's details were fetched for: fetched again when this changes."""
    return (row.updated, row.status, row.cost)


def apply_stream(
    row: BoardRow,
    state: StreamState,
    batch: Iterable[StreamEvent | StreamStatus],
    now: datetime,
    moment: float,
) -> tuple[bool, StatusChange | None]:
    """One batch of a followed row's stream: (anything changed, the status change)."""
    filled = {item.event.id for item in batch if getattr(item, "filled", False)}
    aspects = state.extend(batch)
    events = state.take_events()
    change = None
    if "connection" in aspects and state.connection is not None:
        row.link = state.connection.state
    if "status" in aspects:
        change = _set_status(row, status_value(state.execution_status), now)
    if "stats" in aspects:
        _set_totals(row, state.cost, state.total_tokens, moment)
    for event in events:
        if failure_of(event) is not None:
            row.error = _error_text(event)
        if event.kind == "ActionEvent" and row.saw_action(event.id):
            if event.id not in filled:  # a fill's actions: counted when the feed re-reads
                row.steps = (row.steps or 0) + 1
            row.step = one_line(summarize(event), STEP_CHARS)
    changed = bool(aspects - {"streaming", "notice"}) or bool(events)
    if changed:
        row.detail_key = detail_key(row)
        row.changed()
    return changed, change


def pending_actions(events: Sequence[AnyEvent]) -> list[AnyEvent]:
    """The newest actions without a result yet (what a confirmation would run), oldest
    first, from events newest first; the user's last message ends the search."""
    answered: set[str] = set()
    pending: list[AnyEvent] = []
    for event in events:
        kind = event.kind
        call = getattr(event, "tool_call_id", None)
        if kind in RESULT_KINDS:
            for ref in (call, getattr(event, "action_id", None)):
                if isinstance(ref, str):
                    answered.add(ref)
        elif kind == "ActionEvent":
            if call not in answered and event.id not in answered:
                pending.append(event)
        elif kind == "MessageEvent" and event.source == "user":
            break
    return pending[::-1]
