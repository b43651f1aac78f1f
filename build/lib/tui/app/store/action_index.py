"""Actions by id and the analyzer's verdicts on them: confirmation, pairing, security rows.

A result (observation, rejection) names its action by ``action_id``; real servers do not
guarantee unique ``tool_call_id`` values (facts §10), so ids decide and ``tool_call_id``
is only the fallback for results that carry no ``action_id`` (an agent error, older
logs). A ``SecurityAnalysisEvent`` rates actions by id: its row names them (``2 actions:
HIGH $ rm -rf …, LOW echo``) as soon as they are known, in whichever order pages arrive.
No Textual here; the event store (``conversation_events.py``) feeds it every row it makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.app.store.rows import RISK_ORDER, risk_text, security_summary
from tui.models import events as ev

if TYPE_CHECKING:
    from tui.app.store.rows import EventRow
    from tui.models import AnyEvent

#: security rows kept waiting for actions not seen yet (a hostile log cannot grow it forever)
WAITING_MAX = 1_000


@dataclass(frozen=True)
class Risk:
    """An action's risk: the analyzer's verdict, or (no analyzer) the agent's own estimate."""

    level: str  # HIGH, MEDIUM, LOW, UNKNOWN
    analyzer: str | None = None
    policy: str | None = None

    def describe(self) -> str:
        """``HIGH risk (LLMSecurityAnalyzer, ConfirmRisky)``."""
        if self.analyzer is None:
            return f"{self.level} risk (the agent's estimate)"
        return f"{self.level} risk ({self.analyzer}, {self.policy})"

    @property
    def rank(self) -> int:
        return RISK_ORDER.index(self.level) if self.level in RISK_ORDER else len(RISK_ORDER)


class ActionIndex:
    """What the store knows about actions, across every window it has loaded."""

    def __init__(self) -> None:
        self.actions: dict[str, EventRow] = {}  # action id → its row
        self.risks: dict[str, Risk] = {}  # action id → the newest verdict on it
        self._waiting: dict[str, list[tuple[EventRow, ev.SecurityAnalysisEvent]]] = {}
        self._waiting_rows = 0

    def remember(self, event: AnyEvent, row: EventRow) -> None:
        """Take in a row the store just made (from ``event``)."""
        if row.kind == "ActionEvent":
            if row.id is not None:
                self.actions[row.id] = row
                for security_row, security in self._waiting.pop(row.id, ()):
                    self._waiting_rows -= 1
                    security_row.summary = self._security_summary(security)
        elif isinstance(event, ev.SecurityAnalysisEvent):
            self._security(event, row)

    def _security(self, event: ev.SecurityAnalysisEvent, row: EventRow) -> None:
        for action_id, risk in event.risks.items():
            self.risks[action_id] = Risk(risk_text(risk), event.analyzer, event.policy)
            if action_id not in self.actions and self._waiting_rows < WAITING_MAX:
                self._waiting.setdefault(action_id, []).append((row, event))
                self._waiting_rows += 1
        row.summary = self._security_summary(event)

    def _security_summary(self, event: ev.SecurityAnalysisEvent) -> str:
        named = {a: self.actions[a].summary for a in event.risks if a in self.actions}
        return security_summary(event, named)

    def risk_of(self, action: EventRow, event: AnyEvent | None = None) -> Risk | None:
        """The waiting action's risk: the analyzer's, else the agent's own estimate on the
        action (``event``, when at hand), else None (nothing known)."""
        found = self.risks.get(action.id) if action.id is not None else None
        if found is not None:
            return found
        own = risk_text(getattr(event, "security_risk", None) or "UNKNOWN")
        return Risk(own) if own in RISK_ORDER[:3] else None

    def most_serious(self, event: ev.SecurityAnalysisEvent) -> EventRow | None:
        """The most serious rated action whose row is known (what its detail shows)."""
        rated = sorted(
            (Risk(risk_text(r)).rank, a) for a, r in event.risks.items() if a in self.actions
        )
        return self.actions[rated[0][1]] if rated else None
