"""``ohtui insights``: where a conversation's time and money went, without the UI.

Named like ``ohtui export``: an id (read from the configured server, else the bundled demo
server), a local conversation folder (``ohtui insights FOLDER``), or ``--local DIR [ID]``
(served read-only on loopback by the folder server and read over HTTP like any other).
Markdown for people, JSON for scripts; a failure is one titled message with the next step.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from tui.text import say

from .target import OpenFolder, Target, open_target

PROG = "ohtui insights"


class _Unclear(Exception):
    """The folder holds no conversation, or several and none was named."""


def run_insights(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    from tui.insights.load import collect_insights
    from tui.insights.report import render

    target = open_target(args, open_folder, PROG)
    if not isinstance(target, Target):
        return target
    client, stop = target.client, target.stop

    async def run() -> str:
        async with client:
            cid = await target.conversation_id(PROG, _Unclear)
            found = await collect_insights(client, cid, shared=args.shared)
            return render(found, args.format)

    try:
        text = asyncio.run(run())
    except _Unclear as exc:
        say(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - one message, never a traceback
        if isinstance(exc, KeyboardInterrupt):
            return 130
        target.report(PROG, exc)
        return 1
    finally:
        if stop is not None:
            stop()
    return _write(text, args.output)


def _write(text: str, output: str | None) -> int:
    """To standard output, or to a file that appears whole or not at all."""
    if output and output != "-":
        part = f"{output}.part"
        try:
            with open(part, "w", encoding="utf-8", errors="replace", newline="\n") as out:
                out.write(text)
            os.replace(part, output)
        except OSError as exc:
            try:
                os.unlink(part)
            except OSError:
                pass
            say(f"{PROG}: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        say(f"wrote the insights to {output}", file=sys.stderr)
        return 0
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    try:
        say(text, end="")  # rendered safe already; for JSON, clean() changes nothing
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
