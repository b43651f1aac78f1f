"""``StreamState``: what a conversation screen shows, folded from stream items. No I/O.

Feed it every item of an :class:`~tui.client.stream.EventStream` (or plain events, e.g. a
REST history page) with :meth:`StreamState.apply`; it returns the set of aspects that
changed so a screen repaints only those:

``"events"``     :attr:`events` — persisted events in arrival order, one per identity; a
                 copy flagged ``replaces`` (or any later copy that gains ``parent_id``) takes
                 the earlier copy's place; another event reusing an id (``copy`` 2, 3…) is
                 kept beside the first. Deltas, ``full_state`` snapshots and
                 ``ServerErrorEvent`` replies are never in it: the server persists none of them.
                 An event read in a helper is held as its :class:`ReadEvent`.
``"status"``     :attr:`execution_status` — from ``full_state`` snapshots and keyed
                 ``execution_status`` updates (an :class:`ExecutionStatus`, or the raw string
                 for a value this client does not know).
``"stats"``      :attr:`cost`, :attr:`prompt_tokens`, :attr:`completion_tokens`,
                 :attr:`total_tokens` — summed over ``usage_to_metrics`` of the newest
                 ``stats`` value (keyed update or snapshot; both are whole snapshots).
``"streaming"``  :attr:`streaming_text`, :attr:`streaming_reasoning` — concatenated
                 ``StreamingDeltaEvent`` ``content`` / ``reasoning_content`` of the response
                 in progress; cleared when the response lands (an agent ``MessageEvent`` or
                 ``ActionEvent``), on a ``ConversationErrorEvent``, or when the status leaves
                 ``running``.
``"error"``      :attr:`last_error` — the last ``ConversationErrorEvent`` (kept, not cleared
                 by later runs: compare with :attr:`execution_status`).
``"notice"``     :attr:`server_notice` — the last ``ServerErrorEvent`` (the server's answer to
                 a frame it could not use).
``"connection"`` :attr:`connection` — the last :class:`StreamStatus`.
``"policy"``     :attr:`confirmation_policy`, :attr:`security_analyzer` — by ``kind``, from
                 ``full_state`` snapshots and keyed updates (the real agent server logs one
                 when either is set); :attr:`policies_known` once the stream said them.

Side effects are applied once per id: a duplicate or a replacement only swaps the event.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from tui.models import (
    ActionEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    ExecutionStatus,
    MessageEvent,
    StreamingDeltaEvent,
)
from tui.models.events import ServerErrorEvent
from tui.models.parse import AnyEvent, RawEvent

from .stream_items import ReadEvent, StreamEvent, StreamStatus, is_transient

Aspect = str
#: what :meth:`StreamState._hold` answers for a new event (never handed on: callers answer
#: a set of their own)
_ADDED: frozenset[Aspect] = frozenset({"events"})
#: the state keys that say a policy (:meth:`StreamState._set_policy`)
POLICY_KEYS = ("confirmation_policy", "security_analyzer")


def _status(value: Any) -> ExecutionStatus | str | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return ExecutionStatus(value)
    except ValueError:
        return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value) if math.isfinite(value) else 0.0


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return int(value) if math.isfinite(value) else 0


def stats_totals(value: Any) -> tuple[float, int, int] | None:
    """(cost, prompt tokens, completion tokens) of a ``ConversationStats`` value, or None
    when it is not one. Works for the snapshot form and the full ``Metrics`` form."""
    if not isinstance(value, dict):
        return None
    per_usage = value.get("usage_to_metrics")
    if not isinstance(per_usage, dict):
        return None
    cost, prompt, completion = 0.0, 0, 0
    for metrics in per_usage.values():
        if not isinstance(metrics, dict):
            continue
        cost += _number(metrics.get("accumulated_cost"))
        usage = metrics.get("accumulated_token_usage")
        if isinstance(usage, dict):
            prompt += _int(usage.get("prompt_tokens"))
            completion += _int(usage.get("completion_tokens"))
    return cost, prompt, completion


class StreamState:
    """The UI-facing fold of a conversation's stream (see the module doc)."""

    def __init__(self) -> None:
        #: persisted events in arrival order (one read in a helper is its :class:`ReadEvent`)
        self.events: list[AnyEvent | ReadEvent] = []
        self._index: dict[str, int] = {}
        self.execution_status: ExecutionStatus | str | None = None
        self.full_state: dict[str, Any] | None = None
        self.usage_to_metrics: dict[str, Any] = {}
        self.cost: float = 0.0
        self.prompt_tokens: int = 0
        self.completion_tokens: int = 0
        self.streaming_text: str = ""
        self.streaming_reasoning: str = ""
        self.last_error: ConversationErrorEvent | None = None
        self.server_notice: ServerErrorEvent | None = None
        self.connection: StreamStatus | None = None
        self.confirmation_policy: str | None = None
        self.security_analyzer: str | None = None
        self.policies_known = False

    # --- reading -------------------------------------------------------------------------------

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def is_streaming(self) -> bool:
        return bool(self.streaming_text or self.streaming_reasoning)

    def event(self, event_id: str) -> AnyEvent | None:
        at = self._index.get(event_id)
        return None if at is None else self.events[at]

    def __len__(self) -> int:
        return len(self.events)

    def take_events(self) -> list[AnyEvent]:
        """Hand over the events folded so far and forget them (bounded memory for consumers
        that keep their own copy); status, stats and streaming text stay."""
        events, self.events, self._index = self.events, [], {}
        return events

    # --- folding -------------------------------------------------------------------------------

    def extend(self, items: Iterable[StreamEvent | StreamStatus | AnyEvent]) -> set[Aspect]:
        changed: set[Aspect] = set()
        for item in items:
            changed |= self.apply(item)
        return changed

    def apply(self, item: StreamEvent | ReadEvent | StreamStatus | AnyEvent) -> set[Aspect]:
        """Fold one item; return the aspects that changed (empty for a plain duplicate)."""
        if type(item) is ReadEvent:  # every item of a fast stream read in the helper
            return self._read(item)
        copy = 1
        if isinstance(item, StreamEvent):  # nearly every other item: asked first
            event, replaces, copy = item.event, item.replaces, item.copy
        elif isinstance(item, StreamStatus):
            self.connection = item
            return {"connection"}
        else:
            event, replaces = item, False
        if is_transient(event):
            return self._transient(event)
        held = self._hold(event, event.id, event.parent_id, replaces, copy)
        if held is not _ADDED:
            return held
        changed: set[Aspect] = {"events"}
        if isinstance(event, RawEvent):
            return changed
        if isinstance(event, ConversationStateUpdateEvent):
            if event.key == "execution_status":
                changed |= self._set_status(event.value)
            elif event.key == "stats":
                changed |= self._set_stats(event.value)
            elif event.key in POLICY_KEYS:
                changed |= self._set_policy(event.key, event.value)
        elif isinstance(event, ConversationErrorEvent):
            self.last_error = event
            changed.add("error")
            changed |= self._clear_streaming()
        elif isinstance(event, (MessageEvent, ActionEvent)) and event.source == "agent":
            changed |= self._clear_streaming()
        return changed

    def _read(self, item: ReadEvent) -> set[Aspect]:
        """A persisted event read elsewhere: held as it is (its kind folds nothing but the
        end of the streaming preview when the agent spoke)."""
        held = self._hold(item, item.id, item.parent_id, item.replaces, item.copy)
        if held is not _ADDED:
            return held
        return ({"events"} | self._clear_streaming()) if item.agent_spoke else {"events"}

    def _hold(
        self,
        item: Any,
        event_id: str | None,
        parent_id: str | None,
        replaces: bool,
        copy: int = 1,
    ) -> set[Aspect] | frozenset[Aspect]:
        """Keep a persisted event (parsed here or read elsewhere) in :attr:`events`:
        :data:`_ADDED` when it is new (the caller folds it and answers a set of its own),
        ``{"events"}`` when it took an earlier copy's place, empty for a copy that changes
        nothing. Another event reusing an id is kept under its own key."""
        if event_id:
            if copy != 1:
                event_id = f"{event_id}\x00{copy}"
            at = self._index.get(event_id)
            if at is not None:
                if replaces or (parent_id and not self.events[at].parent_id):
                    self.events[at] = item
                    return {"events"}
                return set()
            self._index[event_id] = len(self.events)
        self.events.append(item)
        return _ADDED

    def _transient(self, event: AnyEvent) -> set[Aspect]:
        if isinstance(event, StreamingDeltaEvent):
            if event.content:
                self.streaming_text += event.content
            if event.reasoning_content:
                self.streaming_reasoning += event.reasoning_content
            return {"streaming"} if (event.content or event.reasoning_content) else set()
        if isinstance(event, ServerErrorEvent):
            self.server_notice = event
            return {"notice"}
        if isinstance(event, ConversationStateUpdateEvent) and isinstance(event.value, dict):
            self.full_state = event.value
            changed = self._set_status(event.value.get("execution_status"))
            changed |= self._set_stats(event.value.get("stats"))
            for key in POLICY_KEYS:
                if key in event.value or self.policies_known:  # an absent one is "none"
                    changed |= self._set_policy(key, event.value.get(key))
            return changed
        return set()

    def _set_status(self, value: Any) -> set[Aspect]:
        status = _status(value)
        if status is None:
            return set()
        changed: set[Aspect] = set()
        if status != self.execution_status:
            self.execution_status = status
            changed.add("status")
        if status != ExecutionStatus.RUNNING:
            changed |= self._clear_streaming()
        return changed

    def _set_policy(self, key: str, value: Any) -> set[Aspect]:
        """A confirmation policy or analyzer by its ``kind`` (None: none, or NeverConfirm's
        default)."""
        kind = value.get("kind") if isinstance(value, dict) else None
        kind = kind if isinstance(kind, str) and kind else None
        if self.policies_known and getattr(self, key) == kind:
            return set()
        setattr(self, key, kind)
        self.policies_known = True
        return {"policy"}

    def _set_stats(self, value: Any) -> set[Aspect]:
        totals = stats_totals(value)
        if totals is None:
            return set()
        self.usage_to_metrics = dict(value["usage_to_metrics"])
        totals_before = (self.cost, self.prompt_tokens, self.completion_tokens)
        self.cost, self.prompt_tokens, self.completion_tokens = totals
        return {"stats"} if totals != totals_before else set()

    def _clear_streaming(self) -> set[Aspect]:
        if not self.is_streaming:
            return set()
        self.streaming_text = ""
        self.streaming_reasoning = ""
        return {"streaming"}


__all__ = ["StreamState", "stats_totals"]
