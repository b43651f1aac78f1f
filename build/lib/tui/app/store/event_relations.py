"""How one conversation's events relate: actions and their results, and the tree.

Part of the event store (``conversation_events.py``), over its base window (no filter,
oldest first): which result answers which action (by ``action_id``, else a shared
``tool_call_id``), which actions still wait for one, and the tree built from parent links.
No widgets and no I/O of its own: full events come through the store's :meth:`event`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tui.app.store.action_index import ActionIndex, Risk
from tui.app.store.row_windows import PagedWindow, PathWindow
from tui.app.store.rows import EventRow
from tui.app.store.step_rows import StepRow
from tui.memory import release_free_memory
from tui.models import EventTree
from tui.models.events import SecurityAnalysisEvent

if TYPE_CHECKING:
    from tui.models import AnyEvent


class EventRelations:
    """Part of :class:`~.conversation_events.ConversationEvents`: pairing and the tree."""

    base: PagedWindow
    actions: ActionIndex
    tree: EventTree | None
    _tree_size: int
    #: where the base window's rows moved since the tree was built (a live row went in
    #: before them): the tree is cut back there (None: rows were only appended)
    _tree_cut: int | None = None
    #: tool_call_id → its one row, or each (most calls have one or two), built when first
    #: needed (see _with_tool_call). Rows, not positions: a live row may land before rows
    #: already indexed (``live_placing.py``), which moves them
    _by_tool_call: dict[str, EventRow | list[EventRow]]
    #: the base window ``_by_tool_call`` indexes (None: not built)
    _tool_calls_for: PagedWindow | None = None
    #: action id → the row of its result
    _result_at: dict[str, EventRow]
    #: the base window whose walk was last completed (the heap was trimmed after it)
    _walked: PagedWindow | None = None

    if TYPE_CHECKING:  # the store's own (conversation_events.py)

        def cached(self, key: str | None) -> AnyEvent | None: ...
        async def event(self, row: EventRow) -> AnyEvent | None: ...

    def _index_pairs(self, start: int) -> None:
        """Index rows ``start`` onward of the base window for pairing (a page's), and let
        each row's references share the string of the row they name (see
        :func:`_share_ids`)."""
        rows = self.base.head
        _share_ids(rows, start, self.actions.actions)
        self._index_rows(rows[start:])
        if self.base.complete and self._walked is not self.base:
            # the whole log is in: what its pages' parsing freed goes back to the system
            self._walked = self.base
            release_free_memory()

    def _index_live(self, rows: list[EventRow]) -> None:
        """Index rows that came live (wherever in the base window they went)."""
        _share_ids(rows, 0, self.actions.actions)
        self._index_rows(rows)

    def _index_rows(self, rows: Sequence[EventRow]) -> None:
        result_at = self._result_at
        for row in rows:
            answers = row.action_id
            if answers is not None:
                result_at.setdefault(answers, row)
        if self._tool_calls_for is self.base:
            self._index_tool_calls(rows)

    def _index_tool_calls(self, rows: Sequence[EventRow]) -> None:
        by_tool_call = self._by_tool_call
        for row in rows:
            call = row.tool_call_id
            if call:
                found = by_tool_call.get(call)
                if found is None:
                    by_tool_call[call] = row
                elif isinstance(found, list):
                    found.append(row)
                else:
                    by_tool_call[call] = [found, row]

    def _with_tool_call(self, call: str | None) -> list[EventRow] | tuple[EventRow, ...]:
        """The base rows that carry ``call`` as their ``tool_call_id``.

        Only results that do not name their action (and actions no result names) are
        paired this way, so the index is built the first time one is asked about (a scan
        of the rows, ~10 ms at 100,000) and kept up to date from then on: most logs never
        need its ~3 MB."""
        if self._tool_calls_for is not self.base:
            self._by_tool_call.clear()
            self._tool_calls_for = self.base
            self._index_tool_calls(self.base.head)
        found = self._by_tool_call.get(call or "")
        if found is None:
            return ()
        return found if isinstance(found, list) else (found,)

    def _answered(self, action: EventRow) -> bool:
        """A result names the action by id; failing that (results without an ``action_id``:
        agent errors, older logs), one shares its ``tool_call_id``."""
        if action.id is not None and action.id in self._result_at:
            return True
        return any(
            row.kind != "ActionEvent" and row.action_id is None
            for row in self._with_tool_call(action.tool_call_id)
        )

    def pending_actions(self, look_back: int = 200) -> list[EventRow]:
        """The newest actions that have no result yet (what a confirmation would run).

        Only the last ``look_back`` rows are searched: a pending action is always recent."""
        rows = self.base.head
        pending = []
        for pos in range(len(rows) - 1, max(-1, len(rows) - 1 - look_back), -1):
            row = rows[pos]
            if row.kind == "ActionEvent" and not self._answered(row):
                pending.append(row)
            elif row.kind == "MessageEvent" and row.source == "user":
                break  # actions before the user's last message belong to an earlier turn
        return pending[::-1]

    def risk_of(self, action: EventRow) -> Risk | None:
        """The waiting action's risk (the analyzer's verdict, else the agent's estimate)."""
        return self.actions.risk_of(action, self.cached(action.id))

    async def paired(self, row: EventRow) -> AnyEvent | None:
        """The action's result (or the result's action), matched by ``action_id`` first and
        ``tool_call_id`` only where no result names its action; for a security verdict,
        the most serious action it rates. A step of the steps view has its result."""
        if isinstance(row, StepRow) and row.result is not None:
            return await self.event(row.result)
        if row.kind == "ActionEvent" and row.id in self._result_at:
            return await self.event(self._result_at[row.id])
        if row.action_id is not None and row.action_id in self.actions.actions:
            return await self.event(self.actions.actions[row.action_id])
        if row.kind == "SecurityAnalysisEvent":
            event = await self.event(row)
            if isinstance(event, SecurityAnalysisEvent):
                action = self.actions.most_serious(event)
                return await self.event(action) if action is not None else None
        if not row.tool_call_id:
            return None
        for other in self._with_tool_call(row.tool_call_id):
            if other.id != row.id and (row.kind == "ActionEvent") != (other.kind == "ActionEvent"):
                return await self.event(other)
        return None

    # --- tree ------------------------------------------------------------------------------

    def build_tree(self) -> EventTree:
        """The tree over the base index, extended to its newest rows: O(new rows) when rows
        were only appended, or a live row went in a few rows before the end (the tree is
        cut back to it first: ``EventTree.truncate``), else built anew."""
        rows = self.base.head
        cut, self._tree_cut = self._tree_cut, None
        if cut is not None and self.tree is not None and len(self.tree) == self._tree_size:
            self._tree_size = cut if self.tree.truncate(cut) else -1
        if self.tree is not None and len(rows) == self._tree_size:
            return self.tree
        if (
            self.tree is not None
            and 0 <= self._tree_size < len(rows)
            and len(self.tree) == self._tree_size
        ):
            # rows were only appended (index pages, live events): extend, O(new rows)
            start = self._tree_size
            self.tree.extend((r.id, r.parent_id) for r in rows[start:])
        else:  # first build, or a row was replaced (it gained its parent): start over
            start = 0
            self.tree = EventTree((r.id, r.parent_id) for r in rows)
        _share_parents(self.tree, rows, start)
        self._tree_size = len(rows)
        return self.tree

    def branch_window(self, position: int, label: str) -> PathWindow:
        assert self.tree is not None
        rows = self.base.head
        return PathWindow([rows[p] for p in self.tree.branch_path(position)], label)


# --- shared strings ------------------------------------------------------------------------
#
# Every id arrives as its own string (~85 bytes each), once as a row's id and again in each
# row that names it: its parent_id, a result's action_id, the tool_call_id an action and its
# result share. Pointing the later rows at the earlier row's string (equal, so nothing
# compares differently) keeps one copy: ~7 MB of 100,000 rows.


def _share_ids(rows: list[EventRow], start: int, actions: dict[str, EventRow]) -> None:
    """Rows ``start`` onward take the strings of what they name where it is at hand: the
    previous row (most parents), the action a result answers (its id, its tool_call_id)."""
    before = rows[start - 1] if start > 0 else None
    for pos in range(start, len(rows)):
        row = rows[pos]
        parent = row.parent_id
        if parent is not None and before is not None and parent == before.id:
            row.parent_id = before.id
        answers = row.action_id
        if answers is not None:
            action = actions.get(answers)
            if action is not None:
                row.action_id = action.id
                if row.tool_call_id is not None and row.tool_call_id == action.tool_call_id:
                    row.tool_call_id = action.tool_call_id
        before = row


def _share_parents(tree: EventTree, rows: list[EventRow], start: int) -> None:
    """Rows ``start`` onward take their parent's own id string, now that the tree knows
    where every id is (the parents :func:`_share_ids` could not find at hand)."""
    ids = tree.ids
    for pos in range(start, len(rows)):
        row = rows[pos]
        parent = row.parent_id
        if parent is not None:
            at = tree.index_of(parent)
            if at is not None and ids[at] is not parent:
                row.parent_id = ids[at]
