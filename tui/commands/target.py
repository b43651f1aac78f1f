"""What ``ohtui export`` and ``ohtui insights`` read: one conversation, named by id (on the
configured server, else the bundled demo server) or a local conversation folder
(``FOLDER``, ``--local DIR [ID]``) served read-only on loopback by the folder server.

Both commands name, check and open their target the same way and report a failure the same
way (one titled message with the next step, keys scrubbed); only what they do with the
conversation differs.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.text import say

from .connect import keys_sent, load_settings, make_client, quiet_client_logs

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


def usage(prog: str, hint: str) -> int:
    say(f"{prog}: {hint}", file=sys.stderr)
    say(f"usage: {prog} ID | {prog} FOLDER | {prog} --local DIR [ID]", file=sys.stderr)
    return 2


@dataclass
class Target:
    """An opened target: the client to read it with, and what to stop afterwards."""

    client: Any
    conversation: str | None  # None: the folder's only conversation (see only_conversation)
    folder: str | None
    resolved: Any = None  # the settings, when a server (not a folder) is read
    stop: Callable[[], None] | None = None

    def report(self, prog: str, exc: BaseException) -> None:
        """A failure as one titled message with the next step; keys scrubbed."""
        from tui.failures import explain

        resolved = self.resolved
        failure = explain(exc, keys_sent=resolved is not None and keys_sent(resolved))
        text = "\n".join(failure.lines(prog))
        say(resolved.scrub(text) if resolved is not None else text, file=sys.stderr)

    async def conversation_id(self, prog: str, unclear: type[Exception]) -> str:
        return self.conversation or await only_conversation(
            self.client, self.folder or "", prog, unclear
        )


def output_for(named: str | None, prog: str) -> Any:
    """Where ``-o`` writes (:func:`tui.safe_output.destination`; standard output without
    one), decided before anything is asked of a server; None after saying why it can't be."""
    from tui.safe_output import OutputError, destination

    try:
        return destination(named or "-")
    except OutputError as exc:
        say(f"{prog}: {exc}", file=sys.stderr)
        return None


def open_target(args: argparse.Namespace, open_folder: OpenFolder, prog: str) -> Target | int:
    """The target ``args`` name, opened; or an exit code after saying why not."""
    folder, conversation = args.local, args.conversation
    if folder is None:
        if conversation is None:
            return usage(prog, "name a conversation (an id) or a conversation folder")
        if looks_like_folder(conversation):
            folder, conversation = conversation, None
    if folder is not None and args.shared:
        return usage(prog, "--shared reads a server's shared conversation, not a local folder")
    if folder is not None and conversation and UUID_PATTERN.fullmatch(conversation):
        conversation = conversation.replace("-", "").lower()  # folders are named by hex id

    quiet_client_logs()
    if folder is not None:
        opened = open_folder(folder)  # no settings: no key goes to the loopback folder server
        if opened is None:
            return 2
        client, stop = opened
        return Target(client, conversation, folder, stop=stop)
    resolved = load_settings(args, prog)
    if resolved is None:
        return 2
    url, stop = resolved.url, None
    if not url:
        from tui.server.embedded import start_demo_server

        url, stop = start_demo_server()
    return Target(make_client(resolved, url), conversation, None, resolved, stop)


async def only_conversation(client: Any, folder: str, prog: str, unclear: type[Exception]) -> str:
    """The id of a folder's only conversation; ``unclear`` raised when it holds none or
    several and none was named."""
    page = await client.search_conversations(limit=5)
    ids = [item.id for item in page.items]
    if len(ids) == 1:
        return ids[0]
    if not ids:
        raise unclear(f"no conversation in {folder}")
    more = ", …" if page.next_page_id else ""
    raise unclear(
        f"{folder} holds several conversations: name one, as in "
        f"{prog} --local {folder} ID  (ids: {', '.join(ids)}{more})"
    )
