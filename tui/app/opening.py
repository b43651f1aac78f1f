"""Opening a conversation by what the user typed: a whole id or the start of one.

The palette offers "Open conversation <id>" for anything that looks like an id. A prefix is
looked up in the loaded list first, then in the server's listing (sub-conversations
included); a whole id is asked for by id. Whatever cannot be opened is said in words —
"no conversation starts with …", "3 conversations start with …: type more of it",
"conversation not found" — instead of opening a screen that waits forever.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tui.text import one_line

if TYPE_CHECKING:
    from tui.models import AppConversation

#: what the palette treats as an id or the start of one
ID_LIKE = re.compile(r"^[0-9a-fA-F-]{4,}$")
WHOLE = 32  # hex digits in a whole id (a UUID, dashed or not)
SEARCH_LIMIT = 1000  # conversations looked through on the server for a prefix


def plain_id(text: str) -> str:
    return text.strip().lower().replace("-", "")


def is_whole_id(text: str) -> bool:
    return len(plain_id(text)) == WHOLE and ID_LIKE.match(text.strip()) is not None


async def resolve(
    client: Any, text: str, loaded: Iterable[AppConversation] = ()
) -> tuple[AppConversation | None, str | None]:
    """``(conversation, None)`` or ``(None, what is wrong in words)``."""
    typed = text.strip()
    shown = one_line(typed, 40)
    if not ID_LIKE.match(typed):
        return None, f"“{shown}” is not a conversation id."
    if is_whole_id(typed):
        [found] = await client.get_conversations([typed])
        if found is None:
            return None, f"Conversation not found: {shown}."
        return found, None
    prefix = plain_id(typed)
    matches = {c.id: c for c in loaded if plain_id(c.id).startswith(prefix)}
    if len(matches) != 1:
        looked = 0
        async for conv in client.iter_conversations(include_sub_conversations=True, limit=100):
            looked += 1
            if plain_id(conv.id).startswith(prefix):
                matches.setdefault(conv.id, conv)
            if len(matches) > 1 or looked >= SEARCH_LIMIT:
                break
    if not matches:
        return None, f"No conversation's id starts with {shown}."
    if len(matches) > 1:
        return None, f"More than one conversation's id starts with {shown}: type more of it."
    return next(iter(matches.values())), None


def open_by_id(app: Any, text: str) -> None:
    """The palette's "Open conversation …": resolve in a worker, then open or say why not."""
    app.run_worker(_open(app, text), group="open-by-id", exclusive=True, exit_on_error=False)


async def _open(app: Any, text: str) -> None:
    from .screens.conversations import ConversationsScreen

    loaded: list[AppConversation] = []
    for screen in app.screen_stack:
        if isinstance(screen, ConversationsScreen):
            loaded = list(screen.rows.rows.values())
    try:
        found, problem = await resolve(app.client, text, loaded)
    except Exception as exc:  # noqa: BLE001 - said, never raised
        from .screens.errors import describe_error

        app.notify(f"Could not look the id up: {describe_error(exc)}", severity="error")
        return
    if found is None:
        app.notify(
            problem or "Not found.", title="Open conversation", severity="warning", markup=False
        )
        return
    app.open_conversation(found.id, title=found.title)
