"""What the Changes view says about what it shows: the status line under the title (which
base, how many files and lines, when it was read), the lists' titles, the diff's title, and
why a list is empty (a failure, no repository, no changes, no commits).

Untrusted text (paths, commit subjects and authors, server words) is placed literally
(rich Text, never markup), cleaned and masked (``changes_tables.shown``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from tui.app.widgets.workspace.changes_tables import CommitsTable, FilesTable, shown
from tui.app.widgets.workspace.diff_view import DiffView
from tui.models.redact import redact_text
from tui.models.workspace import GitChange, GitCommitsPage
from tui.text import one_line

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer

    from tui.app.screens.changes.loading import Source

#: Seconds between redraws of the status line while counts arrive.
STATUS_EVERY_S = 0.1
BASE_WORDS = "against the server's base"
HEAD_WORDS = "uncommitted only (against HEAD)"


def ago(seconds: float) -> str:
    """``12 s ago``: how long since the view last read the workspace."""
    if seconds < 1:
        return "just now"
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return f"{int(seconds // 3600)} h ago"


class StatusMixin:
    """Part of :class:`~.screen.ChangesScreen`, which provides what is declared here."""

    app: App
    conversation_id: str
    source: Source
    root: str | None
    changes: list[GitChange] | None
    list_error: str
    commits_page: GitCommitsPage | None
    commits_error: str
    counted: dict[str, tuple[int, int] | None | str]
    updated_at: datetime | None
    pane: str
    reading: bool
    patch_status: str
    _title: Callable[[], str | None]
    _following: Callable[[], bool]
    _shown_title: str
    _status_due: Timer | None

    def title_text(self) -> str:
        """``Changes · <the conversation's title>`` (its id until the record is read)."""
        return f"Changes · {one_line(redact_text(self._title() or self.conversation_id), 120)}"

    def listing_arrived(self) -> None:
        changes = self.changes or []
        table = self.query_one("#changes-files", FilesTable)
        table.show(changes, self.counted)  # a refresh keeps the counts until new ones come
        self.set_class(not changes, "-empty")
        self._say_empty()
        self._title_files()
        self.draw_status()
        if self.pane == "files":
            self._show_pane("files")  # the table, hidden while it was empty, takes the keys
        self._choose_file(changes)

    def listing_failed(self) -> None:
        """Said where the files would be; a refresh that fails keeps the files it had (the
        status line says why they may be out of date)."""
        if self.changes is None:
            self.set_class(True, "-empty")
            self._say_empty()
            self.query_one(DiffView).say("")
        self.draw_status()

    def commits_arrived(self) -> None:
        table = self.query_one("#changes-commits", CommitsTable)
        note = self.query_one("#commits-note", Static)
        page = self.commits_page
        if page is not None:
            more = " · more before" if page.has_more else ""
            table.border_title = f"Commits · {len(page.commits):,}{more}"
            note.update(Text("No commits yet."))
        else:
            note.update(Text(self.commits_error, style="bold"))
        self.set_class(page is None or not page.commits, "-no-commits")
        if self.pane == "commits":
            self._show_pane("commits")
        self._say_empty()

    def _say_empty(self) -> None:
        """The files pane when it has no rows: why (a failure, no repository, no changes)."""
        note = self.query_one("#changes-note", Static)
        if self.list_error:
            note.update(Text(self.list_error, style="bold"))
            return
        if self.changes is None:
            note.update(Text("Reading the changes…"))
            return
        source = self.source
        if source.commit is not None:
            note.update(Text("This commit changed no file under the working directory."))
            return
        page, where = self.commits_page, self.root or "the working directory"
        if page is not None and not page.commits:
            note.update(
                Text(
                    f"No changes and no commits: {where} is not a git repository "
                    "(or one with neither commits nor files yet)."
                )
            )
        elif source.ref == "HEAD":
            note.update(Text("No uncommitted changes: the working tree is as HEAD has it."))
        else:
            note.update(Text("No changes against the base: the working tree is clean."))

    def _title_files(self) -> None:
        table = self.query_one("#changes-files", FilesTable)
        commit = self.source.commit
        count = f"{len(self.changes or []):,}"
        table.border_title = (
            f"Files of {commit.short_sha} · {count}" if commit is not None else f"Files · {count}"
        )
        table.border_subtitle = "esc: the working tree" if commit is not None else ""

    def title_diff(self, change: GitChange) -> None:
        self.refresh_bindings()  # e applies to the file shown
        view = self.query_one(DiffView)
        found = self.counted.get(change.path)
        figures = f" · +{found[0]:,} −{found[1]:,}" if isinstance(found, tuple) else ""
        view.border_title = Text(f"{self.shown_name(change.path)} · {change.status.value}{figures}")
        mode = "side by side" if view.side_by_side else "unified"
        other = "unified" if view.side_by_side else "side by side"
        view.border_subtitle = f"{mode} · s: {other}"

    def shown_name(self, path: str) -> str:
        return shown(path, 200)

    def draw_status(self) -> None:
        """The line under the title: which base, how much changed, when it was read."""
        if self.closing:
            return
        title = self.title_text()
        if title != self._shown_title:
            self._shown_title = title
            self.query_one("#changes-title", Static).update(Text(title))
        status = self.query_one("#changes-status", Static)
        source = self.source
        if source.commit is not None:
            commit = source.commit
            said = f"{shown(commit.short_sha, 12)} · {shown(commit.subject, 120)}"
            parts = [f"commit {said} · {shown(commit.author, 40)}"]
        else:
            parts = [HEAD_WORDS if source.ref == "HEAD" else BASE_WORDS]
        changes = self.changes
        if changes is not None and not self.list_error:
            parts.append(self._figures(changes))
        if self.patch_status:
            parts.append(self.patch_status)
        elif self.reading:
            parts.append("reading…")
        elif self.updated_at is not None and source.commit is None:
            seconds = (self.app.clock() - self.updated_at).total_seconds()
            following = " · live" if self._following() else ""
            parts.append(f"updated {ago(max(0.0, seconds))}{following}")
        text = Text(" · ".join(parts))
        if self.list_error:
            shown_before = self.changes is not None
            text = Text(f"Not read again: {self.list_error}" if shown_before else self.list_error)
        status.set_class(bool(self.list_error), "-error")
        status.update(text)

    def status_soon(self) -> None:
        """Redraw the status line shortly (counts arrive by the hundred: one redraw each
        would sum 2,000 files 2,000 times)."""
        if self._status_due is None:
            self._status_due = self.set_timer(STATUS_EVERY_S, self._status_now)

    def _status_now(self) -> None:
        self._status_due = None
        self.draw_status()

    def _figures(self, changes: list[GitChange]) -> str:
        files = f"{len(changes):,} file" + ("" if len(changes) == 1 else "s")
        found = [self.counted.get(change.path) for change in changes]
        known = [one for one in found if isinstance(one, tuple)]
        added, removed = sum(f[0] for f in known), sum(f[1] for f in known)
        waiting = sum(1 for change in changes if change.path not in self.counted)
        counting = f" (counting {len(changes) - waiting:,}/{len(changes):,})" if waiting else ""
        return f"{files} +{added:,} −{removed:,}{counting}" if changes else files

    def _redraw(self) -> None:
        """The tables' colours follow the theme (their cells carry styles)."""
        if self.changes is not None:
            self.query_one("#changes-files", FilesTable).redraw(self.counted)
        if self.commits_page is not None:
            self.query_one("#changes-commits", CommitsTable).show(self.commits_page.commits)
