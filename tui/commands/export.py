"""``ohtui export``: one conversation as Markdown or JSONL, without the UI.

The conversation is named by id (read from the configured server, else the bundled demo
server) or is a local conversation folder (``ohtui export FOLDER``, ``--local DIR [ID]``),
served read-only on loopback by the same folder server the app uses and read over HTTP like
any other: one export path, whatever the source. A failure is one titled message with the
next step, never a traceback; a half-written file is never left behind.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from tui.text import say

from .target import OpenFolder, Target, open_target

PROG = "ohtui export"


def run_export(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    from tui.export import ExportError, format_for

    target = open_target(args, open_folder, PROG)
    if not isinstance(target, Target):
        return target
    client, stop = target.client, target.stop
    fmt = format_for(args.output, args.format)
    to_file = bool(args.output) and args.output != "-"
    part = f"{args.output}.part" if to_file else None

    async def run(write: Any) -> tuple[str, int]:
        from tui.export import export_conversation

        async with client:
            cid = await target.conversation_id(PROG, ExportError)
            return cid, await export_conversation(client, cid, write, fmt=fmt, shared=args.shared)

    try:
        if to_file:
            with open(part, "w", encoding="utf-8", errors="replace", newline="\n") as out:
                cid, count = asyncio.run(run(out.write))
            os.replace(part, args.output)
        else:
            if hasattr(sys.stdout, "reconfigure"):
                sys.stdout.reconfigure(encoding="utf-8", errors="replace")
            cid, count = asyncio.run(run(sys.stdout.write))
            sys.stdout.flush()
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - one message, never a traceback
        if part:
            try:
                os.unlink(part)
            except OSError:
                pass
        if isinstance(exc, KeyboardInterrupt):
            return 130
        if isinstance(exc, BrokenPipeError) and not to_file:
            # The reader went away (`| head`): not an error; keep the exit flush quiet too.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        target.report(PROG, exc)
        return 1
    finally:
        if stop is not None:
            stop()
    if count == 0:
        say(f"{PROG}: warning: conversation {cid!r} has no events", file=sys.stderr)
    if to_file:
        say(f"wrote {count} event(s) to {args.output}", file=sys.stderr)
    return 0
