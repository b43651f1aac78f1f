"""Opening a conversation by what the user typed: a whole id or the start of one.

The palette offers "Open conversation <id>" for anything that looks like an id, and
``--conversation`` opens one at start. Both resolve it with the one resolver the commands
use too (:mod:`tui.client.conversation_ids`): the loaded list first, then the server's
listing. Whatever cannot be opened is said in words (the candidates listed when a prefix
matches several) instead of opening a screen that waits forever.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.client.conversation_ids import find_conversation

if TYPE_CHECKING:
    from tui.models import AppConversation

__all__ = ["open_by_id"]


def open_by_id(app: Any, text: str) -> None:
    """The palette's "Open conversation …": resolve in a worker, then open or say why not."""
    app.run_worker(_open(app, text), group="open-by-id", exclusive=True, exit_on_error=False)


async def _open(app: Any, text: str) -> None:
    from tui.app.screens.conversations.conversations import ConversationsScreen

    loaded: list[AppConversation] = []
    for screen in app.screen_stack:
        if isinstance(screen, ConversationsScreen):
            loaded = list(screen.rows.rows.values())
    try:
        found = await find_conversation(app.client, text, loaded, any_id=app.local)
    except Exception as exc:  # noqa: BLE001 - said, never raised
        from tui.app.screens.dialogs.errors import describe_error

        app.notify(f"Could not look the id up: {describe_error(exc)}", severity="error")
        return
    if found.conversation is None:
        app.notify(
            found.text or "Not found.",
            title="Open conversation",
            severity="warning",
            timeout=10 if found.candidates else 5,
            markup=False,
        )
        return
    app.open_conversation(found.conversation.id, title=found.conversation.title)
