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
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .connect import keys_sent, load_settings, make_client, quiet_client_logs

PROG = "ohtui export"
UUID_PATTERN = re.compile(
    r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
)
#: ``(client, stop)`` of the folder server over a path, or None after saying why (tui.cli).
OpenFolder = Callable[[str], "tuple[Any, Callable[[], None]] | None"]


def looks_like_folder(text: str) -> bool:
    """An id never holds a path separator; a word that is a folder here is one too."""
    if os.sep in text or (os.altsep and os.altsep in text) or text.startswith(("~", ".")):
        return True
    return Path(text).is_dir()


def _usage(parser_hint: str) -> int:
    print(f"{PROG}: {parser_hint}", file=sys.stderr)
    print(f"usage: {PROG} ID | {PROG} FOLDER | {PROG} --local DIR [ID]", file=sys.stderr)
    return 2


async def _only_conversation(client: Any, folder: str) -> str:
    from tui.export import ExportError

    page = await client.search_conversations(limit=5)
    ids = [item.id for item in page.items]
    if len(ids) == 1:
        return ids[0]
    if not ids:
        raise ExportError(f"no conversation in {folder}")
    more = ", …" if page.next_page_id else ""
    raise ExportError(
        f"{folder} holds several conversations: name one, as in "
        f"{PROG} --local {folder} ID  (ids: {', '.join(ids)}{more})"
    )


def run_export(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    from tui.export import format_for

    folder, conversation = args.local, args.conversation
    if folder is None:
        if conversation is None:
            return _usage("name a conversation (an id) or a conversation folder")
        if looks_like_folder(conversation):
            folder, conversation = conversation, None
    if folder is not None and args.shared:
        return _usage("--shared reads a server's shared conversation, not a local folder")
    if folder is not None and conversation and UUID_PATTERN.fullmatch(conversation):
        conversation = conversation.replace("-", "").lower()  # folders are named by hex id

    quiet_client_logs()
    resolved = None
    stop = None
    if folder is not None:
        # Local folders need no settings: no key goes to the loopback folder server.
        opened = open_folder(folder)
        if opened is None:
            return 2
        client, stop = opened
    else:
        resolved = load_settings(args, PROG)
        if resolved is None:
            return 2
        url = resolved.url
        if not url:
            from tui.server.embedded import start_demo_server

            url, stop = start_demo_server()
        client = make_client(resolved, url)
    fmt = format_for(args.output, args.format)
    to_file = bool(args.output) and args.output != "-"
    part = f"{args.output}.part" if to_file else None

    async def run(write: Any) -> tuple[str, int]:
        from tui.export import export_conversation

        async with client:
            cid = conversation or await _only_conversation(client, folder)
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
        from tui.failures import explain

        failure = explain(exc, keys_sent=resolved is not None and keys_sent(resolved))
        text = "\n".join(failure.lines(PROG))
        print(resolved.scrub(text) if resolved is not None else text, file=sys.stderr)
        return 1
    finally:
        if stop is not None:
            stop()
    if count == 0:
        print(f"{PROG}: warning: conversation {cid!r} has no events", file=sys.stderr)
    if to_file:
        print(f"wrote {count} event(s) to {args.output}", file=sys.stderr)
    return 0
