"""The conversation tree pane: branches visible, linear runs collapsed.

Following the measurements in textual-measured.md §4, the tree never nests a chain: the
line that continues after a fork (the newest child, i.e. the current head) stays at the
same indent, only side branches nest, and each fork-free run is a single lazy node that
lists its events when expanded. Depth is the number of nested forks, not the chain length.
Each branch says which of its fork's it is ("branch 2 of 3 · 14 events"). Moving the
cursor selects its event in the list (:class:`EventTreeView.EventHighlighted`).

The pane keeps itself current from a :class:`TreeSource` (the conversation's event store):
told that rows arrived, it rebuilds at most once a second and never more than a fifth of
the time, walking the events in slices between frames (``tree_outline.slices``), so
neither the list nor live rows ever wait for it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, Self

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tui.app.store.rows import EventRow
from tui.app.store.tree_outline import (
    LineItem,
    MainBranch,
    MoreBranches,
    Outline,
    Run,
    SideBranch,
    TreeWalk,
    finish,
    slices,
)
from tui.app.widgets.conversation.fitted_tree import FittedTree
from tui.app.widgets.conversation.tree_marks import TreeMarks
from tui.app.widgets.conversation.tree_nodes import (
    Branch,
    EventNode,
    More,
    events,
    first_words,
    footer,
    main_label,
    more_events_label,
    more_label,
    node_position,
    run_label,
    side_label,
)
from tui.models import EventTree

EXPAND_CHUNK = 500
FOOTER_CHROME = 6  # the border's corners and the dashes and spaces around its subtitle
SMALL = 300
REFRESH_S = 1.0  # the tree is rebuilt at most this often while rows arrive


class TreeSource(Protocol):
    """Where the pane's events come from (the conversation's event store)."""

    @property
    def rows(self) -> Sequence[EventRow]: ...

    @property
    def size(self) -> int | None:
        """How many events the conversation shows (what the list counts), once known."""
        ...

    def build_tree(self) -> EventTree:
        """The tree over ``rows``, extended (or rebuilt) to every row there is."""
        ...


class EventTreeView(TreeMarks, FittedTree, inherit_bindings=True):
    """Tree of the conversation. Enter on a branch restricts the list to that branch."""

    BINDING_GROUP_TITLE = "Tree"
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="tree.down"),
        Binding("k", "cursor_up", "Up", show=False, id="tree.up"),
        Binding("b", "select_branch", "Show branch", id="tree.branch"),
        Binding("right", "expand_or_down", "Expand", show=False, id="tree.expand"),
        Binding("left", "collapse_or_up", "Collapse", show=False, id="tree.collapse"),
    ]
    DEFAULT_CSS = """
    EventTreeView { background: $surface; }
    """

    @dataclass
    class BranchChosen(Message):
        """The user chose the branch through ``position``: show root → its leaf."""

        position: int
        label: str

    @dataclass
    class EventChosen(Message):
        """Enter on an event (or a run): show it in the list, leaving a view without it."""

        position: int

    @dataclass
    class EventHighlighted(Message):
        """The user moved the cursor to an event (or a run or branch, by its first): the
        list selects it. Never for the pane's own placing of the cursor (a rebuild, focus)."""

        position: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("conversation", id=id)
        self.show_root = False
        self.guide_depth = 2
        self._walk = TreeWalk(EventTree(), ())
        self.forks: frozenset[int] = frozenset()
        self.shown_size = 0  # events the shown outline covers (the screen works it out in slices)
        self._outline: Outline | None = None
        self._roots = 0  # roots of the shown outline (``TreeWalk.grow`` checks none moved)
        self._restore: set[tuple] = set()
        self._source: TreeSource | None = None
        self._stale = False  # rows arrived since the outline was worked out
        self._next = 0.0  # perf_counter time before which the outline is not rebuilt
        self._outlining = False  # a walk is running (in slices)
        self._now = False  # a rebuild was asked for "now" while one ran
        #: the event the cursor was last on (the list was told, or the pane put it there)
        self._at: int | None = None
        self.head: str | None = None  # the conversation's head (tree_marks.py)
        self._head_path: frozenset[int] | None = None
        self.fork_notes: dict[str, str] = {}

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._relabel())

    def on_focus(self) -> None:
        """Focused with no cursor yet: put it on the first line, so keys act on something
        (the list stays where it is until the cursor is moved)."""
        if self.cursor_line < 0 and self.root.children:
            self._place_cursor(0)

    def _place_cursor(self, line: int) -> None:
        """The pane puts its cursor on ``line`` itself: not a move to tell the list of."""
        node = self.get_node_at_line(line)
        if node is not None:
            self._at = node_position(node.data)
        self.cursor_line = line

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        """Tell the list of a move to another event; a line that is the same event (the
        tree rebuilt under the cursor) or has none (… more) is not one."""
        event.stop()
        position = node_position(event.node.data)
        if position is not None and position != self._at:
            self._at = position
            self.post_message(self.EventHighlighted(position))

    def _relabel(self) -> None:
        """Labels have the theme's colours drawn in (error rows): a new theme draws them anew."""
        outline, self._outline = self._outline, None
        if outline is not None:
            self.show(self._walk, outline, keep_state=True)

    # --- following the event store ---------------------------------------------------------

    def follow(self, source: TreeSource) -> None:
        """Keep the pane current from ``source``: see :meth:`mark_stale`."""
        self._source = source
        self.set_interval(REFRESH_S, self.rebuild)

    def mark_stale(self) -> None:
        """Rows arrived: the next rebuild (the timer's, or :meth:`rebuild`) shows them; the
        footer says at once how many of the conversation's events the pane shows so far."""
        self._stale = True
        self._footer()

    def rebuild(self, *, now: bool = False) -> None:
        """Rebuild if rows arrived. Rows that only continue the last run (a live run, nearly
        always) are added at once, in time proportional to them; anything else is walked
        again in slices, at most once a second (``now`` skips the wait) and never more than
        a fifth of the time. One walk at a time; a "now" asked for meanwhile follows it."""
        if not self._stale or self._source is None:
            return
        if self._outlining:
            self._now |= now
            return
        tree, rows = self._source.build_tree(), self._source.rows  # extending is O(new rows)
        walk = TreeWalk(tree, rows)
        outline = self._outline
        if outline is not None and tree is self._walk.tree and tree.cuts == self._walk.cuts:
            if walk.limit == outline.size:
                self._stale = False
                self._footer()
                return
            grown = walk.grow(outline, self._roots)
            if grown is not None:
                self._stale = False
                self.show(walk, grown, keep_state=True)
                return
        if time.perf_counter() < self._next and not now:
            return  # still stale: the timer walks it
        self._stale = False
        self._outlining = True
        self._outline_in_slices(walk)

    @work(group="tree")
    async def _outline_in_slices(self, walk: TreeWalk) -> None:
        busy = 0.0
        try:
            outline, busy = await slices(walk.outline())
            if not self.is_attached:
                return
            self.show(walk, outline, keep_state=True)
        finally:
            self._outlining = False
            self._next = time.perf_counter() + max(REFRESH_S, 4 * busy)
        if self._now and self.is_attached:
            self._now = False
            self.rebuild(now=True)

    def reset(self) -> None:
        """The conversation's rows were replaced (raw history on or off): start afresh."""
        self.workers.cancel_group(self, "tree")  # a walk of the old rows is of no use now
        self._outlining = self._now = False
        self._walk, self._outline = TreeWalk(EventTree(), ()), None
        self.forks, self.shown_size = frozenset(), 0
        self._at = None  # positions of the old rows
        self.clear()
        self.border_subtitle = ""
        self._stale = True

    def clear(self) -> Self:
        """Take every line away, and the cursor's node with them.

        Textual's ``clear`` keeps the cursor's node (detached) until the cursor moves to
        another line: ``b`` or enter then acted on a line no longer shown, with a position
        of the rows before (``b`` right after ``v`` looked up one the new rows lack)."""
        super().clear()
        self.cursor_line = -1  # drops the node; :meth:`show` puts the cursor back
        return self

    def _footer(self) -> None:
        """Say on the border how many events the pane shows (``tree_nodes.footer``)."""
        outline = self._outline
        if outline is not None:
            total = self._source.size if self._source is not None else None
            room = self.outer_size.width - FOOTER_CHROME
            self.border_subtitle = footer(outline.size, total, len(outline.forks), room)

    def on_resize(self) -> None:
        self._footer()

    # --- building ------------------------------------------------------------------------

    @staticmethod
    def _key(data: object) -> tuple | None:
        if isinstance(data, Run):
            return ("run", data.positions[0])
        if isinstance(data, Branch):
            return ("branch", data.start)
        return None

    def load(self, tree: EventTree, rows: Sequence[EventRow], *, keep_state: bool = False) -> None:
        """Work out the outline at once and show it (small trees, tests); the screen works
        it out in slices (``tree_outline.slices``) and calls :meth:`show`."""
        walk = TreeWalk(tree, rows)
        self.show(walk, finish(walk.outline()), keep_state=keep_state)

    def show(self, walk: TreeWalk, outline: Outline, *, keep_state: bool = False) -> None:
        """Show an outline. Cheap: only the top line is materialised.

        ``keep_state`` re-opens the runs and branches that were open and keeps the cursor
        line, so a live conversation's tree can grow while someone is reading it."""
        limit = outline.size
        self._roots = sum(1 for root in walk.tree.roots if root < limit)
        if keep_state and self._grow_in_place(walk, outline):
            self._footer()
            return
        self._outline = outline
        self._restore = set()
        cursor_line = self.cursor_line
        if keep_state:
            stack = list(self.root.children)
            while stack:
                node = stack.pop()
                if node.is_expanded and (key := self._key(node.data)) is not None:
                    self._restore.add(key)
                    stack.extend(node.children)
        self._walk, self.forks, self.shown_size = walk, outline.forks, outline.size
        self._head_path = None
        self.clear()
        self.root.label = Text(f"conversation · {events(outline.size)}")
        for items in outline.lines:
            self._add_items(self.root, items)
        self.root.expand()
        small = outline.size <= SMALL and not keep_state  # small ones open fully at first
        for node in list(self.root.children):
            if (small and isinstance(node.data, Run)) or self._key(node.data) in self._restore:
                node.expand()
        if not keep_state or (cursor_line < 0 and self.has_focus):
            cursor_line = 0 if self.has_focus else -1  # where keys act on something (on_focus)
        if cursor_line >= 0:
            self.call_after_refresh(self._place_cursor, cursor_line)
        self._footer()

    def _grow_in_place(self, walk: TreeWalk, outline: Outline) -> bool:
        """The usual live case: events only lengthened the last run of the main line.

        Then that one node is updated (label, and new leaves if it is open) instead of the
        whole pane being rebuilt and every open run refilled (~100 ms with an open run of
        500 events, once a second while an agent works). Anything else: False."""
        old = self._outline
        if (
            old is None
            or len(old.lines) != len(outline.lines)
            or not outline.lines
            or old.forks != outline.forks
        ):
            return False
        if old.lines[:-1] != outline.lines[:-1] or len(old.lines[-1]) != len(outline.lines[-1]):
            return False
        *same_old, was = old.lines[-1]
        *same_new, now = outline.lines[-1]
        if (
            same_old != same_new
            or not isinstance(was, Run)
            or not isinstance(now, Run)
            or len(was.positions) < 2
        ):
            return False
        if now.positions[: len(was.positions)] != was.positions:
            return False  # something landed inside the run (an attachment on an earlier event)
        node = self.root.children[-1] if self.root.children else None
        if node is None or node.data != was:
            return False
        self._walk, self._outline, self.shown_size = walk, outline, outline.size
        self.root.label = Text(f"conversation · {events(outline.size)}")
        node.data = now
        node.set_label(run_label(self._walk, now))
        if node.children:  # open: its leaves, then at most one "… more"
            tail = node.children[-1]
            if isinstance(tail.data, More):
                tail.data = More(now, tail.data.offset)
                tail.set_label(more_events_label(len(now.positions) - tail.data.offset))
            else:
                self._fill_run(node, now, len(was.positions))
        return True

    def real_children(self, pos: int) -> list[int]:
        return self._walk.real_children(pos)

    def fork_positions(self) -> frozenset[int]:
        """Where the conversation forks as the tree shows it (state updates and other
        attachments don't count as branches)."""
        return self.forks

    def fork_count(self) -> int:
        return len(self.forks)

    def first_words(self, pos: int) -> Text:
        """What a branch starting at ``pos`` is labelled with (its first message's words)."""
        return first_words(self._walk, pos)

    def _add_items(self, parent: TreeNode, items: Sequence[LineItem]) -> None:
        """Add a line: runs at this indent, side branches nested, each branch numbered
        among its fork's (the oldest first; the newest, last, goes on below)."""
        count = index = 0  # the branches of the fork the line is at, and the last one named
        for item in items:
            if isinstance(item, Run):
                self._add_run(parent, item)
                count, index = len(self._walk.real_children(item.end)), 0
            elif isinstance(item, SideBranch):
                index += 1
                current = self._current(item.start)
                label = side_label(self._walk, item, index, count, current=current)
                parent.add(label, data=Branch(item.start), allow_expand=True)
            elif isinstance(item, MoreBranches):
                parent.add_leaf(more_label(item), data=item)
            elif isinstance(item, MainBranch):
                label = main_label(count, current=self._current(item.start))
                parent.add_leaf(label, data=Branch(item.start))

    def _open_branches(self, node: TreeNode, more: MoreBranches) -> None:
        """List the next chunk of a fork's folded side branches where ``node`` stands."""
        parent = node.parent
        if parent is None:
            return
        count = len(more.sides) + 1  # the newest branch is not among the sides
        for index, item in enumerate(
            finish(self._walk.side_branches(more, EXPAND_CHUNK)), start=more.offset + 1
        ):
            label = side_label(self._walk, item, index, count, current=self._current(item.start))
            parent.add(label, data=Branch(item.start), before=node)
        rest = MoreBranches(more.sides, min(len(more.sides), more.offset + EXPAND_CHUNK))
        if rest.count:
            node.data = rest
            node.set_label(more_label(rest))
        else:
            node.remove()

    def _add_run(self, parent: TreeNode, run: Run) -> None:
        if len(run.positions) == 1:
            parent.add_leaf(self._event_label(run.positions[0]), data=EventNode(run.positions[0]))
            return
        parent.add(run_label(self._walk, run), data=run, allow_expand=True)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded) -> None:
        node = event.node
        data = node.data
        if node.children or data is None:
            return
        if isinstance(data, Run):
            self._fill_run(node, data, 0)
        elif isinstance(data, Branch):
            self._add_items(node, finish(self._walk.line(data.start)))
        for child in node.children:  # re-open what was open before a rebuild
            if self._key(child.data) in self._restore:
                child.expand()

    def _fill_run(self, node: TreeNode, run: Run, offset: int) -> None:
        chunk = run.positions[offset : offset + EXPAND_CHUNK]
        for pos in chunk:
            node.add_leaf(self._event_label(pos), data=EventNode(pos))
        rest = len(run.positions) - offset - len(chunk)
        if rest > 0:
            node.add_leaf(more_events_label(rest), data=More(run, offset + len(chunk)))

    # --- choosing --------------------------------------------------------------------------

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        data = event.node.data
        if isinstance(data, More):
            parent = event.node.parent
            event.node.remove()
            if parent is not None:
                self._fill_run(parent, data.run, data.offset)
        elif isinstance(data, MoreBranches):
            self._open_branches(event.node, data)
        elif isinstance(data, EventNode):
            self.post_message(self.EventChosen(data.position))
        elif isinstance(data, Run):
            self.post_message(self.EventChosen(data.positions[0]))
        elif isinstance(data, Branch):
            self.post_message(
                self.BranchChosen(data.start, first_words(self._walk, data.start).plain)
            )

    # --- keys -------------------------------------------------------------------------------

    def action_select_branch(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        pos = node_position(node.data)
        if pos is not None:
            self.post_message(self.BranchChosen(pos, first_words(self._walk, pos).plain))
