"""Changes: what the conversation's agent changed in its workspace (``w`` in a conversation).

The changed files (status, path, +/− lines) against the server's base or, ``u``, HEAD
(uncommitted only); the commits (``c``) and each one's files; the selected file's diff,
unified or side by side (``s``; side by side from :data:`SIDE_BY_SIDE_FROM` columns). On a
wide terminal the lists sit beside the diff; below :data:`WIDE_FROM` columns one pane is
shown at a time (enter opens the diff, esc goes back). ``e`` closes the view on the
events that edited the file, ``ctrl+s`` writes the patch (``patch.py``). While the run is
followed live, the view reads the changes again :data:`REFRESH_AFTER_S` after the last
event that can change files (a file edit, a command), and says when it last did.

Reading is in ``loading.py`` (workers; diffs built in a thread), what the view says of it in
``status.py``; this module lays the panes out and routes keys. Every failure is said in the server's or the client's words: a paused
sandbox (resume it), a route this server lacks (its kind and version), a 4xx/5xx.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.signal import Signal
from textual.timer import Timer
from textual.widgets import DataTable, Static

from tui.app.guard import GuardedDispatch, being_removed
from tui.app.screens.changes.keys import CHANGES_KEYS
from tui.app.screens.changes.loading import LoadingMixin, Source
from tui.app.screens.changes.patch import PatchMixin
from tui.app.screens.changes.status import BASE_WORDS, HEAD_WORDS, StatusMixin
from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.workspace.changes_tables import CommitsTable, FilesTable, shown
from tui.app.widgets.workspace.diff_view import DiffView
from tui.app.workspace.workspace_edits import EditedFile, in_workspace, of_change
from tui.models.workspace import GitChange

#: Terminal width from which the lists and the diff are side by side (below: one pane).
WIDE_FROM = 120
#: Terminal width from which a diff is drawn side by side unless ``s`` said otherwise.
SIDE_BY_SIDE_FROM = 160
#: Seconds after the last file-changing event of a followed run before reading again.
REFRESH_AFTER_S = 2.0


@dataclass
class ChangesPlace:
    """Where the view was in this conversation, so ``w`` opens it there again."""

    uncommitted: bool = False
    path: str | None = None
    side_by_side: bool | None = None  # None: by the terminal's width


class ChangesScreen(
    GuardedDispatch, StatusMixin, LoadingMixin, PatchMixin, Screen[EditedFile | None]
):
    """Dismissed with the file whose edits to show in the conversation, or None."""

    BINDING_GROUP_TITLE = "Changes"
    CSS_PATH = "changes.tcss"
    AUTO_FOCUS = "#changes-files"
    BINDINGS = CHANGES_KEYS

    def __init__(
        self,
        conversation_id: str,
        *,
        title: Callable[[], str | None] = lambda: None,
        place: ChangesPlace | None = None,
        focus: str | None = None,
        touched: Signal | None = None,
        following: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__()
        self.conversation_id = conversation_id
        self._title = title
        self.place = place or ChangesPlace()
        self.working = Source(ref="HEAD" if self.place.uncommitted else None)
        self.source = self.working
        #: a file to open at once (a file-edit event's, as the agent's tools named it)
        self._focus = focus
        self._touched = touched
        self._following = following
        self.root: str | None = None
        self.changes: list[GitChange] | None = None
        self.list_error = ""
        self.commits_page = None
        self.commits_error = ""
        self.counted: dict[str, tuple[int, int] | None | str] = {}
        self.updated_at = None
        self.shown_path: str | None = None
        self.pane = "files"  # what a narrow terminal shows: files, commits or diff
        self._refresh_due: Timer | None = None
        self._shown_title = ""
        self._status_due: Timer | None = None
        self.make_caches()

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_text()), id="changes-title")
        yield Static(id="changes-status")
        with Horizontal(id="changes-body"):
            with Vertical(id="changes-lists"):
                yield FilesTable(id="changes-files")
                yield Static(id="changes-note")
                yield CommitsTable(id="changes-commits")
                yield Static(Text("Reading the commits…"), id="commits-note")
            yield DiffView(id="changes-diff")
        yield KeyBar()

    def on_mount(self) -> None:
        self._fit(self.app.size.width)
        self.query_one("#changes-files").border_title = "Files"
        self.query_one("#changes-commits").border_title = "Commits"
        self.query_one("#changes-note").border_title = "Files"
        self.query_one("#commits-note").border_title = "Commits"
        self.query_one(DiffView).say("Choose a file: enter shows its diff.")
        self.query_one("#changes-note", Static).update(Text("Reading the changes…"))
        self.set_class(True, "-empty")
        self.set_class(True, "-no-commits")
        self.load_changes()
        self.load_commits()
        self.set_interval(1.0, self.draw_status)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())
        if self._touched is not None:
            self._touched.subscribe(self, self._files_touched)

    @property
    def closing(self) -> bool:
        return being_removed(self)

    # --- layout ------------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int) -> None:
        self.set_class(width < WIDE_FROM, "-narrow")
        side = self.place.side_by_side
        self.query_one(DiffView).set_side_by_side(
            side if side is not None else width >= SIDE_BY_SIDE_FROM
        )
        self._show_pane(self.pane)

    @property
    def narrow(self) -> bool:
        return self.has_class("-narrow")

    def _show_pane(self, pane: str) -> None:
        """The pane a narrow terminal shows (and, wide or narrow, the one with the focus)."""
        self.pane = pane
        for name in ("files", "commits", "diff"):
            self.set_class(name == pane, f"-pane-{name}")
        target = {"files": "#changes-files", "commits": "#changes-commits"}.get(
            pane, "#changes-diff"
        )
        widget = self.query_one(target)
        if self.is_mounted and widget.display and widget.focusable:
            self.set_focus(widget)
        self.refresh_bindings()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Tab and clicks move the focus too: the pane follows it."""
        pane = {"changes-files": "files", "changes-commits": "commits", "changes-diff": "diff"}
        found = pane.get(event.widget.id or "")
        if found is not None and found != self.pane:
            self.pane = found
            for name in ("files", "commits", "diff"):
                self.set_class(name == found, f"-pane-{name}")
            self.refresh_bindings()

    # --- choosing a file ---------------------------------------------------------------------

    def _choose_file(self, changes: list[GitChange]) -> None:
        """After a listing: the file asked for (a file-edit event's), the one shown before
        (a refresh), or on a wide terminal the first one."""
        table = self.query_one("#changes-files", FilesTable)
        by_path = {change.path: change for change in changes}
        if self._focus is not None:
            wanted, self._focus = in_workspace(self._focus, self.root).relative, None
            if wanted in by_path:
                table.cursor_to(wanted)
                self._open(by_path[wanted])
            else:
                self.notify(
                    f"{shown(wanted, 200)} has no changes {self._against()}.",
                    markup=False,
                )
            return
        if self.shown_path in by_path:
            table.cursor_to(self.shown_path)
            self.load_diff(by_path[self.shown_path], keep_place=True)
            return
        if self.shown_path is not None:
            self.shown_path = None
            self.query_one(DiffView).say("The file shown before has no changes now.")
        remembered = self.place.path
        if remembered in by_path:
            table.cursor_to(remembered)
            if not self.narrow:
                self.load_diff(by_path[remembered])
        elif changes and not self.narrow:
            self.load_diff(table.current or changes[0])

    def _against(self) -> str:
        commit = self.source.commit
        if commit is not None:
            return f"in commit {commit.short_sha}"
        return "uncommitted" if self.source.ref == "HEAD" else "against the base"

    def _open(self, change: GitChange) -> None:
        """Show ``change``'s diff (a narrow terminal switches to the diff pane)."""
        self.place.path = change.path
        if self.shown_path != change.path or self.narrow:
            self.load_diff(change)
        self._show_pane("diff")

    @on(DataTable.RowSelected, "#changes-files")
    def _file_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        change = self.query_one("#changes-files", FilesTable).current
        if change is not None:
            self._open(change)

    @on(DataTable.RowHighlighted, "#changes-files")
    def _file_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """On a wide terminal the diff follows the cursor."""
        change = self.query_one("#changes-files", FilesTable).current
        if change is None or self.narrow or change.path == self.shown_path:
            return
        self.place.path = change.path
        self.load_diff(change, pause=True)

    @on(DataTable.RowSelected, "#changes-commits")
    def _commit_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        commit = self.query_one("#changes-commits", CommitsTable).current
        if commit is not None:
            self._switch(Source(commit=commit))
            self._show_pane("files")

    def _switch(self, source: Source) -> None:
        """List another source's files (the diff of the old one goes)."""
        if source == self.source:
            return
        self.source = source
        self.changes, self.counted, self.shown_path = None, {}, None
        self.list_error = ""
        self.workers.cancel_group(self, "changes-count")
        self.workers.cancel_group(self, "changes-diff")
        self.query_one("#changes-files", FilesTable).show([], {})
        self.query_one(DiffView).say("Choose a file: enter shows its diff.")
        self.set_class(True, "-empty")
        self._say_empty()
        self._title_files()
        self.load_changes()

    # --- keys --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "edits":
            return self._selected() is not None
        return True

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action == "edits":
            return "Choose a file first: e shows the events that edited it."
        return None

    def _selected(self) -> GitChange | None:
        if self.pane == "diff" or not self.narrow:
            by_path = {change.path: change for change in self.changes or []}
            if self.shown_path in by_path:
                return by_path[self.shown_path]
        tables = self.query("#changes-files").results(FilesTable)  # none while composing
        table = next(tables, None)
        return table.current if table is not None else None

    def action_back(self) -> None:
        focused = self.focused
        if self.pane == "diff" or isinstance(focused, DiffView):
            self._show_pane("files")
        elif self.source.commit is not None:
            self._switch(self.working)
            self._show_pane("commits")
        elif self.pane == "commits" or isinstance(focused, CommitsTable):
            self._show_pane("files")
        else:
            self.dismiss(None)

    def action_uncommitted(self) -> None:
        self.place.uncommitted = self.working.ref != "HEAD"
        self.working = Source(ref="HEAD" if self.place.uncommitted else None)
        self._switch(self.working)
        if self.pane != "files":
            self._show_pane("files")
        self.notify(
            f"Showing the changes {HEAD_WORDS if self.place.uncommitted else BASE_WORDS}.",
            markup=False,
        )

    def action_commits(self) -> None:
        self._show_pane("files" if self.pane == "commits" else "commits")

    def action_side_by_side(self) -> None:
        view = self.query_one(DiffView)
        self.place.side_by_side = not view.side_by_side
        view.set_side_by_side(self.place.side_by_side)
        by_path = {change.path: change for change in self.changes or []}
        if self.shown_path in by_path:
            self.title_diff(by_path[self.shown_path])

    def action_edits(self) -> None:
        change = self._selected()
        if change is not None:
            self.dismiss(of_change(change.path, self.root))

    def action_refresh(self) -> None:
        self.refresh_now()

    def action_step(self, step: int) -> None:
        """``]`` / ``[``: the next or previous file's diff, without going back to the list."""
        table = self.query_one("#changes-files", FilesTable)
        if not table.row_count:
            return
        row = max(0, min(table.row_count - 1, table.cursor_row + step))
        table.move_cursor(row=row)
        change = table.current
        if change is not None:
            self._open(change)

    # --- keeping up with a followed run ------------------------------------------------------

    def _files_touched(self, _count: int) -> None:
        """An event that can change files arrived: read again once they stop coming."""
        if self.closing:
            return
        if self._refresh_due is not None:
            self._refresh_due.reset()
        else:
            self._refresh_due = self.set_timer(REFRESH_AFTER_S, self._refresh_timer)

    def _refresh_timer(self) -> None:
        self._refresh_due = None
        if self.closing:
            return
        if self.source.commit is None:
            self.refresh_now()
        else:
            self.load_commits()  # a commit's files stay as they were; a new commit may come

    def refresh_now(self) -> None:
        """Read the files (and the commits) again; counts and the diff shown follow."""
        for key in [key for key in self.diffs if key[0] == self.source.key]:
            self.diffs.discard(key)  # the files may have changed since
        self.load_changes()
        self.load_commits()


__all__ = ["ChangesPlace", "ChangesScreen"]
