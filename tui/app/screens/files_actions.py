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

from tui.safe_output import open_output, safe_name, unused_name
from tui.text import clean

from .errors import describe_error, server_words

if TYPE_CHECKING:
    from textual.app import App

    from tui.safe_output import Destination

T = TypeVar("T")

#: Largest file saved from a workspace (the client stops reading past it).
MAX_SAVE = 512 * 1024 * 1024


def failure_words(exc: BaseException) -> str:
    """Why a workspace call failed, as a sentence: a sandbox that is not running and a route
    the server lacks in the client's words (they say what to do, and which server), an
    answer from the server in its own words, anything else in one line."""
    from tui.client import HTTPStatusError, SandboxNotRunning, TooLarge, Unsupported

    if isinstance(exc, (SandboxNotRunning, Unsupported, TooLarge)):
        text = clean(" ".join(str(exc).split()))
        text = text[:1].upper() + text[1:]
        return text if text.endswith(".") else f"{text}."
    if isinstance(exc, HTTPStatusError) and exc.status is not None:
        return server_words(exc)
    return describe_error(exc)


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
    from tui.client.downloads import size_words

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


__all__ = ["MAX_SAVE", "failure_words", "local_name", "trajectory_to_cwd", "write_new_file"]
