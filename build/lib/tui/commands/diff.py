"""``ohtui diff``: what a conversation's agent changed in its workspace, as a patch that
``git apply`` takes on the base, without the UI.

Connected like ``ohtui export`` (the same settings, profiles and bundled demo server). The
patch is the server's own (``git-delta``: exact, binaries included) where it makes one, and
computed from its changes and diffs otherwise (text files only; what it could not hold is
said). Written exactly as it came, never masked: a patch must apply. So it goes to a file
(``-o``, whole or not at all) or to a pipe byte for byte; only on a terminal is it cleaned
of control sequences, for reading. What was written, against which base and where to
apply it goes to standard error, untrusted names cleaned.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from tui.text import say

from .target import OpenFolder, Target, looks_like_folder, open_target, output_for

PROG = "ohtui diff"


def run_diff(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    if args.conversation and looks_like_folder(args.conversation):
        say(
            f"{PROG}: {args.conversation} is a local folder, not a conversation on a server: "
            "run `git diff` in the workspace itself",
            file=sys.stderr,
        )
        return 2

    where = output_for(args.output, PROG)
    if where is None:
        return 1
    target = open_target(args, open_folder, PROG)
    if not isinstance(target, Target):
        return target
    client = target.client

    async def run() -> Any:
        async with client:
            cid = await target.conversation_id(PROG)
            return await client.workspace_patch(cid, path=args.path, ref=args.ref)

    failed, patch = target.attempt(PROG, lambda: asyncio.run(run()))
    if failed is not None:
        return failed
    code = _write(patch.data, where)
    if code == 0:
        _summary(patch, where, args.ref)
    return code


def _write(data: bytes, where: Any) -> int:
    """By :mod:`tui.safe_output` exactly (a file whole or not at all, a device or FIFO as a
    stream, a pipe byte for byte), or to a terminal cleaned of control sequences."""
    from tui.safe_output import OutputError, reader_gone, write_bytes

    try:
        if where.kind == "stdout" and sys.stdout.isatty():
            say(data.decode("utf-8", errors="replace"), end="")
            sys.stdout.flush()
        else:
            write_bytes(where, data)
    except KeyboardInterrupt:  # e.g. waiting for a FIFO's reader
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): not an error
        reader_gone()
    except OutputError as exc:
        say(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    return 0


def _summary(patch: Any, dest: Any, ref: str | None) -> None:
    """What was written, against what, where to apply it, and what it could not hold."""
    from tui.client.workspace_patch import patch_summary

    to_file = dest.kind != "stdout"
    lines = patch_summary(
        patch,
        written_to=str(dest) if to_file else None,
        apply_as=dest.named if to_file else "PATCH",
        ref=ref,
    )
    if not to_file and sys.stdout.isatty():
        lines.append("  (cleaned for the terminal: pipe it or use -o FILE for the exact patch)")
    say("\n".join(lines), file=sys.stderr)
