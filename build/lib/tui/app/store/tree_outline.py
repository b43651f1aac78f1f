"""What the tree pane shows, worked out apart from the widget, a slice at a time.

The pane's top level is the conversation's main line: fork-free runs, with a side-branch
entry at each fork. Finding them means walking every event (O(N): ~0.5 s at 100,000 on
this machine). Done in one go, that walk froze the screen, keys and live rows included,
each time the tree was refreshed; here every walk is a generator that yields every few
hundred events, so the screen can drive it in slices between frames (``slices``) and
small trees or tests can simply ``finish`` it.

The walk reads a snapshot: positions at or past ``limit`` (events that arrived while it
ran) are ignored, so a tree that grows meanwhile never changes the answer half way.

Fan-out costs what a chain costs: every per-sibling question is a set or a count, never a
scan of the siblings per sibling, and a fork with more than :data:`SIDES_SHOWN` side
branches lists that many and folds the rest into one :class:`MoreBranches` entry that the
pane opens a chunk at a time (100,000 siblings drew 100,000 tree lines: End froze 12 s).
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_left, bisect_right
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TypeVar

from tui.app.store.rows import EventRow
from tui.models import EventTree

ATTACHMENT_MAX = 8
ATTACHMENT_KINDS = frozenset(
    {
        "ConversationStateUpdateEvent",
        "HookExecutionEvent",
        "LLMCompletionLogEvent",
        "TokenEvent",
        "StreamingDeltaEvent",
    }
)
STEP = 500  # events walked between yields
#: Side branches listed at one fork before the rest are folded into a MoreBranches entry.
SIDES_SHOWN = 100

T = TypeVar("T")
Steps = Generator[None, None, T]


@dataclass(frozen=True)
class Run:
    """A fork-free stretch of events (positions into the conversation's rows); ``end`` is
    the last event of its chain (where events that continue the run hang)."""

    positions: tuple[int, ...]
    end: int = field(default=-1, compare=False)


@dataclass(frozen=True)
class SideBranch:
    """A branch off the line at a fork; ``size`` events in it."""

    start: int
    size: int


@dataclass(frozen=True)
class MoreBranches:
    """Side branches ``sides[offset:]`` of one fork, not listed yet (opened a chunk at a
    time: their sizes are worked out then)."""

    sides: tuple[int, ...]
    offset: int

    @property
    def count(self) -> int:
        return len(self.sides) - self.offset


@dataclass(frozen=True)
class MainBranch:
    """The newest child at a fork: the line goes on with it."""

    start: int


LineItem = Run | SideBranch | MoreBranches | MainBranch


@dataclass(frozen=True)
class Outline:
    """The top level of the pane: one line per root, and where the conversation forks."""

    lines: tuple[tuple[LineItem, ...], ...]
    forks: frozenset[int]
    size: int


class TreeWalk:
    """Runs, lines and forks over a snapshot of ``tree`` (positions below ``limit``)."""

    def __init__(self, tree: EventTree, rows: Sequence[EventRow], limit: int | None = None) -> None:
        self.tree = tree
        self.rows = rows
        self.limit = min(len(tree), len(rows)) if limit is None else limit
        #: the tree's cuts when this walk was made: after another, its positions from the
        #: cut on name other events (``EventTree.truncate``), so it is not grown on
        self.cuts = tree.cuts
        #: the real children of each fork the walk met (the pane asks again per label)
        self._forks: dict[int, list[int]] = {}

    def children(self, pos: int) -> list[int]:
        limit = self.limit
        return [k for k in self.tree.child_list(pos) if k < limit]

    def attachment(self, pos: int) -> list[int] | None:
        """``pos`` and everything under it, if that is a side-note (state update, hook
        run…) hung on an event rather than a branch; else None.

        Real servers stamp these with the current leaf as parent, so every agent step
        would look like a fork if they counted (see the captured demo conversation). A
        side-note can carry its own (a stats update under an LLM-log entry, a stored
        ``full_state`` whose null parent means the state update before it): the whole
        small subtree is the attachment, so every one of them has a place in the pane."""
        stack, found, rows = [pos], [], self.rows
        while stack:  # a small subtree made only of side-note kinds
            node = stack.pop()
            found.append(node)
            if len(found) > ATTACHMENT_MAX or rows[node].kind not in ATTACHMENT_KINDS:
                return None
            stack.extend(self.children(node))
        return found

    def is_attachment(self, pos: int) -> bool:
        return self.attachment(pos) is not None

    def real_children(self, pos: int) -> list[int]:
        known = self._forks.get(pos)
        if known is not None:
            return known
        real = [k for k in self.children(pos) if not self.is_attachment(k)]
        if len(real) > 1:  # forks only: few, and asked about again by the pane's labels
            self._forks[pos] = real
        return real

    def run_from(self, start: int) -> Steps[tuple[list[int], list[int]]]:
        """The fork-free run from ``start`` (attachments folded in) and where it ends: the
        real children of its last chain event (its last position is that event)."""
        positions, node, walked = [], start, 0
        while True:
            positions.append(node)
            kids = self.children(node)
            real = (
                self.real_children(node)
                if len(kids) > 1
                else [k for k in kids if not self.is_attachment(k)]
            )
            if len(real) != len(kids):
                keep = set(real)  # a set: 100,000 mixed siblings were quadratic with a list
                for kid in kids:
                    if kid not in keep:  # folded in, with whatever hangs on it
                        positions.extend(self.attachment(kid) or (kid,))
            if len(real) != 1:
                positions.sort()
                positions.append(node)  # the chain's end, for ``line`` (taken off there)
                return positions, real
            node = real[0]
            walked += 1
            if walked % STEP == 0:
                yield

    def subtree_size(self, pos: int) -> Steps[int]:
        stack, count = [pos], 0
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(self.children(node))
            if count % STEP == 0:
                yield
        return count

    def line(self, start: int) -> Steps[list[LineItem]]:
        """The line from ``start``: runs at this level, a side branch at each fork."""
        items: list[LineItem] = []
        node = start
        while True:
            run, real = yield from self.run_from(node)
            end = run.pop()
            items.append(Run(tuple(run), end))
            if not real:
                return items
            main = real[-1]  # newest child: the current head continues the line
            sides = real[:-1]
            for side in sides[:SIDES_SHOWN]:
                items.append(SideBranch(side, (yield from self.subtree_size(side))))
            if len(sides) > SIDES_SHOWN:
                items.append(MoreBranches(tuple(sides), SIDES_SHOWN))
            items.append(MainBranch(main))
            node = main

    def forks(self) -> Steps[frozenset[int]]:
        """Where the conversation forks as the pane shows it (attachments don't count)."""
        found, limit = set(), self.limit
        for count, (pos, kids) in enumerate(list(self.tree.children.items())):
            if pos < limit and len(kids) > 1 and len(self.real_children(pos)) > 1:
                found.add(pos)
            if count % STEP == STEP - 1:
                yield
        return frozenset(found)

    def side_branches(self, more: MoreBranches, count: int) -> Steps[list[SideBranch]]:
        """The next ``count`` side branches of ``more``, with their sizes."""
        out = []
        for side in more.sides[more.offset : more.offset + count]:
            out.append(SideBranch(side, (yield from self.subtree_size(side))))
        return out

    def outline(self) -> Steps[Outline]:
        lines = []
        for root in [r for r in self.tree.roots if r < self.limit]:
            lines.append(tuple((yield from self.line(root))))
        return Outline(tuple(lines), (yield from self.forks()), self.limit)

    def grow(self, old: Outline, roots: int) -> Outline | None:
        """``old`` (worked out over the first ``old.size`` events, ``roots`` roots then)
        with the events since added, if they only continue its very last run — what a live
        run does nearly every time — in time proportional to the new events; else None
        (a fork, a new root, an earlier event that found its parent: walk it all again).

        The run is walked on from its chain's end, so the answer is the full walk's."""
        if not old.lines or old.size >= self.limit:
            return None
        *before, last = old.lines[-1]
        if not isinstance(last, Run) or last.end < 0:
            return None
        new = range(old.size, self.limit)
        tree = self.tree
        if any(tree.parent[p] < 0 for p in new) or len(tree.roots) != roots:
            return None  # a new root, or an orphan adopted by a new event
        more, real = finish(self.run_from(last.end))
        end = more.pop()
        if real or len(set(more).intersection(new)) != len(new):
            return None  # a fork, or new events elsewhere (under an earlier event)
        positions = join_positions(last.positions, more)
        if len(positions) != len(last.positions) + len(new):
            return None
        lines = (*old.lines[:-1], (*before, Run(positions, end)))
        return Outline(lines, old.forks, self.limit)


def join_positions(run: tuple[int, ...], more: list[int]) -> tuple[int, ...]:
    """The sorted union of a run's positions (sorted, unique) and ``more`` (sorted): in
    time proportional to ``more`` where it only continues the run (every index page of a
    walk did a sort of the whole run, 100,000 positions, each second)."""
    cut = bisect_right(more, run[-1]) if run else 0
    tail = more[cut:]
    known = all(_holds(run, p) for p in more[:cut])
    if known and all(a < b for a, b in pairwise(tail)):
        return run + tuple(tail)
    return tuple(sorted(set(run).union(more)))


def _holds(run: tuple[int, ...], position: int) -> bool:
    at = bisect_left(run, position)
    return at < len(run) and run[at] == position


def finish(steps: Steps[T]) -> T:
    """Run a walk to its end at once (small trees, tests)."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


async def slices(steps: Steps[T], budget_s: float = 0.003) -> tuple[T, float]:
    """Run a walk on the event loop, giving way to it every ``budget_s`` seconds.

    Returns the walk's result and the time it kept the loop busy (its own slices only)."""
    busy = 0.0
    began = time.perf_counter()
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value, busy + time.perf_counter() - began
        now = time.perf_counter()
        if now - began > budget_s:
            busy += now - began
            await asyncio.sleep(0)
            began = time.perf_counter()
