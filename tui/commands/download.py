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
    from tui.safe_output import OutputError, destination, safe_name, unused_name

    cid = args.conversation
    if cid and looks_like_folder(cid):
        say(
            f"{PROG}: {cid} is a local folder: it is a trajectory already (`ohtui {cid}` opens it)",
            file=sys.stderr,
        )
        return 2
    if not cid:
        say(f"{PROG}: name a conversation (its id)", file=sys.stderr)
        say(f"usage: {PROG} ID [-o FILE]", file=sys.stderr)
        return 2
    exclusive = args.output is None  # a name ohtui picks is never over anything
    try:  # checked before anything is asked of the server
        named = args.output or unused_name(f"ohtui-{safe_name(cid, 8)}-trajectory", "zip")
        where = destination(named, exclusive=exclusive)
    except (OutputError, FileExistsError) as exc:
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
    code, size = _download(target, cid, where, exclusive)
    if code == 0:
        _summary(cid, size, where)
    return code


def _download(target: Target, cid: str, where: Any, exclusive: bool) -> tuple[int, int]:
    from tui.safe_output import OutputError, open_output, reader_gone

    client, stop = target.client, target.stop

    async def run(write: Any) -> int:
        async with client:
            return (await client.download_trajectory(cid, write)).size

    try:
        with open_output(where, exclusive=exclusive, binary=True) as out:
            size = asyncio.run(run(out.write))
    except KeyboardInterrupt:
        return 130, 0
    except BrokenPipeError:  # the reader went away (`| head`): not an error
        reader_gone()
        return 0, 0
    except OutputError as exc:
        say(f"{PROG}: {exc}", file=sys.stderr)
        return 1, 0
    except Exception as exc:  # noqa: BLE001 - one message, never a traceback
        target.report(PROG, exc)
        return 1, 0
    finally:
        if stop is not None:
            stop()
    return 0, size


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
