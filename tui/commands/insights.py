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
from typing import Any

from .connect import keys_sent, load_settings, make_client, quiet_client_logs
from .export import UUID_PATTERN, OpenFolder, looks_like_folder

PROG = "ohtui insights"


class _Unclear(Exception):
    """The folder holds no conversation, or several and none was named."""


def _usage(hint: str) -> int:
    print(f"{PROG}: {hint}", file=sys.stderr)
    print(f"usage: {PROG} ID | {PROG} FOLDER | {PROG} --local DIR [ID]", file=sys.stderr)
    return 2


async def _only_conversation(client: Any, folder: str) -> str:
    page = await client.search_conversations(limit=5)
    ids = [item.id for item in page.items]
    if len(ids) == 1:
        return ids[0]
    if not ids:
        raise _Unclear(f"no conversation in {folder}")
    more = ", …" if page.next_page_id else ""
    raise _Unclear(
        f"{folder} holds several conversations: name one, as in "
        f"{PROG} --local {folder} ID  (ids: {', '.join(ids)}{more})"
    )


def run_insights(args: argparse.Namespace, open_folder: OpenFolder) -> int:
    from tui.insights.load import collect_insights
    from tui.insights.report import render

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
    resolved = stop = None
    if folder is not None:
        opened = open_folder(folder)  # no settings: no key goes to the loopback folder server
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

    async def run() -> str:
        async with client:
            cid = conversation or await _only_conversation(client, folder)
            found = await collect_insights(client, cid, shared=args.shared)
            return render(found, args.format)

    try:
        text = asyncio.run(run())
    except _Unclear as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - one message, never a traceback
        if isinstance(exc, KeyboardInterrupt):
            return 130
        from tui.failures import explain

        failure = explain(exc, keys_sent=resolved is not None and keys_sent(resolved))
        message = "\n".join(failure.lines(PROG))
        print(resolved.scrub(message) if resolved is not None else message, file=sys.stderr)
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
            print(f"{PROG}: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"wrote the insights to {output}", file=sys.stderr)
        return 0
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
