"""What the Files screen does to files besides showing them: save one to the working
directory, make a folder in the workspace, download the conversation's trajectory zip; and
why any of it failed, in words.

Saving never writes over anything: a free name is picked the way ``ctrl+s`` picks one
(``unused_name``: ``README.md``, ``README-2.md``…, from the server's name cut to safe
characters), and the file is written through :mod:`tui.safe_output` (the one writer of
output files) exclusively: it appears whole under that name, or not at all. The bytes are
streamed from the server to the file as they come (bounded by :data:`MAX_SAVE`), so a large
file never sits in memory; only opening and the final rename (with its ``fsync``) run in a
thread.
"""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual import work

from tui.app.screens.dialogs.errors import describe_error, server_words
from tui.app.screens.dialogs.path_dialog import PathDialog
from tui.client.downloads import size_words
from tui.safe_output import open_output, safe_name, unused_name
from tui.text import clean

if TYPE_CHECKING:
    from textual.app import App

    from tui.app.workspace.file_text import FileText
    from tui.safe_output import Destination

T = TypeVar("T")

#: Largest file saved from a workspace (the client stops reading past it).
MAX_SAVE = 512 * 1024 * 1024


def failure_words(exc: BaseException) -> str:
    """Why a workspace call failed, as a sentence: a sandbox that is not running and a route
    the server lacks in the client's words (they say what to do, and which server), an
    answer from the server in its own words, anything else in one line."""
    from tui.client import (
        CutShort,
        HTTPStatusError,
        NotAFile,
        SandboxNotRunning,
        TooLarge,
        Unsupported,
    )

    if isinstance(exc, (SandboxNotRunning, Unsupported, TooLarge, NotAFile, CutShort)):
        text = clean(" ".join(str(exc).split()))
        text = text[:1].upper() + text[1:]
        return text if text.endswith(".") else f"{text}."
    if isinstance(exc, HTTPStatusError) and exc.status is not None:
        return server_words(exc)
    return describe_error(exc)


def inside(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or under it (both absolute on the server, or both relative to
    its working directory, ``"."`` for that one)."""
    if folder == ".":
        return not posixpath.isabs(path) and path != ".." and not path.startswith("../")
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def parent_of(path: str) -> str:
    """The folder holding ``path``: ``"/"`` at the top of the file system, ``"."`` (the
    server's working directory) above a relative name."""
    if posixpath.isabs(path):
        return posixpath.dirname(path.rstrip("/")) or "/"
    return posixpath.normpath(posixpath.join(path, ".."))


def local_name(remote: str) -> tuple[str, str]:
    """``(stem, suffix)`` of a file's name from the server, safe for this file system
    (``refunds.py`` → ``refunds``, ``py``; ``Makefile`` → ``Makefile``, ``""``)."""
    base = posixpath.basename(remote.rstrip("/"))
    stem, dot, suffix = base.rpartition(".")
    if not dot or not stem.strip("."):
        return safe_name(base, 80), ""
    return safe_name(stem, 80), safe_name(suffix, 16)


async def write_new_file(
    stem: str, suffix: str, fetch: Callable[[Callable[[bytes], Any]], Awaitable[T]]
) -> tuple[Destination, T]:
    """A new file in the working directory (``stem.suffix`` or the first free ``stem-N``)
    holding what ``fetch(write)`` writes; it appears only when ``fetch`` returns."""
    path = await asyncio.to_thread(unused_name, stem, suffix)
    writer = open_output(path, exclusive=True, binary=True)
    out = await asyncio.to_thread(writer.__enter__)
    try:
        got = await fetch(out.write)
    except BaseException as exc:  # cancelled too: the temporary file goes, nothing is named
        writer.__exit__(type(exc), exc, exc.__traceback__)
        raise
    await asyncio.to_thread(writer.__exit__, None, None, None)
    return out.destination, got


async def trajectory_to_cwd(app: App, conversation_id: str) -> None:
    """Download the conversation's trajectory zip into the working directory and say where
    (or why not); run as a worker of the screen that asked."""
    client = app.client  # type: ignore[attr-defined]
    app.notify("Downloading the trajectory zip…", timeout=3, markup=False)
    stem = f"ohtui-{safe_name(conversation_id, 8)}-trajectory"
    try:
        dest, got = await write_new_file(
            stem, "zip", lambda write: client.download_trajectory(conversation_id, write)
        )
    except Exception as exc:  # noqa: BLE001 - said, never raised
        app.notify(
            f"Could not download the trajectory zip: {failure_words(exc)}",
            severity="error",
            timeout=10,
            markup=False,
        )
        return
    app.notify(
        f"Saved the trajectory zip ({size_words(got.size)}) to {dest}. "
        f"`ohtui {posixpath.basename(dest.path)}` opens it as a folder.",
        timeout=10,
        markup=False,
    )


class FileActions:
    """Part of :class:`~.files.FilesScreen`, which provides what is declared here: the keys
    that do something to a file or the workspace (``s``, ``n``, ``T``)."""

    app: App
    conversation_id: str
    shown_path: str | None
    shown_file: FileText | None
    # and, from the screen: folder, target_file(), _server_path(), load(), notify(),
    # run_worker(), is_attached

    def action_save(self) -> None:
        path = self.target_file()
        if path is not None:
            self.save_file(path)

    @work(group="files-save", exit_on_error=False)
    async def save_file(self, path: str) -> None:
        name = clean(posixpath.basename(path))
        stem, suffix = local_name(path)
        client = self.app.client  # type: ignore[attr-defined]
        masked = path == self.shown_path and self.shown_file is not None and self.shown_file.masked
        try:
            dest, got = await write_new_file(
                stem,
                suffix,
                lambda write: client.download_file(
                    self.conversation_id, path, write, max_bytes=MAX_SAVE
                ),
            )
        except Exception as exc:  # noqa: BLE001 - said, never raised
            self.notify(
                f"Could not save {name}: {failure_words(exc)}",
                severity="error",
                timeout=10,
                markup=False,
            )
            return
        exactly = " exactly (its secret-shaped text is masked on screen only)" if masked else ""
        self.notify(
            f"Saved {name} ({size_words(got.size)}){exactly} to {dest}", timeout=8, markup=False
        )

    def action_new_folder(self) -> None:
        folder = self.folder
        if folder is None:
            return

        def chosen(text: str | None) -> None:
            if text and self.is_attached:
                self.make_folder(self._server_path(text))

        self.app.push_screen(
            PathDialog(
                "New folder",
                f"In {clean(folder)}: a name, or a path (its missing parents are made too).",
                placeholder="name",
            ),
            chosen,
        )

    @work(group="files-mkdir", exit_on_error=False)
    async def make_folder(self, path: str) -> None:
        client = self.app.client  # type: ignore[attr-defined]
        try:
            await client.create_directory(path, conversation_id=self.conversation_id)
        except Exception as exc:  # noqa: BLE001 - said, never raised
            self.notify(
                f"Could not create {clean(path)}: {failure_words(exc)}",
                severity="error",
                timeout=10,
                markup=False,
            )
            return
        self.notify(f"Created the folder {clean(path)}", markup=False)
        folder = self.folder
        if folder is not None and inside(path, folder) and path != folder:
            child = posixpath.join(folder, path[len(folder) :].strip("/").split("/")[0])
            self.load(folder, select=f"d:{child}")

    def action_trajectory(self) -> None:
        self.run_worker(
            trajectory_to_cwd(self.app, self.conversation_id),
            group="files-trajectory",
            exit_on_error=False,
        )


__all__ = [
    "MAX_SAVE",
    "FileActions",
    "failure_words",
    "inside",
    "local_name",
    "parent_of",
    "trajectory_to_cwd",
    "write_new_file",
]
