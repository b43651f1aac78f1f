"""How one conversation's events relate: actions and their results, and the tree.

Part of the event store (``conversation_events.py``), over its base window (no filter,
oldest first): which result answers which action (by ``action_id``, else a shared
``tool_call_id``), which actions still wait for one, and the tree built from parent links.
No widgets and no I/O of its own: full events come through the store's :meth:`event`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.models import EventTree
from tui.models.events import SecurityAnalysisEvent

from .action_index import ActionIndex, Risk
from .row_windows import PagedWindow, PathWindow
from .rows import EventRow

if TYPE_CHECKING:
    from tui.models import AnyEvent


class EventRelations:
    """Part of :class:`~.conversation_events.ConversationEvents`: pairing and the tree."""

    base: PagedWindow
    actions: ActionIndex
    tree: EventTree | None
    _tree_size: int
    _by_tool_call: dict[str, list[int]]
    _result_at: dict[str, int]

    if TYPE_CHECKING:  # the store's own (conversation_events.py)

        def cached(self, key: str | None) -> AnyEvent | None: ...
        async def event(self, row: EventRow) -> AnyEvent | None: ...

    def _index_pairs(self, start: int) -> None:
        rows = self.base.head
        for pos in range(start, len(rows)):
            row = rows[pos]
            if row.tool_call_id:
                self._by_tool_call.setdefault(row.tool_call_id, []).append(pos)
            if row.action_id is not None:
                self._result_at.setdefault(row.action_id, pos)

    def _answered(self, action: EventRow) -> bool:
        """A result names the action by id; failing that (results without an ``action_id``:
        agent errors, older logs), one shares its ``tool_call_id``."""
        if action.id is not None and action.id in self._result_at:
            return True
        rows = self.base.head
        return any(
            rows[pos].kind != "ActionEvent" and rows[pos].action_id is None
            for pos in self._by_tool_call.get(action.tool_call_id or "", ())
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
        the most serious action it rates."""
        if row.kind == "ActionEvent" and row.id in self._result_at:
            pos = self._result_at[row.id]
            if pos < len(self.base.head):
                return await self.event(self.base.head[pos])
        if row.action_id is not None and row.action_id in self.actions.actions:
            return await self.event(self.actions.actions[row.action_id])
        if row.kind == "SecurityAnalysisEvent":
            event = await self.event(row)
            if isinstance(event, SecurityAnalysisEvent):
                action = self.actions.most_serious(event)
                return await self.event(action) if action is not None else None
        if not row.tool_call_id:
            return None
        for pos in self._by_tool_call.get(row.tool_call_id, ()):
            other = self.base.head[pos]
            if other.id != row.id and (row.kind == "ActionEvent") != (other.kind == "ActionEvent"):
                return await self.event(other)
        return None

    # --- tree ------------------------------------------------------------------------------

    def build_tree(self) -> EventTree:
        """The tree over the base index, extended to its newest rows (log order = ascending
        timestamps): O(new rows) when rows were only appended, else built anew."""
        rows = self.base.head
        if self.tree is not None and len(rows) == self._tree_size:
            return self.tree
        if (
            self.tree is not None
            and 0 <= self._tree_size < len(rows)
            and len(self.tree) == self._tree_size
        ):
            # rows were only appended (index pages, live events): extend, O(new rows)
            self.tree.extend((r.id, r.parent_id) for r in rows[self._tree_size :])
        else:  # first build, or a row was replaced (it gained its parent): start over
            self.tree = EventTree((r.id, r.parent_id) for r in rows)
        self._tree_size = len(rows)
        return self.tree

    def branch_window(self, position: int, label: str) -> PathWindow:
        assert self.tree is not None
        rows = self.base.head
        return PathWindow([rows[p] for p in self.tree.branch_path(position)], label)
