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
import os
import sys
from typing import Any

from tui.text import clean

from .target import OpenFolder, Target, looks_like_folder, open_target

PROG = "ohtui diff"


def run_diff(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    if args.conversation and looks_like_folder(args.conversation):
        print(
            f"{PROG}: {args.conversation} is a local folder, not a conversation on a server: "
            "run `git diff` in the workspace itself",
            file=sys.stderr,
        )
        return 2
    target = open_target(args, open_folder, PROG)
    if not isinstance(target, Target):
        return target
    client, stop = target.client, target.stop

    async def run() -> Any:
        async with client:
            return await client.workspace_patch(args.conversation, path=args.path, ref=args.ref)

    try:
        patch = asyncio.run(run())
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - one message, never a traceback
        if isinstance(exc, KeyboardInterrupt):
            return 130
        target.report(PROG, exc)
        return 1
    finally:
        if stop is not None:
            stop()
    code = _write(patch.data, args.output)
    if code == 0:
        _summary(patch, args.output, args.ref)
    return code


def _write(data: bytes, output: str | None) -> int:
    """To a file that appears whole or not at all, to a pipe exactly, or to a terminal
    cleaned of control sequences."""
    if output and output != "-":
        part = f"{output}.part"
        try:
            with open(part, "wb") as out:
                out.write(data)
            os.replace(part, output)
        except OSError as exc:
            try:
                os.unlink(part)
            except OSError:
                pass
            print(f"{PROG}: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        return 0
    try:
        if sys.stdout.isatty():
            shown = clean(data.decode("utf-8", errors="replace"))
            if hasattr(sys.stdout, "reconfigure"):
                sys.stdout.reconfigure(encoding="utf-8", errors="replace")
            sys.stdout.write(shown)
            sys.stdout.flush()
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
    except BrokenPipeError:  # the reader went away (`| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _summary(patch: Any, output: str | None, ref: str | None) -> None:
    """What was written, against what, where to apply it, and what it could not hold."""
    from tui.models.redact import redact_text

    to_file = bool(output) and output != "-"
    lines: list[str] = []
    where = f" to {output}" if to_file else ""
    base = f"against {patch.base}" if patch.base else "against the server's base"
    if patch.base is None and ref is None:
        base += " (the branch's origin or merge base; without an origin, the empty tree)"
    how = "the server's patch" if patch.source == "git-delta" else "computed by ohtui"
    count = f"{patch.files} file(s)" if patch.files else "no changes"
    lines.append(f"wrote {count}{where}: {how}, {base}")
    if patch.branch or patch.head_commit:
        at = " at ".join(part for part in (patch.branch, (patch.head_commit or "")[:12]) if part)
        lines.append(f"  workspace: {at}")
    if patch.files and patch.repo_root:
        applied = output if to_file else "PATCH"
        root = patch.repo_root
        if not root.startswith("/"):
            root += " (relative to the agent server's own folder)"
        lines.append(f"  apply it in a checkout of {root}: git apply {applied}")
    for note in patch.notes:
        lines.append(f"  note: {note}")
    if patch.skipped:
        lines.append(f"  left out ({len(patch.skipped)}):")
        lines.extend(f"    {why}" for why in patch.skipped)
    text = patch.text
    if redact_text(text) != text:
        lines.append(
            "  note: it holds text shaped like a secret (a key or token); it is written "
            "exactly, unmasked, so that it applies"
        )
    if not to_file and sys.stdout.isatty():
        lines.append("  (cleaned for the terminal: pipe it or use -o FILE for the exact patch)")
    print(clean("\n".join(lines)), file=sys.stderr)
