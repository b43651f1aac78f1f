"""``ohtui download``: a conversation's trajectory (its folder of events and state, as the
server keeps it) as a zip, without the UI; ``ohtui FILE.zip`` opens one.

Connected like ``ohtui export`` (the same settings, profiles and bundled demo server). The
zip comes from the app server's store (``/api/v1/app-conversations/{id}/download``: any
sandbox state) or the agent server's conversation folder
(``/api/file/download-trajectory/{id}``), streamed to its file as it arrives and bounded. It
goes where ``-o`` says (a file replaced whole, a device or FIFO as a stream, ``-`` standard
output unless that is a terminal), else to a new file in the working directory
(``ohtui-<id8>-trajectory.zip``, never over anything): through :mod:`tui.safe_output`, bytes
exactly. What was written and how to open it goes to standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from tui.text import say

from .target import OpenFolder, Target, looks_like_folder, open_target

PROG = "ohtui download"


def run_download(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    from tui.safe_output import OutputError, destination

    cid = args.conversation
    if cid and looks_like_folder(cid):
        say(
            f"{PROG}: {cid} is a local folder: it is a trajectory already (`ohtui {cid}` opens it)",
            file=sys.stderr,
        )
        return 2
    if not cid:
        say(f"{PROG}: name a conversation (its id or the start of it)", file=sys.stderr)
        say(f"usage: {PROG} ID [-o FILE]", file=sys.stderr)
        return 2
    where = None  # a name ohtui picks (never over anything) waits for the whole id
    if args.output is not None:
        try:  # checked before anything is asked of the server
            where = destination(args.output)
        except OutputError as exc:
            say(f"{PROG}: {exc}", file=sys.stderr)
            return 1
        if where.kind == "stdout" and sys.stdout.isatty():
            say(
                f"{PROG}: a zip is no text for a terminal: name a file (-o FILE) or pipe it",
                file=sys.stderr,
            )
            return 2
    target = open_target(args, open_folder, PROG)
    if not isinstance(target, Target):
        return target
    code, done = _download(target, where)
    if done is not None:
        _summary(*done)
    return code


def _download(target: Target, chosen: Any) -> tuple[int, tuple[str, int, Any] | None]:
    """The status and, once written, ``(whole id, size, where it went)``. ``chosen`` is
    ``-o``'s destination, else a new file in the working directory named by the id."""
    from tui.safe_output import (
        destination,
        open_output,
        safe_name,
        unused_name,
    )

    client = target.client

    async def run() -> tuple[str, int, Any]:
        async with client:
            cid = await target.conversation_id(PROG)
            where = chosen
            if where is None:
                named = unused_name(f"ohtui-{safe_name(cid, 8)}-trajectory", "zip")
                where = destination(named, exclusive=True)
            with open_output(where, exclusive=chosen is None, binary=True) as out:
                return cid, (await client.download_trajectory(cid, out.write)).size, where

    failed, done = target.attempt(PROG, lambda: asyncio.run(run()))
    return (failed or 0), done


def _summary(cid: str, size: int, where: Any) -> None:
    from tui.client.downloads import size_words

    if where.kind == "stdout":
        say(
            f"wrote the trajectory of {cid} ({size_words(size)}) to standard output",
            file=sys.stderr,
        )
        return
    say(f"wrote the trajectory of {cid} ({size_words(size)}) to {where}", file=sys.stderr)
    if where.kind == "file":
        say(f"  open it read-only: ohtui {where.named}", file=sys.stderr)
