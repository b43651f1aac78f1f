"""What the Changes view reads from the workspace, in workers: the changed files, the
commits, each file's +/− counts and the selected file's diff.

Every call goes through the client (the widgets never see a URL or JSON); the rows of a
diff and its counts are worked out in a thread (:mod:`tui.app.workspace.diff_rows`), never on the
UI's loop. The counts fill in file by file, a few requests at a time
(:data:`COUNT_CONCURRENCY`), so 2,000 changed files neither flood the server nor wait for
each other. A result that comes back for a view no longer shown (another base, another
commit, the screen gone) is dropped.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from textual import work

from tui.app.screens.dialogs.errors import server_words
from tui.app.screens.files.files import (
    PREVIEW_S,  # the same rest before a file under the cursor is read
)
from tui.app.widgets.workspace.changes_tables import PENDING, UNKNOWN, CommitsTable, FilesTable
from tui.app.widgets.workspace.diff_view import DiffView
from tui.app.workspace.diff_rows import build_diff, counts
from tui.lru import LRU
from tui.models.workspace import GitChange, GitCommit, GitCommitsPage, GitDiff

if TYPE_CHECKING:
    from textual.app import App

#: Diffs asked for at once while counting lines.
COUNT_CONCURRENCY = 4
#: Whole-file diffs kept (each side up to the server's 1 MB): the file shown and the last
#: ones counted, so opening a file just counted asks nothing.
DIFFS_KEPT = 8
COMMITS_SHOWN = 50


def said(exc: BaseException) -> str:
    """A failure as the view says it: the server's words (or the client's sentence: a
    paused sandbox, a route this server lacks), as a sentence."""
    words = server_words(exc)
    return words[:1].upper() + words[1:]


@dataclass(frozen=True)
class Source:
    """What the files list shows: the working tree against the server's base (``ref``
    None) or HEAD (``"HEAD"``: uncommitted only), or one commit's changes."""

    ref: str | None = None
    commit: GitCommit | None = None

    @property
    def key(self) -> str:
        return self.commit.sha if self.commit is not None else (self.ref or "base")


class LoadingMixin:
    """Part of :class:`~.screen.ChangesScreen`, which provides what is declared here."""

    app: App
    conversation_id: str
    source: Source
    root: str | None
    changes: list[GitChange] | None  # the listing shown (None until the first arrives)
    list_error: str
    commits_page: GitCommitsPage | None
    commits_error: str
    counted: dict[str, tuple[int, int] | None | str]
    updated_at: datetime | None
    shown_path: str | None
    diffs: LRU[tuple[str, str], GitDiff]
    reading = False  # the listing is on its way

    def make_caches(self) -> None:
        self.diffs = LRU(DIFFS_KEPT)

    # --- the files -----------------------------------------------------------------------------

    @work(exclusive=True, group="changes-list")
    async def load_changes(self) -> None:
        """The files of the current source, then their counts and (where one is due) a diff."""
        source = self.source
        client = self.app.client
        self.reading = True
        self.draw_status()
        try:
            if self.root is None:
                self.root = await client.workspace_root(self.conversation_id)
            if source.commit is not None:
                found = await client.git_commit_changes(self.conversation_id, source.commit.sha)
            else:
                found = await client.git_changes(self.conversation_id, ref=source.ref)
        except Exception as exc:  # noqa: BLE001 - said on the screen; r tries again
            if source == self.source and not self.closing:
                self.reading = False
                self.list_error = said(exc)
                self.listing_failed()
            return
        if source != self.source or self.closing:
            return
        self.reading, self.list_error = False, ""
        if source.commit is None:
            self.updated_at = self.app.clock()
        self.changes = found
        self.listing_arrived()
        self.count_lines(source, found)

    @work(exclusive=True, group="changes-count")
    async def count_lines(self, source: Source, changes: list[GitChange]) -> None:
        """Each file's +/− lines from its diff, a few at a time, into the table as they come."""
        gate = asyncio.Semaphore(COUNT_CONCURRENCY)
        table = self.query_one("#changes-files", FilesTable)

        async def one(change: GitChange) -> None:
            async with gate:
                if source != self.source:
                    return
                try:
                    diff = await self.fetch_diff(source, change.path)
                    found = await asyncio.to_thread(counts, diff.original, diff.modified)
                except Exception:  # noqa: BLE001 - the file's diff says why when opened
                    found = UNKNOWN
            if source == self.source and not self.closing:
                self.counted[change.path] = found
                table.count(change.path, found)
                self.status_soon()  # the totals, once for many counts

        await asyncio.gather(*(one(change) for change in changes))
        if source == self.source and not self.closing:
            self.draw_status()  # the totals at once, not a moment after the last count

    async def fetch_diff(self, source: Source, path: str) -> GitDiff:
        """One file's two texts, from the kept ones or the server."""
        key = (source.key, path)
        found = self.diffs.get(key)
        if found is not None:
            return found
        cid = self.conversation_id
        if source.commit is not None:
            found = await self.app.client.git_diff(cid, path, commit=source.commit.sha)
        else:
            found = await self.app.client.git_diff(cid, path, ref=source.ref)
        self.diffs.set(key, found)
        return found

    # --- one file's diff -----------------------------------------------------------------------

    @work(exclusive=True, group="changes-diff")
    async def load_diff(
        self, change: GitChange, keep_place: bool = False, *, pause: bool = False
    ) -> None:
        """The diff of ``change`` into the diff pane (its rows built in a thread);
        ``pause``: the cursor passing over files rests on this one first (a held j reads
        no diff, repaints no pane and leaves the keys the loop: the next key replaces it)."""
        if pause:
            await asyncio.sleep(PREVIEW_S)
        source, path = self.source, change.path
        view = self.query_one("#changes-diff", DiffView)
        self.shown_path = path
        self.title_diff(change)
        if not keep_place:
            view.say(f"Reading the diff of {self.shown_name(path)}…")
        try:
            diff = await self.fetch_diff(source, path)
        except Exception as exc:  # noqa: BLE001 - said in the pane
            if source == self.source and self.shown_path == path and not self.closing:
                view.say(f"No diff of {self.shown_name(path)}: {server_words(exc)}")
            return
        model = await asyncio.to_thread(build_diff, diff.original, diff.modified)
        if source != self.source or self.shown_path != path or self.closing:
            return
        view.show(model, keep_place=keep_place)
        if self.counted.get(path) in (PENDING, None) and not model.message:
            self.counted[path] = (model.added, model.removed)
            self.query_one("#changes-files", FilesTable).count(path, self.counted[path])
        self.title_diff(change)
        self.draw_status()

    # --- the commits ---------------------------------------------------------------------------

    @work(exclusive=True, group="changes-commits")
    async def load_commits(self) -> None:
        try:
            page = await self.app.client.git_commits(self.conversation_id, limit=COMMITS_SHOWN)
        except Exception as exc:  # noqa: BLE001 - said in the commits pane
            if not self.closing:
                self.commits_error = said(exc)
                self.commits_arrived()
            return
        if self.closing:
            return
        self.commits_page, self.commits_error = page, ""
        self.query_one("#changes-commits", CommitsTable).show(page.commits)
        self.commits_arrived()
