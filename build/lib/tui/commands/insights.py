"""``ohtui insights``: where a conversation's time and money went, without the UI.

Named like ``ohtui export``: an id (read from the configured server, else the bundled demo
server), a local conversation folder (``ohtui insights FOLDER``), or ``--local DIR [ID]``
(served read-only on loopback by the folder server and read over HTTP like any other).
Markdown for people, JSON for scripts; a failure is one titled message with the next step.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from tui.text import say

from .target import OpenFolder, Target, open_target, output_for

if TYPE_CHECKING:
    from tui.safe_output import Destination

PROG = "ohtui insights"


def run_insights(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    from tui.insights.load import collect_insights
    from tui.insights.report import render

    where = output_for(args.output, PROG)
    if where is None:
        return 1
    target = open_target(args, open_folder, PROG)
    if not isinstance(target, Target):
        return target
    client = target.client

    async def run() -> str:
        async with client:
            cid = await target.conversation_id(PROG)
            found = await collect_insights(client, cid, shared=args.shared)
            return render(found, args.format)

    failed, text = target.attempt(PROG, lambda: asyncio.run(run()))
    if failed is not None:
        return failed
    return _write(text, where)


def _write(text: str, where: Destination) -> int:
    """To standard output, or by :mod:`tui.safe_output` (a file appears whole or not at all,
    a device or FIFO is written as a stream, a link is followed once and said)."""
    from tui.safe_output import OutputError, reader_gone, write_text

    try:
        write_text(where, text)
    except KeyboardInterrupt:  # e.g. waiting for a FIFO's reader
        return 130
    except BrokenPipeError:  # standard output's reader went away (`| head`): not an error
        reader_gone()
        return 0
    except OutputError as exc:
        say(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    if where.kind != "stdout":
        say(f"wrote the insights to {where}", file=sys.stderr)
    return 0
