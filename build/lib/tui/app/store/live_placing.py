"""Where a live row goes in a window: in the history's own order, not the stream's.

Part of :class:`~tui.app.store.row_windows.PagedWindow` (which provides what is declared here).
A window's history comes in its server's order, and a live row must land where a page
would have put it, or the list reads differently once the conversation is opened again:

* an agent server's (and a local folder's) history is its log, and its stream sends the
  log in order: a live row goes at the newest end (``by_time`` False);
* an app server's history is sorted by timestamp (the reference server's too, the log's
  position breaking ties) while its sandbox's stream sends the log: a stats update logged
  after a step but stamped before it belongs above that step. A live row goes after every
  row stamped at or before it (``by_time``): found from the newest end, a step or two
  back nearly always, by bisection where it is further, never a scan of the window.

A steps view keeps its fold right wherever the row lands: plumbing folds under the step
before it in time; a new step takes the plumbing folded under the step before it that
is stamped after it; an open step's rows are never split. While a window is still being
walked, the live rows it holds are marked, so a page that brings one again leaves it
(``placed_live``) and the walks' join puts any the head walk overtook in their place.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from tui.app.store.step_rows import LIVE, FoldedRow, StepFold, StepRow, members

if TYPE_CHECKING:
    from tui.app.store.event_query import EventQuery
    from tui.app.store.rows import EventRow
    from tui.client import OpenHandsClient

#: ``_add``'s ``before`` when the window works out the row before a live one itself.
NEWEST = object()


def history_by_time(client: OpenHandsClient | None, *, local: bool = False) -> bool:
    """Whether the server sorts a conversation's history by timestamp (an app server, the
    reference server, a shared link) rather than serving its log as it is (an agent server,
    local folders): where live rows go (``live_placing.py``). No client: the log."""
    if client is None or local:
        return False
    return client.kind != "agent"  # a ``ServerKind`` (a str), or None while not probed


def order_key(row: EventRow) -> str:
    """What orders a window's rows in time: a row's timestamp; a row shown under an open
    step, its step's (it stays with its step)."""
    if type(row) is FoldedRow:
        return row.step.timestamp
    return row.timestamp


def time_place(rows: list[EventRow], stamp: str, newest_first: bool, older: bool = False) -> int:
    """Where a row stamped ``stamp`` goes in ``rows`` (in time order, or newest first):
    after every row stamped at or before it (``older``: before those stamped the same, for
    a walk back in time). Looked for from the newest end, doubling the step (1, 2, 4…),
    then bisected: O(1) for a row at the end, O(log n) however far."""
    size = len(rows)
    if not newest_first:
        if not size or order_key(rows[-1]) <= stamp:
            return size
        high, step = size - 1, 1  # rows[high] is stamped after it
        low = size - 1 - step
        while low > 0 and order_key(rows[low]) > stamp:
            high, step = low, step * 2
            low = size - 1 - step
        return bisect_right(rows, stamp, max(low, 0), high, key=order_key)

    def newer(row: EventRow) -> bool:  # goes before it
        key = order_key(row)
        return key >= stamp if older else key > stamp

    if not size or not newer(rows[0]):
        return 0
    low, step = 0, 1  # rows[low] goes before it
    high = step
    while high < size and newer(rows[high]):
        low, step = high, step * 2
        high = low + step
    high = min(high, size)
    low += 1
    while low < high:  # the first row that goes after it
        mid = (low + high) // 2
        if newer(rows[mid]):
            low = mid + 1
        else:
            high = mid
    return low


class LivePlacing:
    """Taking live rows into a window (see the module docstring)."""

    query: EventQuery
    total: int | None
    head: list[EventRow]
    tail: list[EventRow]
    ids: set[str]
    raw_head: int
    raw_tail: int
    raw_total: int | None
    fold: StepFold | None
    opened: int
    #: live rows are placed by time (the history is sorted by timestamp), else at the end
    by_time: bool
    #: (id, timestamp, kind) of the live rows taken while the window was still walked
    placed_live: set[tuple[str, str, str]]
    #: the lowest index of ``head`` a live row went in before rows already there, in the
    #: last :meth:`take_live` (None: only appended): the store's tree starts again there
    inserted_at: int | None

    if TYPE_CHECKING:  # provided by PagedWindow

        @property
        def complete(self) -> bool: ...
        def find_copy(self, row_id: str, timestamp: str, kind: str) -> object: ...
        def _add(
            self,
            target: list[EventRow],
            rows: list[EventRow],
            other_end: EventRow | None,
            side: str | None = None,
            before: object = NEWEST,
            hold_at: int | None = None,
        ) -> tuple[list[tuple[int, EventRow]], bool]: ...

    def append_live(self, rows: list[EventRow]) -> int:
        """Rows that arrived live (newest); returns how many were new (and shown)."""
        return len(self.take_live(rows))

    def take_live(self, rows: list[EventRow]) -> list[tuple[int, EventRow]]:
        """:meth:`append_live`, saying which rows it took: ``(index in rows, row)``, the row
        marked when it is another event reusing an id already here (``duplicate_rows.py``)."""
        self.inserted_at = None
        if not self.complete and self.total is None and not self.query.descending:
            return []  # nowhere to put them yet: the head walk brings them in their place
        # a live copy of an event already here is replaced (the store does that), never a
        # second row; another event with a known id is one. A steps view holds events that
        # are no row of their own (results, plumbing): any id it has seen is a copy there.
        if self.fold is not None:
            new = [(at, r) for at, r in enumerate(rows) if r.id is None or r.id not in self.ids]
        else:
            new = [
                (at, r)
                for at, r in enumerate(rows)
                if r.id is None or self.find_copy(r.id, r.timestamp, r.kind) is None
            ]
        if not new:
            return []
        if not self.complete:  # a page may bring them again: it leaves them
            self.placed_live.update((r.id, r.timestamp, r.kind) for _, r in new if r.id is not None)
        count = len(new)
        came = [r for _, r in new]
        if self.by_time and not self._after_the_newest(came):
            taken = self._take_in_time(came)
        else:
            taken = self._take_at_end(came)
        if self.query.descending or self.complete:
            self.raw_head += count
        else:
            self.raw_tail += count
        if self.raw_total is not None:
            self.raw_total += count
        return [(new[index][0], row) for index, row in taken]

    def _after_the_newest(self, rows: list[EventRow]) -> bool:
        """Rows of an event log that come in time order after its newest row (a stream
        whose stamps follow its log, nearly always): they go at the end, in one go, as in
        log order. A steps view places each (its plumbing may move: ``StepFold.split``)."""
        if self.fold is not None:
            return False
        if self.query.descending:
            newest = self.head[0] if self.head else None
        elif self.tail:
            newest = self.tail[0]
        else:
            newest = self.head[-1] if self.head else None
        stamp = order_key(newest) if newest is not None else ""
        for row in rows:
            later = row.timestamp
            if later < stamp:
                return False
            stamp = later
        return True

    def _take_at_end(self, rows: list[EventRow]) -> list[tuple[int, EventRow]]:
        """The rows at the newest end, in the order they came (the history is the log)."""
        fresh: list[EventRow] = []
        taken = self._add(fresh, rows, None, LIVE)[0]
        if self.query.descending:
            # newest first: live rows go on top, shifting everything down
            self.head[0:0] = list(reversed(fresh))
            if self.fold is not None:
                self.fold.shifted("head", len(fresh))
        elif self.complete:
            self.head.extend(fresh)
        else:
            self.tail[0:0] = list(reversed(fresh))
            if self.fold is not None:
                self.fold.shifted("tail", len(fresh))
        if self.total is not None:
            self.total += len(fresh)
        return taken

    def _take_in_time(self, rows: list[EventRow]) -> list[tuple[int, EventRow]]:
        """Each row after the rows stamped at or before it (see the module docstring)."""
        complete, fold, taken = self.complete, self.fold, []
        for index, row in enumerate(rows):
            stamp = row.timestamp
            target, side, newest_first = self._live_target(stamp)
            at = time_place(target, stamp, newest_first)
            # an open step's rows stay with it: after it in the head, before it in the tail
            # (which is kept the other way round)
            if target is self.tail:
                while at > 0 and type(target[at - 1]) is FoldedRow:
                    at -= 1
            else:
                while at < len(target) and type(target[at]) is FoldedRow:
                    at += 1
            if newest_first:
                before = target[at] if at < len(target) else None
                after = target[at - 1] if at > 0 else None
            else:
                before = target[at - 1] if at > 0 else None
                after = target[at] if at < len(target) else None
            # before every row of a whole window: plumbing folds under the first step
            lead = after if before is None and complete else None
            fresh: list[EventRow] = []
            # a result waits for its action where the walk back in time will bring it
            hold_at = at if fold is not None and not complete and newest_first else None
            for _, got in self._add(fresh, [row], None, LIVE, before or lead, hold_at)[0]:
                taken.append((index, got))
            if not fresh:  # folded, joined its action, or left out by a filter
                continue
            step = fresh[0]
            target.insert(at, step)
            if self.total is not None:
                self.total += 1
            if fold is not None:
                if side is not None:
                    fold.shifted(side, 1, at - 1)
                if isinstance(step, StepRow):
                    fold.split(before, step, lead)
            if side is None and at < len(target) - 1:
                self.inserted_at = at if self.inserted_at is None else min(self.inserted_at, at)
        return taken

    def _live_target(self, stamp: str) -> tuple[list[EventRow], str | None, bool]:
        """Where a live row stamped ``stamp`` goes: ``(rows, walk, newest first)``. A whole
        window: its head. One still walked: the rows of its walk back in time (where the
        newest are), unless it is stamped before the newest row the walk forward brought
        (and so before every row of the other): among those."""
        if self.complete:
            return (self.head, "head", True) if self.query.descending else (self.head, None, False)
        if self.query.descending:
            forward, back, sides = self.tail, self.head, ("tail", "head")
        else:
            forward, back, sides = self.head, self.tail, ("head", "tail")
        if (
            forward
            and order_key(forward[-1]) > stamp
            and not (back and order_key(back[-1]) <= stamp)
        ):
            return forward, sides[0], False
        return back, sides[1], True

    def _pass_live(self, stamp: str) -> None:
        """The walk forward in time reached ``stamp``: live rows stamped before it, at the
        far end of the other walk's rows (they came before the walks met), go before it."""
        forward, back = (self.tail, self.head) if self.query.descending else (self.head, self.tail)
        while back and order_key(back[-1]) < stamp:
            forward.append(back.pop())

    def joined_in_time(self) -> None:
        """The walks joined into one head (what waited placed): live rows taken meanwhile
        may sit past rows a walk brought after them, stamped later (the head walk
        overtook them) or folded by a walk that could not see them. An event log puts
        them in their place; a steps view is folded again, as one walk forward in time
        would have folded it. Once per window, O(n log n) then."""
        if not self.by_time or not self.placed_live:
            return
        self.placed_live = set()
        head, fold = self.head, self.fold
        descending = self.query.descending
        if fold is None:
            keys = [order_key(row) for row in head]
            if keys != sorted(keys, reverse=descending):
                head.sort(key=order_key, reverse=descending)  # stable: ties keep their order
            return
        events = [event for row in head if type(row) is not FoldedRow for event in members(row)]
        if self.query.descending:
            events.reverse()
        events.sort(key=order_key)  # stable: a step's own event before its result
        again = StepFold(self.query)
        side = "tail" if self.query.descending else "head"  # forward in time
        rows: list[EventRow] = []
        for event in events:
            step = again.shape(event, side, rows)
            if step is not None:
                rows.append(step)
        if self.query.descending:
            rows.reverse()
        again.lead(rows)
        head[:] = rows
        self.fold = again
        self.opened = 0
