"""Files of a conversation's workspace (``F`` in a conversation, palette "Files"): its folders,
the files that can be known to be there, a file's text, and what can be done with them.

What a server can list (see :mod:`tui.client.workspace_listing`): an agent server lists
folders only, so a folder's files are those git lists as changed there, plus any the user
named (``o``: a path, absolute or relative to the folder shown). The screen says so rather
than pretending to list everything. Where a server names its workspace by a relative path
(``"."``, app server 1.11.0's sandboxes) no folder of it can be listed: the screen shows the
files git lists, in the folders holding them, and says why once, in its note line; paths
stay relative to the server's working directory (shown as ``./src``). Moving the cursor
onto a file shows it on the right (after a short pause, so holding a key does not download
every file); enter moves into a folder or into the file's text. A file is shown literally with the theme's syntax colours
(:mod:`tui.app.workspace.file_text`, drawn by :class:`~tui.app.widgets.workspace.file_view.FileView`); a binary,
an empty or a too large one (over 2 MB: never downloaded whole) as its size and a word.
``s`` saves the file to the working directory, ``n`` makes a folder (never with
``--readonly``), ``T`` downloads the trajectory zip (``files_actions.py``).
"""

from __future__ import annotations

import asyncio
import posixpath
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tui.app.refusals import read_only_reason
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.app.screens.files.files_actions import FileActions, failure_words, inside, parent_of
from tui.app.screens.files.files_rows import UP, folder_rows, listing_columns
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.workspace.file_view import FileView
from tui.app.workspace.file_text import MAX_VIEW, FileText, highlight, prepare
from tui.client.downloads import size_words
from tui.models.redact import redact_text
from tui.text import clean, one_line

if TYPE_CHECKING:
    from tui.models.workspace import FolderListing

#: What the screen says of every agent server (none lists files).
FOLDERS_ONLY = (
    "This server lists folders only: files appear when you name them (o) "
    "or when git knows them (changed files)."
)
PREVIEW_S = 0.12  # the cursor rests this long on a file before it is downloaded
CHOOSE = "Choose a file: the cursor on it shows it, enter reads it."
LOADING = "loading…"
EMPTY = (
    "Nothing here that can be listed:",
    "no folder, no file git lists as changed.",
    "",
    "o opens a file or a folder by its path.",
)


def sentence(text: str) -> str:
    return f"{text[:1].upper()}{text[1:]}." if text else ""


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


class FileList(FittedTable):
    """A folder's rows: ``..``, its subfolders, its files; enter opens the one under the cursor."""

    BINDINGS = [Binding("enter", "select_cursor", "Open", id="files.open")]

    def __init__(self) -> None:
        super().__init__(listing_columns, id="files-list", cursor_type="row", zebra_stripes=True)


class FilesScreen(FileActions, Screen[None]):
    BINDING_GROUP_TITLE = "Files"
    CSS_PATH = "files.tcss"
    AUTO_FOCUS = "#files-list"
    BINDINGS = [
        Binding("escape", "back", "Back", id="files.back"),
        Binding("backspace", "up", "Up", id="files.up"),
        Binding("o", "open_path", "Open path", id="files.open-path"),
        Binding("s", "save", "Save", id="files.save"),
        Binding("n", "new_folder", "New folder", id="files.new-folder"),
        Binding("T", "trajectory", "Trajectory zip", id="files.trajectory"),
        Binding("r", "refresh", "Refresh", id="files.refresh"),
        Binding("full_stop", "toggle_hidden", "Hidden folders", show=False, id="files.hidden"),
    ]

    def __init__(self, conversation_id: str, *, title: str | None = None) -> None:
        super().__init__()
        self.conversation_id = conversation_id
        self._title = title
        self.listing: FolderListing | None = None
        self.root: str | None = None
        self.hidden = False
        #: files the user named (o), by absolute path: listed in their folder from then on
        self.named: set[str] = set()
        self.shown_path: str | None = None  # the file the view shows (or says why not)
        self.shown_file: FileText | None = None
        self.error: str | None = None  # why the folder could not be listed
        self.told_inexact = False  # whether "git's text, not exact" was said

    def compose(self) -> ComposeResult:
        yield Static(self._title_text(), id="files-title")
        yield Static(id="files-path")
        yield Static(Text(FOLDERS_ONLY), id="files-note")
        with Horizontal(id="files-body"):
            yield FileList()
            yield FileView(id="file-view")
        yield KeyBar()

    def on_mount(self) -> None:
        view = self.query_one(FileView)
        view.border_title = "File"
        view.show_message(CHOOSE)
        self.query_one(FileList).border_title = "Workspace"
        self._path_line("Listing the workspace…")
        self.load(None)
        if self._title is None:
            self.find_title()

    @work(group="files-title", exit_on_error=False)
    async def find_title(self) -> None:
        """The conversation's title, when it was opened before its record came."""
        try:
            (record,) = await self.app.client.get_conversations(  # type: ignore[attr-defined]
                [self.conversation_id]
            )
        except Exception:  # noqa: BLE001 - the id stays in the title: nothing is lost
            return
        if record is not None and record.title:
            self._title = record.title
            for line in self.query("#files-title").results(Static):
                line.update(self._title_text())

    def _title_text(self) -> Text:
        name = one_line(redact_text(self._title or self.conversation_id), 120)
        return Text(f"Files · {name}")

    # --- the folder --------------------------------------------------------------------------

    @property
    def folder(self) -> str | None:
        return self.listing.path if self.listing is not None else None

    @work(exclusive=True, group="files-list", exit_on_error=False)
    async def load(self, path: str | None, select: str | None = None) -> None:
        """List ``path`` (the working directory when None) and show it, the cursor on
        ``select`` (a row key) or on the folder just left."""
        if path is not None:
            self._path_line(f"Listing {path}…")
        try:
            listing = await self.app.client.folder_listing(  # type: ignore[attr-defined]
                self.conversation_id, path, include_hidden=self.hidden
            )
        except Exception as exc:  # noqa: BLE001 - said on screen; r tries again
            self._failed(path, exc)
            return
        left = self.folder
        self.listing, self.error = listing, None
        self.root = self.root or listing.root
        if select is None and left is not None and parent_of(left) == listing.path:
            select = f"d:{left}"
        self._fill(listing, select)

    def _failed(self, path: str | None, exc: BaseException) -> None:
        words = failure_words(exc)
        self.error = words
        if self.listing is None:  # nothing listed yet: the view says what to do
            self.query_one(FileView).show_message(
                words,
                "",
                "r lists the folder again · T downloads the trajectory zip (it needs no sandbox)",
            )
        self._path_line(self.folder or path or "the workspace")
        self._note(f"Could not list {path or 'the workspace'}: {words}", error=True)
        self.refresh_bindings()

    def _fill(self, listing: FolderListing, select: str | None) -> None:
        table = self.query_one(FileList)
        shown = folder_rows(listing, self.named, up=self._can_go_up())
        table.replace_rows(shown.rows)
        if select is None or not table.cursor_to(select):
            table.action_first()
        view = self.query_one(FileView)
        if self.shown_path is None and view.border_subtitle != LOADING:  # say what to do here
            view.border_title, view.border_subtitle = "File", ""
            view.show_message(*(EMPTY if not shown.folders and not shown.files else (CHOOSE,)))
        table.border_title = Text(self._shown_name(listing.path))
        counts = f"{plural(shown.folders, 'folder')} · {plural(shown.files, 'file')}"
        table.border_subtitle = counts + (" · more not listed" if listing.more_folders else "")
        self._path_line(self._shown_name(listing.path) if listing.relative else listing.path)
        notes = [*listing.notes]
        self._note(" ".join(notes) if notes else FOLDERS_ONLY, error=False, warn=bool(notes))
        self.refresh_bindings()

    def _shown_name(self, path: str) -> str:
        """``project/src``: the folder under the workspace's own name (absolute outside it);
        ``./src`` where the workspace is named relatively (it has no name of its own)."""
        if not posixpath.isabs(path):
            shown = "./" if path == "." else path if path.startswith("..") else f"./{path}"
            return clean(shown)
        root = self.root
        if root and inside(path, root):
            rest = path[len(root) :].strip("/")
            base = posixpath.basename(root.rstrip("/")) or root
            return clean(f"{base}/{rest}" if rest else base)
        return clean(path)

    def _can_go_up(self) -> bool:
        folder = self.folder
        if folder is None or folder in ("/", self.root):
            return False
        return posixpath.isabs(folder) or inside(folder, ".")

    def _path_line(self, text: str) -> None:
        for line in self.query("#files-path").results(Static):
            line.update(Text(clean(text)))

    def _note(self, text: str, *, error: bool = False, warn: bool = False) -> None:
        for line in self.query("#files-note").results(Static):
            line.set_class(error, "-error")
            line.set_class(warn and not error, "-warning")
            line.update(Text(clean(text)))

    # --- choosing ----------------------------------------------------------------------------

    def _current_key(self) -> str | None:
        return self.query_one(FileList).current_key

    @on(DataTable.RowHighlighted, "#files-list")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value or ""
        if key.startswith("f:") and key[2:] != self.shown_path:
            self.show_file(key[2:], pause=True)
        self.refresh_bindings()

    @on(DataTable.RowSelected, "#files-list")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value or ""
        if key == UP:
            self.action_up()
        elif key.startswith("d:"):
            self.load(key[2:])
        elif key.startswith("f:"):
            path = key[2:]
            if path == self.shown_path:
                self.query_one(FileView).focus()
            else:
                self.show_file(path, focus=True)

    # --- a file ------------------------------------------------------------------------------

    @work(exclusive=True, group="files-view", exit_on_error=False)
    async def show_file(
        self, path: str, *, pause: bool = False, focus: bool = False, named: bool = False
    ) -> None:
        """Show the file ``path``; ``named``: the user typed it (a folder of that name is
        listed instead, and a file is remembered in its folder's listing)."""
        if pause:
            await asyncio.sleep(PREVIEW_S)  # the cursor moves on: this worker is replaced
        from tui.client import NotAFile, TooLarge

        view = self.query_one(FileView)
        name = posixpath.basename(path) or path
        view.border_title = Text(clean(name))
        view.border_subtitle = LOADING
        try:
            read = await self.app.client.view_file(  # type: ignore[attr-defined]
                self.conversation_id, path, max_bytes=MAX_VIEW
            )
        except TooLarge as exc:
            size = f"{size_words(exc.size)}, " if exc.size else ""
            self._shown(path, None, named)
            view.border_subtitle = "too large to show"
            view.show_message(
                f"Too large to show here ({size}over {size_words(MAX_VIEW)}).",
                "s saves it to the working directory.",
            )
            return
        except Exception as exc:  # noqa: BLE001 - said where the text would be
            if named and isinstance(exc, NotAFile):  # a folder was named: list it instead
                self.shown_path, self.shown_file = None, None
                view.border_title, view.border_subtitle = "File", ""
                view.show_message(CHOOSE)
                self.load(path)
                return
            view.border_subtitle = "not shown"
            view.show_message(failure_words(exc))
            if path == self.shown_path:
                self.shown_path, self.shown_file = None, None
            self.refresh_bindings()
            return
        found = await asyncio.to_thread(prepare, read.data, name)
        self._shown(path, found, named)
        inexact = "" if read.exact else " · git's text, not exact"
        view.border_subtitle = f"{size_words(found.size)} · {found.describe()}{inexact}"
        said = sentence(read.note or "")
        if not read.exact and read.data and not self.told_inexact:
            self.told_inexact = True  # said once: every file here is read the same way
            self.notify(said, timeout=10, markup=False)
        if not read.exact and found.kind == "empty":
            view.show_message(said)
        elif found.kind == "binary":
            view.show_message(
                f"A binary file ({size_words(found.size)}): not shown.",
                "s saves it to the working directory.",
            )
        elif found.kind == "empty":
            view.show_message("An empty file (0 bytes).")
        else:
            view.show_file(found)
        if focus:
            view.focus()
        if found.kind == "text" and found.language:
            view.colour(found, await asyncio.to_thread(highlight, found.lines, name))

    def _shown(self, path: str, found: FileText | None, named: bool) -> None:
        self.shown_path, self.shown_file = path, found
        if named and path not in self.named:
            self.named.add(path)
            listing = self.listing
            if listing is not None and parent_of(path) == listing.path:
                self._fill(listing, f"f:{path}")
            elif listing is not None and listing.relative and inside(path, listing.path):
                self._fill(listing, self._current_key())  # its folder is known from now on
        self.refresh_bindings()

    def target_file(self) -> str | None:
        """The file ``s`` saves: the one under the list's cursor, else the one shown."""
        if isinstance(self.focused, FileList):
            key = self._current_key() or ""
            if key.startswith("f:"):
                return key[2:]
        return self.shown_path

    # --- keys --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "new_folder":
            listing = self.listing
            return (
                not self.app.readonly  # type: ignore[attr-defined]
                and listing is not None
                and not listing.relative
            )
        if action == "save":
            return self.target_file() is not None
        if action == "up":
            return self._can_go_up()
        return True

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action == "new_folder":
            if self.app.readonly:  # type: ignore[attr-defined]
                return read_only_reason(self.app)
            if self.listing is not None and self.listing.relative:
                return (
                    f"This server names its workspace '{clean(self.root or '.')}', a relative "
                    "path: no folder can be made in it."
                )
            return "The folder is not listed yet: r lists it again."
        if action == "save":
            return "No file chosen: put the cursor on a file, or name one with o."
        if action == "up":
            return "This is the workspace's top folder (o opens any path)."
        return None

    def action_back(self) -> None:
        if isinstance(self.focused, FileView):
            self.query_one(FileList).focus()
        else:
            self.dismiss(None)

    def action_up(self) -> None:
        folder = self.folder
        if folder is not None and self._can_go_up():
            self.load(parent_of(folder), select=f"d:{folder}")

    def action_refresh(self) -> None:
        self.load(self.folder)
        if self.shown_path is not None:
            self.show_file(self.shown_path)

    def action_toggle_hidden(self) -> None:
        self.hidden = not self.hidden
        self.notify(
            "Hidden folders are listed." if self.hidden else "Hidden folders are left out.",
            markup=False,
        )
        self.load(self.folder)

    def _server_path(self, text: str) -> str:
        """A typed path as the server names it: absolute as it is, else joined to the folder
        shown (and so relative where the workspace is named relatively)."""
        base = self.folder or self.root or "/"
        path = text if text.startswith("/") else posixpath.join(base, text)
        return posixpath.normpath(path).replace("//", "/")

    def action_open_path(self) -> None:
        folder = self.folder or self.root or ""
        # a relative folder is not typed again: the text is taken relative to it
        start = folder.rstrip("/") + "/" if posixpath.isabs(folder) else ""

        def chosen(text: str | None) -> None:
            if not text or not self.is_attached:
                return
            path = self._server_path(text)
            if text.endswith("/"):
                self.load(path)
            else:
                self.show_file(path, focus=True, named=True)

        self.app.push_screen(
            PathDialog(
                "Open a file or a folder",
                "A path, absolute or relative to the folder shown; ending in / opens a folder.",
                value=start,
            ),
            chosen,
        )


__all__ = ["FOLDERS_ONLY", "FilesScreen"]
