"""The two lists of the Changes view: the changed files and the commits.

Both are :class:`FittedTable` (a DataTable: it draws only the rows in sight, so 2,000
changed files scroll like 20), their columns fitted to the width. A file's row says its
status in the theme's colour, its path literally (a path is untrusted text) and its
+/− line counts, which arrive one by one as they are worked out (:meth:`FilesTable.count`).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.binding import Binding

from tui.app.tables.table_columns import Column, ColumnSpec, fit_columns
from tui.app.themes import theme_style
from tui.app.widgets.common.fitted_table import FittedTable
from tui.models.redact import redact_text
from tui.models.workspace import GitChange, GitCommit
from tui.text import one_line

#: a status's colour: theme variables (added and deleted as the diff's lines)
STATUS_STYLES = {
    "ADDED": "$diff-added",
    "UPDATED": "$warning",
    "DELETED": "$diff-removed",
    "MOVED": "$accent",
}
PENDING = "…"  # a count on its way
UNKNOWN = "—"  # no text to count (binary, empty) or it failed


def file_columns(width: int) -> list[Column]:
    return fit_columns(
        width,
        [
            ColumnSpec("Status", "status", 7),
            ColumnSpec("+", "added", 6, drop=2),
            ColumnSpec("−", "removed", 6, drop=1),
            ColumnSpec("Path", "path", 24, flex=True),
        ],
        floor=16,
        roomy=60,
    )


def commit_columns(width: int) -> list[Column]:
    return fit_columns(
        width,
        [
            ColumnSpec("Commit", "sha", 7),
            ColumnSpec("Subject", "subject", 24, flex=True),
            ColumnSpec("Author", "author", 14, drop=1, grow=24),
            ColumnSpec("Date", "date", 10, drop=2),
        ],
        floor=12,
        roomy=50,
    )


def shown(text: str, limit: int = 1_000) -> str:
    """Untrusted text as a cell: one cleaned line, secrets masked (a path or a commit's
    subject may hold a newline, an escape sequence or a token)."""
    return one_line(redact_text(text[: limit * 2]), limit)


def count_cells(found: tuple[int, int] | None | str) -> tuple[Text, Text]:
    """The +/− cells: numbers, :data:`PENDING` while counting, :data:`UNKNOWN` for none."""
    if isinstance(found, tuple):
        added, removed = found
        return (
            Text(f"+{added:,}", style=theme_style("$diff-added"), justify="right"),
            Text(f"−{removed:,}", style=theme_style("$diff-removed"), justify="right"),
        )
    mark = PENDING if found == PENDING else UNKNOWN
    return Text(mark, style="dim", justify="right"), Text(mark, style="dim", justify="right")


class FilesTable(FittedTable):
    """The changed files, keyed by path (the cursor stays on its file through a refresh)."""

    BINDINGS = [Binding("enter", "select_cursor", "Diff", id="changes.open-file")]

    def __init__(self, **options) -> None:
        super().__init__(file_columns, cursor_type="row", **options)
        self.changes: dict[str, GitChange] = {}

    def show(
        self, changes: Iterable[GitChange], counted: dict[str, tuple[int, int] | None | str]
    ) -> None:
        """Every file anew (``counted``: the counts known so far, by path)."""
        self.changes = {change.path: change for change in changes}
        self.replace_rows(
            (path, self._row_cells(change, counted.get(path, PENDING)))
            for path, change in self.changes.items()
        )

    def redraw(self, counted: dict[str, tuple[int, int] | None | str]) -> None:
        """The same rows in the current theme's colours."""
        self.show(list(self.changes.values()), counted)

    def _row_cells(self, change: GitChange, found: tuple[int, int] | None | str) -> dict[str, Text]:
        added, removed = count_cells(found)
        status = change.status.value
        return {
            "status": Text(status, style=theme_style(STATUS_STYLES.get(status, "$foreground"))),
            "added": added,
            "removed": removed,
            # literal, one line: a file name may hold a newline or an escape sequence
            "path": Text(shown(change.path)),
        }

    def count(self, path: str, found: tuple[int, int] | None | str) -> None:
        """One file's counts arrived."""
        if path in self.changes:
            added, removed = count_cells(found)
            self.put_cell(path, "added", added)
            self.put_cell(path, "removed", removed)

    @property
    def current(self) -> GitChange | None:
        key = self.current_key
        return self.changes.get(key) if key is not None else None


class CommitsTable(FittedTable):
    """The newest commits, newest first, keyed by sha."""

    BINDINGS = [Binding("enter", "select_cursor", "Its files", id="changes.open-commit")]

    def __init__(self, **options) -> None:
        super().__init__(commit_columns, cursor_type="row", **options)
        self.commits: dict[str, GitCommit] = {}

    def show(self, commits: Iterable[GitCommit]) -> None:
        self.commits = {commit.sha: commit for commit in commits}
        self.replace_rows((sha, _commit_cells(commit)) for sha, commit in self.commits.items())

    @property
    def current(self) -> GitCommit | None:
        key = self.current_key
        return self.commits.get(key) if key is not None else None


def _commit_cells(commit: GitCommit) -> dict[str, Text]:
    return {
        "sha": Text(one_line(commit.short_sha, 12), style=theme_style("$accent")),
        "subject": Text(shown(commit.subject)),
        "author": Text(shown(commit.author, 60), style="dim"),
        "date": Text(one_line(commit.timestamp, 40)[:10], style="dim"),
    }


__all__ = ["CommitsTable", "FilesTable", "commit_columns", "count_cells", "file_columns", "shown"]
