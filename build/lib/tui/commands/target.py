"""What ``ohtui export`` and ``ohtui insights`` read: one conversation, named by id (on the
configured server, else the bundled demo server) or a local conversation folder
(``FOLDER``, ``--local DIR [ID]``) served read-only on loopback by the folder server.

The commands (``diff`` and ``download`` too) name, check and open their target the same way
and report a failure the same way (one titled message with the next step, keys scrubbed);
only what they do with the conversation differs. An id may be the start of one, resolved as
the palette resolves it (:mod:`tui.client.conversation_ids`); one that is not an id's shape
is a usage error saying the shape, before any request; one that names no conversation, or
the start of several, is said with the candidates (exit 2).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tui.text import say

from .connect import keys_sent, load_settings, make_client, quiet_client_logs

UUID_PATTERN = re.compile(
    r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
)
T = TypeVar("T")
#: ``(client, stop)`` of the folder server over a path, or None after saying why (tui.cli).
OpenFolder = Callable[[str], "tuple[Any, Callable[[], None]] | None"]


def looks_like_folder(text: str) -> bool:
    """An id never holds a path separator; a word that is a folder here is one too."""
    if os.sep in text or (os.altsep and os.altsep in text) or text.startswith(("~", ".")):
        return True
    return Path(text).is_dir()


class Unclear(Exception):
    """The conversation named is none or not one: unknown, the start of several ids, or a
    folder holding none or several with none named. Said in ``lines``; exit status 2."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines

    def tell(self, prog: str) -> int:
        for index, line in enumerate(self.lines):
            say(f"{prog}: {line}" if index == 0 else line, file=sys.stderr)
        return 2


def conversation_problem(conversation: str, shared: bool) -> str | None:
    """Why ``conversation`` cannot name a conversation on a server, before anything is
    asked of it (None: it can): not an id's shape, or a prefix of a shared one (a shared
    conversation is read by its whole id: nothing lists them)."""
    from tui.client.conversation_ids import is_whole_id, shape_problem

    problem = shape_problem(conversation)
    if problem is None and shared and not is_whole_id(conversation):
        return (
            "--shared reads a conversation by its whole id (32 hex digits): shared "
            "conversations are not listed, so the start of an id cannot be looked up"
        )
    return problem


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
    shared: bool = False  # read by its whole id from the shared-conversations routes

    def attempt(self, prog: str, go: Callable[[], T]) -> tuple[int | None, T | None]:
        """Run ``go`` (it reads the target: ``asyncio.run`` of the command's work) and stop
        what was started for it, whatever happens: ``(None, its result)``, or the exit status
        of a failure said in words (ctrl+c 130; a reader that went away 0; an output that
        cannot be written, a name that is no conversation or several, a server's failure)."""
        from tui.safe_output import OutputError, reader_gone

        try:
            return None, go()
        except KeyboardInterrupt:
            return 130, None
        except BrokenPipeError:  # standard output's reader went away (`| head`): not an error
            reader_gone()
            return 0, None
        except (OutputError, FileExistsError) as exc:
            say(f"{prog}: {exc}", file=sys.stderr)
            return 1, None
        except Unclear as exc:
            return exc.tell(prog), None
        except Exception as exc:  # noqa: BLE001 - one message, never a traceback
            self.report(prog, exc)
            return 1, None
        finally:
            if self.stop is not None:
                self.stop()

    def report(self, prog: str, exc: BaseException) -> None:
        """A failure as one titled message with the next step; keys scrubbed."""
        from tui.failures import explain

        resolved = self.resolved
        failure = explain(exc, keys_sent=resolved is not None and keys_sent(resolved))
        text = "\n".join(failure.lines(prog))
        say(resolved.scrub(text) if resolved is not None else text, file=sys.stderr)

    async def conversation_id(self, prog: str) -> str:
        """The whole id of the conversation named (or of the folder's only one); raises
        :class:`Unclear` when it names none or several."""
        from tui.client.conversation_ids import find_conversation

        if self.conversation is None:
            return await only_conversation(self.client, self.folder or "", prog)
        if self.shared:
            return self.conversation
        found = await find_conversation(
            self.client, self.conversation, any_id=self.folder is not None
        )
        if found.conversation is None:
            lines = found.lines()
            if found.unknown:
                lines.append(
                    "  next: check the id (`ohtui` lists the conversations; `ohtui info` shows"
                    " the server used)"
                )
            raise Unclear(lines)
        return found.conversation.id


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
    problem = conversation_problem(conversation, args.shared) if conversation else None
    if problem is not None:  # before the bundled server starts, before any request
        return usage(prog, problem)
    url, stop = resolved.url, None
    if not url:
        from tui.server.embedded import start_demo_server

        url, stop = start_demo_server()
    return Target(
        make_client(resolved, url), conversation, None, resolved, stop, shared=args.shared
    )


async def only_conversation(client: Any, folder: str, prog: str) -> str:
    """The id of a folder's only conversation; :class:`Unclear` when it holds none, or
    several and none was named (then they are listed, as an ambiguous prefix lists them)."""
    from tui.client.conversation_ids import SHOWN, candidate_line

    page = await client.search_conversations(limit=SHOWN)
    if len(page.items) == 1:
        return page.items[0].id
    if not page.items:
        raise Unclear([f"no conversation in {folder}"])
    raise Unclear(
        [
            (
                f"{folder} holds several conversations: name one by its id or the start of"
                f" it, as in {prog} --local {folder} ID"
            ),
            *(f"  {candidate_line(item)}" for item in page.items),
            *(["  …"] if page.next_page_id else []),
        ]
    )
