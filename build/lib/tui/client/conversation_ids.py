"""A conversation named by what a person typed: its whole id or the start of one.

The one resolver behind the palette's "Open conversation", ``--conversation`` and the
commands that take a conversation (``ohtui export|insights|diff|download``), so an id
prefix means the same everywhere (``ctrl+s`` puts its first 8 digits in file names). A
prefix is looked up in what is already loaded, then in the server's listing
(sub-conversations included); a whole id is asked for by id. What cannot be resolved is
said in words, with the candidates (id prefix, title, updated) when several match; a
typed text that is not an id's shape is said to be so, with the shape, before any request
(the server's own answer is a bare ``400 Invalid UUID``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tui.text import one_line

if TYPE_CHECKING:
    from tui.models import AppConversation

#: what the palette treats as an id or the start of one
ID_LIKE = re.compile(r"^[0-9a-fA-F-]{4,}$")
WHOLE = 32  # hex digits in a whole id (a UUID, dashed or not)
SHORTEST = 4  # hex digits a prefix needs (fewer match too much to be worth a lookup)
SEARCH_LIMIT = 1000  # conversations looked through on the server for a prefix
SHOWN = 5  # candidates listed when a prefix matches several
_GROUPS = (8, 4, 4, 4, 12)  # a UUID's groups of hex digits, dashed as 8-4-4-4-12


def _prefix_shape() -> re.Pattern[str]:
    """Whole groups (each followed by an optional dash), then the start of the next one."""
    shapes = []
    for index, size in enumerate(_GROUPS):
        whole = "".join(f"[0-9a-f]{{{n}}}-?" for n in _GROUPS[:index])
        shapes.append(f"{whole}[0-9a-f]{{0,{size}}}")
    return re.compile("|".join(f"(?:{shape})" for shape in shapes), re.IGNORECASE)


_PREFIX = _prefix_shape()
SHAPE = (
    "a conversation id is 32 hex digits (0-9, a-f), with or without the dashes of "
    f"8-4-4-4-12; give it whole or its first {SHORTEST} or more digits"
)


def plain_id(text: str) -> str:
    return text.strip().lower().replace("-", "")


def is_whole_id(text: str) -> bool:
    return len(plain_id(text)) == WHOLE and ID_LIKE.match(text.strip()) is not None


def shape_problem(text: str) -> str | None:
    """Why ``text`` is neither a whole id nor the start of one, in words with the right
    shape (None: it is one)."""
    typed = text.strip()
    shown = one_line(typed, 40)
    if not typed:
        return f"no conversation id given: {SHAPE}"
    digits = plain_id(typed)
    if _PREFIX.fullmatch(typed) is None or len(digits) > WHOLE:
        return f"“{shown}” is not a conversation id: {SHAPE}"
    if len(digits) < SHORTEST:
        return f"“{shown}” is too short to look up: {SHAPE}"
    return None


def updated_words(conversation: AppConversation) -> str:
    """When it was last updated, in UTC to the minute (``never`` without a time)."""
    value = conversation.updated_at or conversation.created_at
    try:
        moment = datetime.fromisoformat(value) if value else None
    except ValueError:
        return one_line(value or "", 30) or "never"
    if moment is None:
        return "never"
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def candidate_line(conversation: AppConversation) -> str:
    """One candidate: its id's first 8 digits, its title and when it was updated."""
    title = one_line(conversation.title or "", 50) or "(untitled)"
    return f"{plain_id(conversation.id)[:8]}  {title}  (updated {updated_words(conversation)})"


@dataclass(frozen=True)
class Lookup:
    """What a typed id resolved to: the conversation, or what is wrong (``problem``, a
    phrase: the command line puts it after its name, the app makes it a sentence) and
    the candidates when it is the start of several ids."""

    conversation: AppConversation | None
    problem: str | None = None
    candidates: tuple[AppConversation, ...] = ()
    more: bool = False  # more candidates than ``candidates`` holds
    unknown: bool = False  # it names no conversation (well formed, but nothing has it)

    def lines(self) -> list[str]:
        """The problem, then one indented line per candidate."""
        if self.problem is None:
            return []
        out = [self.problem]
        out += [f"  {candidate_line(c)}" for c in self.candidates]
        if self.more:
            out.append("  …")
        return out

    @property
    def text(self) -> str:
        """The problem as a sentence, then the candidates (for a notice)."""
        lines = self.lines()
        if lines:
            lines[0] = f"{lines[0][:1].upper()}{lines[0][1:]}."
        return "\n".join(lines)


async def find_conversation(
    client: Any, text: str, loaded: Iterable[AppConversation] = (), *, any_id: bool = False
) -> Lookup:
    """Resolve ``text`` (a whole id or the start of one) on ``client``'s server.

    ``loaded``: conversations already at hand, looked in before asking. ``any_id``: the
    server's ids need not be UUIDs (local folders without one are named by the folder):
    such an id is matched whole, and only a hex-like text is taken as a prefix."""
    typed = text.strip()
    shown = one_line(typed, 40)
    problem = shape_problem(typed)
    if problem is not None and not any_id:
        return Lookup(None, problem)
    if problem is None and is_whole_id(typed):
        [found] = await client.get_conversations([typed])
        if found is None:
            return Lookup(None, f"conversation not found: {shown}", unknown=True)
        return Lookup(found)
    prefix = plain_id(typed) if problem is None else None
    matches: dict[str, AppConversation] = {}

    def take(conversation: AppConversation) -> bool:
        """Note a match; True when ``conversation`` is the one named exactly."""
        if conversation.id == typed:
            return True
        if prefix is not None and plain_id(conversation.id).startswith(prefix):
            matches.setdefault(conversation.id, conversation)
        return False

    for conversation in loaded:
        if take(conversation):
            return Lookup(conversation)
    looked, complete = 0, True
    if len(matches) != 1:
        complete = False
        async for conversation in client.iter_conversations(
            include_sub_conversations=True, limit=100
        ):
            looked += 1
            if take(conversation):
                return Lookup(conversation)
            if len(matches) > SHOWN or looked >= SEARCH_LIMIT:
                break
        else:
            complete = True
    if len(matches) == 1:
        return Lookup(next(iter(matches.values())))
    if not matches:
        if prefix is None:
            return Lookup(None, f"conversation not found: {shown}", unknown=True)
        where = "" if complete else f" among the {looked} most recent"
        return Lookup(None, f"no conversation's id starts with {shown}{where}", unknown=True)
    found = list(matches.values())
    if len(found) > SHOWN:
        many = f"more than {SHOWN} conversations' ids start with {shown}"
    else:
        where = "" if complete else f" among the {looked} most recent"
        many = f"{len(found)} conversations' ids start with {shown}{where}"
    return Lookup(None, f"{many}: type more of it", tuple(found[:SHOWN]), more=len(found) > SHOWN)


__all__ = [
    "ID_LIKE",
    "SHAPE",
    "Lookup",
    "candidate_line",
    "find_conversation",
    "is_whole_id",
    "plain_id",
    "shape_problem",
]
