"""Steps: the rows of a view that folds plumbing or joins results to their actions.

A window whose query hides plumbing or reads as steps (``EventQuery.shaped``) makes each
row it shows a :class:`StepRow`: the event's own row, the result that answers it (steps
view) and the plumbing logged after it (counted on the row: "+3"). Rows come from two
walks (``row_windows.PagedWindow``): one forward in time, one backward, plus live events
forward at the newest end. Each walk places what it meets in O(1):

* plumbing folds under the step before it in time: a forward walk's newest step, or, for
  a walk back in time, the next step that walk brings (held meanwhile); plumbing before
  any step folds under the first one;
* a result joins its action's step where the action came first (forward walks, live);
  walking back, the result comes first and waits for its action, which is then placed
  with it at the action's place;
* when the walks meet (or one reaches the far end) what still waits is placed: plumbing
  under the forward walk's newest step, results with an action the forward walk holds,
  the rest (whose action is not in the view) as rows where they came.

Nothing is read but the rows (``step_kinds.step_brief`` made them ready): the fold costs
the same at 100,000 events as at 100.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tui.app.store.duplicate_rows import KeyedRow, is_duplicate, row_key
from tui.app.store.rows import EventRow
from tui.app.store.step_kinds import ACTION_KIND, is_plumbing, is_result

if TYPE_CHECKING:
    from tui.app.store.row_windows import EventQuery

#: Where a row arrives from: a walk from the window's head or tail, or a live event.
LIVE = "live"
#: A row's summary at most (``tui.text.one_line``'s default limit).
SUMMARY_CHARS = 400


class StepRow(KeyedRow):
    """One row of a steps view: an event, the result that answers it, the plumbing after it.

    Its own fields are its event's (the summary and find's words say the result too), so
    the list, find and the jumps read it as any row; :attr:`own` is the event's row."""

    __slots__ = ("folded", "opened", "own", "result")

    @classmethod
    def of(cls, own: EventRow) -> StepRow:
        step = cls.from_state(own.state())
        step.own = own
        step.key = row_key(own)
        step.copy = own.copy if is_duplicate(own) else 0  # type: ignore[attr-defined]
        step.result = None
        step.folded = None
        step.opened = 0  # rows shown under it (→), 0 while folded
        if own.brief and own.kind == ACTION_KIND:  # an edit's "+5 -3"
            step.summary = f"{own.summary} {own.brief}"
        return step

    def join(self, result: EventRow) -> None:
        """``result`` answers this step's action: said on the row, found by find, marked
        when it failed."""
        self.result = result
        if result.brief:
            summary = f"{self.summary} → {result.brief}"
            # as short as any row's (``one_line``): the list draws a line of it
            self.summary = (
                summary if len(summary) <= SUMMARY_CHARS else summary[: SUMMARY_CHARS - 1] + "…"
            )
        if result.text:
            self.text = f"{self.text}\n{result.text}" if self.text else result.text
        if result.flag and not self.flag:
            self.flag = result.flag

    def fold(self, rows: list[EventRow]) -> None:
        if self.folded is None:
            self.folded = list(rows)
        else:
            self.folded.extend(rows)

    @property
    def folded_count(self) -> int:
        return len(self.folded) if self.folded else 0

    def members(self) -> list[EventRow]:
        """The events this row stands for, in log order (its own, its result, its plumbing)."""
        out = [self.own]
        if self.result is not None:
            out.append(self.result)
        if self.folded:
            out.extend(self.folded)
        out.sort(key=lambda row: row.timestamp)  # stable: ties keep the order above
        return out

    def holds(self, event_id: str) -> bool:
        """This row stands for the event with ``event_id`` (its own, its result or plumbing)."""
        if self.id == event_id or (self.result is not None and self.result.id == event_id):
            return True
        return any(row.id == event_id for row in self.folded or ())


class FoldedRow(KeyedRow):
    """An event folded under a step, shown as a row under it while the step is open."""

    __slots__ = ("step",)

    @classmethod
    def of(cls, row: EventRow, step: StepRow) -> FoldedRow:
        under = cls.from_state(row.state())
        under.key = row_key(row)
        under.copy = row.copy if is_duplicate(row) else 0  # type: ignore[attr-defined]
        under.step = step
        return under


def step_of(row: EventRow | None) -> StepRow | None:
    """The step a row is (or is shown under)."""
    if isinstance(row, StepRow):
        return row
    return row.step if isinstance(row, FoldedRow) else None


def holds(row: EventRow, event_id: str) -> bool:
    """``row`` (a step or a plain row) stands for the event with ``event_id``."""
    return row.holds(event_id) if isinstance(row, StepRow) else row.id == event_id


def members(row: EventRow) -> list[EventRow]:
    """The events ``row`` stands for (a plain row: itself)."""
    return row.members() if isinstance(row, StepRow) else [row]


def step_events(row: EventRow) -> list[EventRow]:
    """The events a row shows as its own: a step's event and its result (not the plumbing
    folded under it); a plain row, itself."""
    if isinstance(row, StepRow):
        return [row.own] if row.result is None else [row.own, row.result]
    return [row]


def folded_count(row: EventRow | None) -> int:
    return row.folded_count if isinstance(row, StepRow) else 0


@dataclass
class Held:
    """A result met walking back in time, waiting for its action (``row`` None: placed)."""

    row: EventRow | None
    at: int  # the length of its walk's rows when it came: where it goes if no action comes


@dataclass
class StepFold:
    """One window's fold: what waits, and the steps results can still join."""

    query: EventQuery
    #: action id → its step, while no result has joined it
    open: dict[str, StepRow] = field(default_factory=dict)
    #: tool call id → the newest such step without a result (for results without an action id)
    calls: dict[str, StepRow] = field(default_factory=dict)
    #: plumbing waiting for its step, by walk
    pending: dict[str, list[EventRow]] = field(default_factory=dict)
    #: results met walking back, by walk, and by the action (or tool call) they wait for
    held: dict[str, list[Held]] = field(default_factory=dict)
    waiting: dict[str, Held] = field(default_factory=dict)
    waiting_calls: dict[str, Held] = field(default_factory=dict)
    #: events folded into steps so far (results, plumbing): with the rows, the events shown
    folded_in: int = 0
    #: the newest step a live batch has made so far (its plumbing folds under it)
    live_last: StepRow | None = None

    def backward(self, side: str) -> bool:
        """The walk from ``side`` goes back in time (live events only come forward)."""
        if side == LIVE:
            return False
        return self.query.descending != (side == "tail")

    def shape(
        self,
        row: EventRow,
        side: str,
        rows: list[EventRow],
        newest: EventRow | None = None,
        home: str = LIVE,
        hold_at: int | None = None,
    ) -> StepRow | None:
        """The row to append for ``row`` (a step), or None where it folded, joined, waits or
        is not wanted. ``rows``: the walk's rows so far (its own list). For a live event:
        ``newest``, the window's newest step, and ``home``, the walk that brings the step
        before it while the window has none loaded (``LIVE``: it has none at all);
        ``hold_at``: while the window is walked, a result whose action is not loaded waits
        for it at that place in ``home``'s rows, as one met walking back does."""
        query = self.query
        if query.hides_plumbing and is_plumbing(row):
            self._fold_plumbing(row, side, rows, newest, home)
            return None
        if query.merges and is_result(row):
            if self._join(row):
                return None
            if self.backward(side) or hold_at is not None:
                held = Held(row, len(rows) if hold_at is None else hold_at)
                self.held.setdefault(side if hold_at is None else home, []).append(held)
                if row.action_id is not None:
                    self.waiting.setdefault(row.action_id, held)
                else:
                    self.waiting_calls.setdefault(row.tool_call_id or "", held)
                return None
        if query.kinds and row.kind not in query.kinds:
            return None
        step = StepRow.of(row)
        if query.merges and row.kind == ACTION_KIND:
            self._new_action(step)
        waited = self.pending.pop(side, None)
        if waited:
            step.fold(waited)
        if side == LIVE:
            self.live_last = step
        return step

    def _fold_plumbing(
        self, row: EventRow, side: str, rows: list[EventRow], newest: EventRow | None, home: str
    ) -> None:
        self.folded_in += 1
        if side == LIVE:
            step = self.live_last or step_of(newest)
            if step is not None:
                step.fold([row])
                return
            side = home  # no step loaded before it: the walk that brings that one takes it
        elif not self.backward(side) and rows:
            last = step_of(rows[-1])
            if last is not None:
                last.fold([row])
                return
        self.pending.setdefault(side, []).append(row)

    def _join(self, result: EventRow) -> bool:
        """``result`` joins the step of its action if one waits for it."""
        if result.action_id is not None:
            step = self.open.get(result.action_id)
        else:
            step = self.calls.get(result.tool_call_id or "")
        if step is None or step.result is not None:
            return False
        self._answered(step)
        step.join(result)
        self.folded_in += 1
        return True

    def _answered(self, step: StepRow) -> None:
        if step.id is not None and self.open.get(step.id) is step:
            del self.open[step.id]
        call = step.tool_call_id
        if call is not None and self.calls.get(call) is step:
            del self.calls[call]

    def _new_action(self, step: StepRow) -> None:
        """An action's step: joined by a result that came first, else open for one."""
        held = self.waiting.pop(step.id, None) if step.id is not None else None
        if held is None and step.tool_call_id is not None:
            held = self.waiting_calls.pop(step.tool_call_id, None)
        if held is not None and held.row is not None:
            step.join(held.row)
            held.row = None
            self.folded_in += 1
            return
        if step.id is not None:
            self.open[step.id] = step
        if step.tool_call_id is not None:
            self.calls[step.tool_call_id] = step

    def settle(self, forward: list[EventRow], back: list[EventRow], back_side: str) -> None:
        """The walks met (or one reached the far end): place what still waits (see the
        module docstring). ``forward``/``back``: each walk's rows, in its own order."""
        last = step_of(forward[-1]) if forward else None
        waited = self.pending.pop(back_side, None)
        if waited:
            if last is not None:
                last.fold(waited)
            else:  # nothing before it: the first step takes it, with what leads
                forward_side = "tail" if back_side == "head" else "head"
                self.pending.setdefault(forward_side, []).extend(waited)
        places = []
        for held in self.held.pop(back_side, ()):
            row, held.row = held.row, None
            wanted = row is not None and (not self.query.kinds or row.kind in self.query.kinds)
            if row is not None and not self._join(row) and wanted:
                places.append((held.at, StepRow.of(row)))
        # from the far end: each place is still right (a live result's came in its time)
        places.sort(key=lambda place: place[0])  # stable: one place keeps their order
        for at, step in reversed(places):
            back.insert(at, step)
        self.waiting.clear()
        self.waiting_calls.clear()

    def lead(self, rows: list[EventRow]) -> None:
        """The window is whole: plumbing before every step folds under the first one (a
        log of plumbing alone shows it as rows: it is all there is to read)."""
        waited = [row for side in ("head", "tail") for row in self.pending.pop(side, ())]
        if not waited:
            return
        waited.sort(key=lambda row: row.timestamp)
        descending = self.query.descending
        first = step_of(rows[-1] if descending else rows[0]) if rows else None
        if first is not None:
            first.fold(waited)
        elif not self.query.kinds:
            self.folded_in -= len(waited)
            rows.extend(StepRow.of(row) for row in (reversed(waited) if descending else waited))

    def split(self, before: EventRow | None, step: StepRow, first: EventRow | None = None) -> None:
        """``step`` was placed after ``before`` (a live row, by time): the plumbing folded
        under the step there that is stamped after it goes under it, as a walk in time
        order would have folded it; placed first (``first``: the step that was), the
        plumbing stamped before that step (an open step keeps what it shows)."""
        prev = step_of(before if before is not None else first)
        if prev is None or prev is step or prev.opened or not prev.folded:
            return
        if before is not None:
            stamp = step.timestamp
            moved = [row for row in prev.folded if row.timestamp > stamp]
        else:
            stamp = prev.timestamp
            moved = [row for row in prev.folded if row.timestamp < stamp]
        if moved:
            prev.folded = [row for row in prev.folded if row not in moved] or None
            step.fold(moved)

    def shifted(self, side: str, count: int, after: int = -1) -> None:
        """``count`` rows went into ``side``'s rows (or out, if negative) after its row
        ``after`` (-1: at its front): what waits there to be placed moves with them."""
        for held in self.held.get(side, ()):
            if held.at > after:
                held.at += count
