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

from .target import OpenFolder, Target, Unclear, open_target, output_for

PROG = "ohtui export"


def run_export(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    from tui.export import format_for
    from tui.safe_output import OutputError, open_output, reader_gone

    where = output_for(args.output, PROG)
    if where is None:
        return 1
    target = open_target(args, open_folder, PROG)
    if not isinstance(target, Target):
        return target
    client, stop = target.client, target.stop
    fmt = format_for(args.output, args.format)

    async def run(write: Any) -> tuple[str, int]:
        from tui.export import export_conversation

        async with client:
            cid = await target.conversation_id(PROG)
            return cid, await export_conversation(client, cid, write, fmt=fmt, shared=args.shared)

    try:
        with open_output(where) as out:
            cid, count = asyncio.run(run(out.write))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # standard output's reader went away (`| head`): not an error
        reader_gone()
        return 0
    except OutputError as exc:
        say(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except Unclear as exc:
        return exc.tell(PROG)
    except Exception as exc:  # noqa: BLE001 - one message, never a traceback
        target.report(PROG, exc)
        return 1
    finally:
        if stop is not None:
            stop()
    if count == 0:
        say(f"{PROG}: warning: conversation {cid!r} has no events", file=sys.stderr)
    if where.kind != "stdout":
        say(f"wrote {count} event(s) to {where}", file=sys.stderr)
    return 0
