"""What the event list is asked to show: one :class:`EventQuery` (no Textual here).

Filters, the order and the view in one frozen value: a window (``row_windows.py``) is made
for each query, and the store compares them to reuse its index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from tui.app.store.rows import KIND_LABELS
from tui.app.store.step_kinds import ACTION_KIND, HOOK_KIND, PLUMBING_KINDS


@dataclass(frozen=True)
class EventQuery:
    """One event query: server-side filters (one kind, a time range), the sort order, the
    list's own filters (several kinds, plumbing folded), whether results join their
    actions (the steps view) and whether the history is shown raw (see :attr:`folds`).

    The server filters by one kind at most, so several kinds, plumbing and steps are a
    fold over the server's pages (``step_rows.py``); one kind in the event log view stays
    the server's filter."""

    kind: str | None = None
    since: str | None = None  # timestamp__gte
    until: str | None = None  # timestamp__lt
    descending: bool = False
    raw: bool = False  # everything stored, streaming deltas and state snapshots included
    kinds: frozenset[str] = frozenset()  # several kinds (or one, in the steps view)
    hide_plumbing: bool = False  # state updates, LLM logs, tokens, passing hooks folded
    steps: bool = False  # the reading view: results join their actions' rows

    @property
    def takes_live(self) -> bool:
        """No server-side filter: live events belong here (the list's own filters apply)."""
        return self.kind is None and self.since is None and self.until is None

    @property
    def is_plain(self) -> bool:
        """No filter at all beyond what the view does by itself."""
        return self.takes_live and not self.kinds and self.hide_plumbing == self.steps

    @property
    def folds(self) -> bool:
        """Transient events (streaming deltas, ``full_state`` snapshots) are left out, as
        a live view never has them (``screens/conversation/history.py`` says why); a filter
        for deltas shows them."""
        return (
            not self.raw
            and self.kind != FOLDED_COUNTED_KIND
            and FOLDED_COUNTED_KIND not in self.kinds
        )

    @property
    def hides_plumbing(self) -> bool:
        return self.hide_plumbing and not self.raw

    @property
    def merges(self) -> bool:
        return self.steps and not self.raw

    @property
    def shaped(self) -> bool:
        """Rows are steps (``step_rows.StepRow``): plumbing folds under them, results join."""
        return self.hides_plumbing or self.merges

    @property
    def view(self) -> str:
        """``steps`` (the reading view), ``events`` (the event log) or ``raw``."""
        return "raw" if self.raw else "steps" if self.steps else "events"

    @property
    def selected_kinds(self) -> frozenset[str] | None:
        """The kinds shown (None: every kind)."""
        if self.kind is not None:
            return frozenset({self.kind})
        return self.kinds or None

    def with_kinds(self, kinds: Iterable[str] | None) -> EventQuery:
        """Only ``kinds`` (None or empty: every kind): one kind is the server's filter in
        the event log; several (or any in the steps view, where results must reach their
        actions) are the list's. A plumbing kind asked for is shown, not folded."""
        chosen = frozenset(kinds or ())
        hide = self.hide_plumbing and not chosen & PLUMBING_KINDS
        if len(chosen) == 1 and not self.steps:
            return replace(self, kind=next(iter(chosen)), kinds=frozenset(), hide_plumbing=hide)
        return replace(self, kind=None, kinds=chosen, hide_plumbing=hide)

    def with_plumbing(self, hide: bool) -> EventQuery:
        """Plumbing folded (``hide``) or shown; folding it takes its kinds out of a kinds
        filter (every kind, if that leaves none)."""
        if not hide:
            return replace(self, hide_plumbing=False)
        kinds = self.selected_kinds
        rest = kinds - PLUMBING_KINDS if kinds is not None else None
        return replace(self, hide_plumbing=True).with_kinds(rest or None)

    def in_view(self, view: str) -> EventQuery:
        """This query's filters in ``view`` (``steps`` or ``events``), plumbing as that
        view has it (folded in steps, shown in the log)."""
        steps = view == "steps"
        moved = replace(self, steps=steps, hide_plumbing=steps, raw=False)
        return moved.with_kinds(self.selected_kinds)

    def cleared(self) -> EventQuery:
        """No filters: the view and the order kept."""
        return EventQuery(
            descending=self.descending, raw=self.raw, steps=self.steps, hide_plumbing=self.steps
        )

    def counted_kinds(self) -> dict[str, bool]:
        """The kinds whose counts make this view's length exact before its pages are
        walked (kind → whether each of its events is a row). Without a kinds filter, the
        kinds folded away; with one, the kinds shown (the rest are left out)."""
        if self.kind is not None:
            return {}
        if self.kinds:
            return {kind: self._row_kind(kind) for kind in sorted(self.kinds)}
        out: dict[str, bool] = {}
        if self.folds:
            out[FOLDED_COUNTED_KIND] = False
        if self.hides_plumbing:
            out.update(dict.fromkeys(sorted(PLUMBING_COUNTED), False))
        if self.merges:
            out["ObservationEvent"] = False
        return out

    def _row_kind(self, kind: str) -> bool:
        if self.hides_plumbing and kind in PLUMBING_COUNTED:
            return False
        return not (self.merges and kind == "ObservationEvent" and ACTION_KIND in self.kinds)

    def search(self, page_id: str | None, descending: bool, limit: int) -> dict[str, Any]:
        """One page of this query as the client's event searches take it (``descending``:
        the side read, which may be against the query's own order)."""
        return {
            "kind": self.kind,
            "timestamp_gte": self.since,
            "timestamp_lt": self.until,
            "sort_order": "TIMESTAMP_DESC" if descending else "TIMESTAMP",
            "page_id": page_id or None,
            "limit": limit,
        }

    def describe(self) -> str:
        parts = []  # in the list's words: the kinds as its rows name them, times as typed
        shown = sorted(KIND_LABELS.get(k, k) for k in self.selected_kinds or ())
        if shown:
            parts.append(", ".join(shown) if len(shown) <= 3 else f"{len(shown)} kinds")
        if self.hides_plumbing and not self.steps:
            parts.append("plumbing folded")
        elif self.merges and not self.hide_plumbing:
            parts.append("plumbing shown")
        if self.since:
            parts.append(f"from {self.since.replace('T', ' ')}")
        if self.until:
            parts.append(f"before {self.until.replace('T', ' ')}")
        parts.append("newest first" if self.descending else "oldest first")
        if self.raw:
            parts.append("raw history")
        return " · ".join(parts)


#: The folded kind the server can count up front (``full_state`` snapshots share their kind
#: with every other state update, so they are counted as pages bring them).
FOLDED_COUNTED_KIND = "StreamingDeltaEvent"
#: The plumbing kinds a view that folds them asks the server to count (hook runs that
#: failed are rows after all: taken back as pages bring them).
PLUMBING_COUNTED = PLUMBING_KINDS | {HOOK_KIND}
