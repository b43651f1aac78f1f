"""Compact list rows: what the event list needs of an event, and nothing more.

A row is a few short strings made once when a page arrives, so the list can hold
100,000 of them cheaply and render any of them without touching the full event.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any

from tui.app.format import money, tokens
from tui.app.store.row_search import search_text
from tui.app.store.step_kinds import step_brief
from tui.client.stream_state import stats_totals
from tui.models import AnyEvent, RawEvent, event_fields, failure_of, is_transient
from tui.models import events as ev
from tui.models.content import block_texts
from tui.models.redact import redact_text
from tui.text import one_line

#: Short, fixed-width labels for the kind column.
KIND_LABELS = {
    "ActionEvent": "action",
    "ObservationEvent": "observation",
    "MessageEvent": "message",
    "SystemPromptEvent": "system",
    "AgentErrorEvent": "agent error",
    "ConversationErrorEvent": "conv error",
    "ServerErrorEvent": "server error",
    "UserRejectObservation": "rejected",
    "ConversationStateUpdateEvent": "state",
    "HookExecutionEvent": "hook",
    "LLMCompletionLogEvent": "llm log",
    "TokenEvent": "tokens",
    "ACPToolCallEvent": "acp tool",
    "Condensation": "condensed",
    "CondensationRequest": "condense?",
    "CondensationSummaryEvent": "summary",
    "StreamingDeltaEvent": "streaming",
    "InterruptEvent": "interrupt",
    "PauseEvent": "pause",
    "SecurityAnalysisEvent": "security",
}
#: Security risks, most serious first (the order a security row lists its actions in).
RISK_ORDER = ("HIGH", "MEDIUM", "LOW", "UNKNOWN")
#: Fields a row already shows in its columns (or never shows): left out of its summary.
_ROW_FIELDS = frozenset({"id", "timestamp", "source", "parent_id", "kind"})


class EventRow:
    """One event as the list shows it."""

    __slots__ = (
        "_stamp",
        "action_id",
        "brief",
        "flag",
        "id",
        "kind",
        "parent_id",
        "source",
        "summary",
        "text",
        "tool_call_id",
        "transient",
    )

    def __init__(
        self,
        id: str | None,
        timestamp: str,
        source: str,
        kind: str,
        summary: str,
        parent_id: str | None = None,
        tool_call_id: str | None = None,
        flag: str = "",
        text: str = "",
        action_id: str | None = None,
        transient: bool = False,
        brief: str = "",
    ) -> None:
        self.id = id
        self.timestamp = timestamp
        self.source = source
        self.kind = kind
        self.summary = summary
        self.parent_id = parent_id
        self.tool_call_id = tool_call_id
        #: "raw" (unreadable), "error" (any other failure: tui.models.failure), or ""
        self.flag = flag
        #: what find searches besides the summary: the event's words, capped (see search_text)
        self.text = text
        #: the action a result (observation, rejection) answers: how results are matched
        self.action_id = action_id
        #: a streaming delta or a ``full_state`` snapshot: sent live, never part of an agent
        #: server's log, but kept in an app server's stored history (folded out of views:
        #: ``row_windows.PagedWindow``)
        self.transient = transient
        #: what the event adds to its step's row in a reading view (``step_kinds.py``)
        self.brief = brief

    @property
    def timestamp(self) -> str:
        """The event's timestamp, exactly as it came (kept as a number where it is in the
        usual form: see :func:`pack_time`)."""
        stamp = self._stamp
        return stamp if type(stamp) is str else unpack_time(stamp)

    @timestamp.setter
    def timestamp(self, value: str) -> None:
        self._stamp = pack_time(value)

    @property
    def time(self) -> str:
        """HH:MM:SS of the naive timestamp (what fits a list column)."""
        ts = self.timestamp
        cut = ts.find("T")
        return ts[cut + 1 : cut + 9] if cut >= 0 else ts[:8]

    @property
    def is_error(self) -> bool:
        return self.flag in ("error", "raw")

    def args(self) -> tuple[Any, ...]:
        """What the row was made from, in the constructor's order (``EventRow(*row.args())``
        is the same row: how a copy is made; a row sent from another process goes as its
        :meth:`state`)."""
        return (
            self.id,
            self.timestamp,
            self.source,
            self.kind,
            self.summary,
            self.parent_id,
            self.tool_call_id,
            self.flag,
            self.text,
            self.action_id,
            self.transient,
            self.brief,
        )

    def state(self) -> tuple[Any, ...]:
        """The row's fields as held (its timestamp packed, in ``__slots__`` order): a row
        sent from another process is made again by :meth:`from_state` without packing its
        timestamp anew (~4 µs a row)."""
        return _STATE(self)

    @classmethod
    def from_state(cls, state: tuple[Any, ...]) -> EventRow:
        """The row :meth:`state` was taken from (one unpacking in ``__slots__`` order, a
        test checks it: 0.3 µs a row, where a ``setattr`` loop was 1.5, once per live event
        and indexed event read in the helper)."""
        row = cls.__new__(cls)
        (
            row._stamp,
            row.action_id,
            row.brief,
            row.flag,
            row.id,
            row.kind,
            row.parent_id,
            row.source,
            row.summary,
            row.text,
            row.tool_call_id,
            row.transient,
        ) = state
        return row


_STATE = attrgetter(*EventRow.__slots__)

#: The usual timestamp: naive, microseconds (how the SDK writes them). Hours stop at 23
#: (a 24:00 some Pythons accept would come back as the next day's 00:00).
_USUAL_STAMP = re.compile(r"\d{4}-\d\d-\d\dT(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}", re.ASCII)
_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
#: Microseconds a float holds exactly (past about the year 2255 the text is kept).
_EXACT = 2**53


def pack_time(stamp: str) -> str | float:
    """A timestamp in the usual form as microseconds since 1970 (a float: 24 bytes, where
    its text is 75, on every one of 100,000 rows), anything else as it is: only what
    :func:`unpack_time` gives back character for character."""
    if len(stamp) != 26 or _USUAL_STAMP.fullmatch(stamp) is None:
        return stamp
    try:
        micros = (datetime.fromisoformat(stamp) - _EPOCH) // _MICROSECOND
    except ValueError:  # e.g. February 30th: kept as it came
        return stamp
    return float(micros) if -_EXACT < micros < _EXACT else stamp


def unpack_time(micros: float) -> str:
    return (_EPOCH + timedelta(microseconds=micros)).isoformat(timespec="microseconds")


def _action_summary(event: ev.ActionEvent) -> str:
    action = event.action
    if action is None:
        return f"{event.tool_name} (non-executable call)"
    kind = action.kind
    if kind == "TerminalAction":
        return f"$ {action.command}"
    if kind in ("FileEditorAction", "PlanningFileEditorAction"):
        return f"{action.command} {action.path}"
    if kind == "FinishAction":
        return f"finish: {action.message}"
    if kind == "ThinkAction":
        return f"think: {action.thought}"
    if kind == "TaskTrackerAction":
        return f"tasks {action.command}: {len(action.task_list)} items"
    for attr in ("file_path", "path", "url", "pattern", "query", "text", "name"):
        value = getattr(action, attr, None)
        if isinstance(value, str) and value:
            return f"{event.tool_name}: {value}"
    return event.summary or event.tool_name


def _observation_summary(event: ev.ObservationEvent) -> str:
    obs = event.observation
    text = block_texts(getattr(obs, "content", ()), " ")
    if obs.kind == "TerminalObservation":
        code = obs.exit_code if obs.exit_code is not None else obs.metadata.exit_code
        return f"exit {code} · {one_line(text)}" if text else f"exit {code}"
    if obs.kind == "FileEditorObservation":
        target = f"{obs.command} {obs.path}" if obs.path else obs.command
        return f"{target} · {one_line(text)}" if text else target
    return f"{event.tool_name}: {one_line(text)}" if text else event.tool_name


def _state_summary(key: str | None, value: Any) -> str:
    """What a state update changed, in words: totals for stats, sizes for containers."""
    key = key or "state"
    if key == "stats":
        totals = stats_totals(value)
        if totals is not None:
            cost, prompt, completion = totals
            used = prompt + completion
            return (
                f"stats: {money(cost)} · {tokens(used)} tokens"
                if used
                else f"stats: {money(cost)} · no tokens yet"
            )
    if key == "full_state" and isinstance(value, dict):
        status = value.get("execution_status")
        return f"full state ({len(value)} fields)" + (
            f" · {status}" if isinstance(status, str) else ""
        )
    if isinstance(value, dict):
        names = list(value)[:4]
        more = ", …" if len(value) > len(names) else ""
        return f"{key} = {{{', '.join(str(n) for n in names)}{more}}}" if names else f"{key} = {{}}"
    if isinstance(value, list):
        return f"{key} = [{len(value)} item{'s' if len(value) != 1 else ''}]"
    if value is None:
        return f"{key} = null"
    return f"{key} = {value}"


def risk_text(risk: object) -> str:
    """``SecurityRisk.HIGH`` or ``"HIGH"`` → ``"HIGH"`` (a ``StrEnum``: its ``str`` is its value)."""
    return str(risk)


def security_summary(event: ev.SecurityAnalysisEvent, actions: dict[str, str] | None = None) -> str:
    """``2 actions: HIGH $ rm -rf …, LOW echo``: the risk per action, most serious first,
    each with its action's summary where ``actions`` (action id → summary) knows it."""
    known = actions or {}
    risks = sorted(
        event.risks.items(),
        key=lambda item: (
            RISK_ORDER.index(risk_text(item[1])) if risk_text(item[1]) in RISK_ORDER else 9
        ),
    )
    parts = []
    for action_id, risk in risks[:6]:
        what = known.get(action_id)
        parts.append(
            f"{risk_text(risk)} {one_line(what, 60)}"
            if what
            else f"{risk_text(risk)} {action_id[:8]}"
        )
    more = f", … {len(risks) - 6} more" if len(risks) > 6 else ""
    count = f"{len(risks)} action{'s' if len(risks) != 1 else ''}"
    return one_line(f"{count}: {', '.join(parts)}{more}" if parts else f"{count}")


def fields_summary(event: AnyEvent) -> str:
    """``unknown kind · name: value · …``: an event this client cannot type, by its fields."""
    parts = [
        f"{name}: {value}"
        for name, value in event_fields(event, limit=120)[:12]
        if name not in _ROW_FIELDS
    ]
    return one_line(" · ".join(["unknown kind", *parts]), 400)


def summarize(event: AnyEvent) -> str:
    """A one-line description of an event, cleaned of control sequences."""
    if isinstance(event, RawEvent):
        if event.unknown_kind:
            return fields_summary(event)
        return one_line("unparsed: " + event.error.splitlines()[-1].strip())
    kind = event.kind
    if kind == "MessageEvent":
        msg = event.llm_message
        text = msg.text or block_texts(event.extended_content, " ") or "(no text)"
        return one_line(f"{msg.role}: {text}")
    if kind == "ActionEvent":
        return one_line(_action_summary(event))
    if kind == "ObservationEvent":
        return one_line(_observation_summary(event))
    if kind == "AgentErrorEvent":
        return one_line(f"{event.tool_name}: {event.error}")
    if kind in ("ConversationErrorEvent", "ServerErrorEvent"):
        return one_line(f"{event.code}: {event.detail}")
    if kind == "UserRejectObservation":
        return one_line(f"{event.tool_name}: {event.rejection_reason} ({event.rejection_source})")
    if kind == "ConversationStateUpdateEvent":
        return one_line(_state_summary(event.key, event.value))
    if kind == "HookExecutionEvent":
        verdict = "blocked" if event.blocked else ("ok" if event.success else "failed")
        return one_line(
            f"{event.hook_event_type} {event.hook_command} → {verdict} ({event.exit_code})"
        )
    if kind == "SystemPromptEvent":
        names = ", ".join(t.title for t in event.tools[:8])
        return one_line(f"{len(event.tools)} tools: {names}")
    if kind == "LLMCompletionLogEvent":
        return one_line(f"{event.model_name}: {event.filename}")
    if kind == "TokenEvent":
        return f"{len(event.prompt_token_ids)} prompt / {len(event.response_token_ids)} response tokens"
    if kind == "ACPToolCallEvent":
        return one_line(f"{event.title} [{event.status or '…'}]")
    if kind == "Condensation":
        return condensation_summary(len(event.forgotten_event_ids), event.summary)
    if kind == "CondensationSummaryEvent":
        return one_line(event.summary)
    if kind == "CondensationRequest":
        return "condensation requested"
    if kind == "StreamingDeltaEvent":
        return one_line(event.content or event.reasoning_content or "")
    if kind == "InterruptEvent":
        return "run interrupted"
    if kind == "PauseEvent":
        return "run paused"
    if kind == "SecurityAnalysisEvent":
        return security_summary(event)
    return kind


def condensation_summary(forgotten: int, summary: str | None) -> str:
    """What a condensation did, in plain words: how many earlier events it summarised (or
    dropped, when it wrote no summary), then the summary."""
    count = f"{forgotten:,} earlier event{'s' if forgotten != 1 else ''}"
    if not summary:
        return f"condensed: {count} dropped"
    return one_line(f"condensed: {count} summarised: {summary}")


def _flag(event: AnyEvent) -> str:
    """The row's mark, by the one definition of failure (:mod:`tui.models.failure`)."""
    if failure_of(event) is None:
        return ""
    return "raw" if isinstance(event, RawEvent) and not event.unknown_kind else "error"


def make_row(event: AnyEvent) -> EventRow:
    # kind, source and timestamp are drawn as they are: a RawEvent can carry any string there
    # (escapes, tabs, 1 MB), so they are cleaned to one short line like the summary. Ids stay
    # exact: they are lookup keys, never drawn in a row.
    # interned: 100,000 rows share a handful of kind and source strings
    timestamp, kind = row_identity(event)
    fields = event.__dict__  # not getattr: a field a model lacks costs a pydantic AttributeError
    call = fields.get("tool_call_id")
    answers = fields.get("action_id") if kind != "HookExecutionEvent" else None
    summary = _masked(event, summarize(event))  # shown: secrets masked (tui.models.redact)
    return EventRow(
        id=event.id,
        timestamp=timestamp,
        source=_label(event.source or "", 40, "?"),
        kind=kind,
        summary=summary,
        parent_id=event.parent_id,
        tool_call_id=call if isinstance(call, str) else None,
        flag=_flag(event),
        text=search_text(event),
        action_id=answers if isinstance(answers, str) else None,
        transient=is_transient(event),
        brief=step_brief(event, summary),
    )


def row_identity(event: AnyEvent) -> tuple[str, str]:
    """The timestamp and kind an event's row has: with its id, what tells it from another
    event reusing that id (``duplicate_rows.py``), compared row to row as text."""
    kind = _label(event.kind, 80, "") if isinstance(event.kind, str) else "?"
    return one_line(event.timestamp or "", 80), kind


def _masked(event: AnyEvent, summary: str) -> str:
    """The summary with secrets masked, except a state update's totals (``stats: $0.04 ·
    1.2k tokens``, a third of a long log's events): this client's own words and numbers,
    which masking leaves as they are ("tokens" only looks like a secret's name, ~4 µs)."""
    if (
        type(event) is ev.ConversationStateUpdateEvent
        and event.key == "stats"
        and summary.startswith("stats: ")
    ):
        return summary
    return redact_text(summary)


_LABELS: dict[tuple[str, int], str] = {}


def _label(value: str, limit: int, empty: str) -> str:
    """A kind or source, cleaned once per distinct value and interned: 100,000 rows share a
    handful (a hostile server's endless new values only stop being cached)."""
    key = (value, limit)
    found = _LABELS.get(key)
    if found is None:
        found = sys.intern(one_line(value, limit) or empty)
        if len(_LABELS) < 1_000:
            _LABELS[key] = found
    return found
