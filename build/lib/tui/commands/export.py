"""``ohtui export``: one conversation as Markdown or JSONL, without the UI.

The conversation is named by id (read from the configured server, else the bundled demo
server) or is a local conversation folder (``ohtui export FOLDER``, ``--local DIR [ID]``),
served read-only on loopback by the same folder server the app uses and read over HTTP like
any other: one export path, whatever the source. A failure is one titled message with the
next step, never a traceback. The output goes by :mod:`tui.safe_output`: a file appears whole
or not at all, a device or FIFO is written as a stream, a link is followed once and said.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from tui.text import say

from .target import OpenFolder, Target, open_target, output_for

PROG = "ohtui export"


def run_export(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    from tui.export import format_for
    from tui.safe_output import open_output

    where = output_for(args.output, PROG)
    if where is None:
        return 1
    target = open_target(args, open_folder, PROG)
    if not isinstance(target, Target):
        return target
    client = target.client
    fmt = format_for(args.output, args.format)

    async def run(write: Any) -> tuple[str, int]:
        from tui.export import export_conversation

        async with client:
            cid = await target.conversation_id(PROG)
            return cid, await export_conversation(client, cid, write, fmt=fmt, shared=args.shared)

    def go() -> tuple[str, int]:
        with open_output(where) as out:
            return asyncio.run(run(out.write))

    failed, done = target.attempt(PROG, go)
    if failed is not None or done is None:
        return failed or 0
    cid, count = done
    if count == 0:
        say(f"{PROG}: warning: conversation {cid!r} has no events", file=sys.stderr)
    if where.kind != "stdout":
        say(f"wrote {count} event(s) to {where}", file=sys.stderr)
    return 0
