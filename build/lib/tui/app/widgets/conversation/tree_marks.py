"""What the tree pane marks on its lines beside the events (issue 30): the branch holding
the conversation's head (``leaf_event_id``: ``navigate`` moves it) is "● current", and an event
other conversations were forked from leads its line with "⑂" and names them.

Mixed into :class:`~.event_tree.EventTreeView`, which sets ``head``, ``_head_path`` and
``fork_notes`` up and rebuilds its lines (``_relabel``) when either changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.app.widgets.conversation.tree_nodes import event_label

if TYPE_CHECKING:
    from rich.text import Text

    from tui.app.store.tree_outline import TreeWalk


class TreeMarks:
    """Part of :class:`~.event_tree.EventTreeView` (see the module doc)."""

    _walk: TreeWalk
    forks: frozenset[int]
    head: str | None
    _head_path: frozenset[int] | None  # root → head, worked out when first asked
    fork_notes: dict[str, str]  # event id → "forked: “title”"

    if TYPE_CHECKING:

        def _relabel(self) -> None: ...

    def set_fork_notes(self, notes: dict[str, str]) -> None:
        """Conversations forked from events of this one (the forks' records say so)."""
        if notes != self.fork_notes:
            self.fork_notes = dict(notes)
            self._relabel()

    def _event_label(self, pos: int) -> Text:
        rows = self._walk.rows
        note = self.fork_notes.get(rows[pos].id or "") if self.fork_notes else None
        return event_label(self._walk, pos, note)

    def set_head(self, event_id: str | None) -> None:
        """The conversation's head moved (or is first known): mark the branch holding it."""
        if event_id == self.head:
            return
        self.head, self._head_path = event_id, None
        if self.forks:
            self._relabel()

    def _current(self, start: int) -> bool:
        """The branch starting at ``start`` holds the head (only asked where there are forks)."""
        if self.head is None:
            return False
        if self._head_path is None:
            tree = self._walk.tree
            at = tree.index_of(self.head)
            self._head_path = frozenset(tree.path_to(at)) if at is not None else frozenset()
        return start in self._head_path
