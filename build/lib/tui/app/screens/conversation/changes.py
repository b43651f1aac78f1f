"""Changes from the conversation (``w``, ``W``, palette "Changes"), and back.

``w`` opens the view of what the agent changed in its workspace (:mod:`..changes`), where
it was last time in this conversation; ``W`` on a file-edit event opens it at that file's
diff. ``e`` in the view closes it on the events that edited the file: the list then shows
only those (``Events · edits: cli/main.py``; esc or ``a``: all events again), as a branch
or find's only-matches view does. While the run is followed, each batch of live rows that
holds a file edit or a command is told to an open view (:attr:`files_touched`), which
reads the workspace again once they stop coming. Local folders have Changes too: the
folder server reads the workspace their stored state names, where it is on this machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.signal import Signal

from tui.app.store.row_windows import PathWindow
from tui.app.widgets.conversation.event_list import EventList
from tui.app.workspace.workspace_edits import EditedFile, edited_path, edits, touches_files
from tui.text import one_line

if TYPE_CHECKING:
    from tui.app.screens.changes import ChangesPlace
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.live_session import LiveSession
    from tui.app.store.row_windows import RowWindow
    from tui.models import AppConversation


class ChangesMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    conversation_id: str
    events: ConversationEvents
    window: RowWindow
    conversation: AppConversation | None
    live: LiveSession | None
    changes_place: ChangesPlace | None = None
    _files_touched: Signal[int] | None = None

    @property
    def files_touched(self) -> Signal[int]:
        """Published with a count when live rows that can change files arrive."""
        if self._files_touched is None:
            self._files_touched = Signal(self, "files-touched")
        return self._files_touched

    def changes_refused(self) -> str | None:
        """Why this conversation has no workspace to show, or None. A local folder's is the
        folder its stored state names, read with git by the folder server (which says so
        when it is not on this machine or not a repository)."""
        if self.events.shared:
            return "A shared conversation has no workspace to show."
        return None

    def action_changes(self) -> None:
        self.open_changes()

    def open_changes(self, focus: str | None = None) -> None:
        """Push the Changes view (``focus``: a file to open, as a tool named it)."""
        from tui.app.screens.changes import ChangesPlace, ChangesScreen

        if self.changes_place is None:
            self.changes_place = ChangesPlace()
        self.app.push_screen(
            ChangesScreen(
                self.conversation_id,
                title=lambda: self.conversation.title if self.conversation is not None else None,
                place=self.changes_place,
                focus=focus,
                touched=self.files_touched,
                following=lambda: self.live is not None,
            ),
            self.show_edits,
        )

    def action_changes_here(self) -> None:
        row = self.query_one(EventList).current
        if row is None:
            self.notify("No event selected: W opens the file a file edit changed.", markup=False)
        else:
            self._changes_at(row)

    @work(group="changes-open")
    async def _changes_at(self, row) -> None:
        try:
            event = await self.events.event(row)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not load the event", exc)
            return
        path = edited_path(event) if event is not None else None
        if path is None:
            self.notify(
                "This event edits no file: W works on a file edit (w shows every change).",
                markup=False,
            )
            return
        if not self.closing:
            self.open_changes(focus=path)

    def note_live_rows(self, added: int) -> None:
        """Tell an open Changes view when new rows may have changed files."""
        if not added or self._files_touched is None:
            return
        head = self.events.base.head
        touched = sum(1 for row in head[len(head) - added :] if touches_files(row))
        if touched:
            self._files_touched.publish(touched)

    # --- the edits of one file ---------------------------------------------------------------

    def show_edits(self, target: EditedFile | None) -> None:
        if target is not None and not self.closing:
            self._show_edits(target)

    @work(exclusive=True, group="find")
    async def _show_edits(self, target: EditedFile) -> None:
        """The list shows only the events that edited ``target`` (every page read first)."""
        base, name = self.events.base, one_line(target.label(), 200)
        if not base.complete:
            self.notify(f"Reading every event for the edits of {name}…", markup=False)
            await self.events.load_all(base)
        rows = [row for row in base.head if edits(row, target)]
        if not rows:
            self.notify(
                f"No file edit of this conversation changed {name} "
                "(a command may have: its changes are not told apart). w: back to Changes.",
                timeout=8,
                markup=False,
            )
            return
        if self.closing:
            return
        self.window = PathWindow(rows, target.label(), what="edits")
        event_list = self.query_one(EventList)
        event_list.focus()
        self.notify(
            f"{len(rows):,} event(s) edited {name}: esc shows all events again.",
            markup=False,
        )
