"""Files (``F``, palette "Files"): the conversation's workspace, and its trajectory zip
(palette "Download trajectory zip"; ``T`` on the Files screen).

The Files screen (:mod:`..files`) is pushed over the conversation. Local folders and shared
conversations have no workspace to browse: the key is refused with the reason
(``refusals.py``), and the palette leaves it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from tui.app.store.conversation_events import ConversationEvents
    from tui.models import AppConversation


class FilesMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    app: App
    conversation_id: str
    events: ConversationEvents
    conversation: AppConversation | None

    def files_refusal(self) -> str | None:
        """Why this conversation has no workspace to browse here (None: it has one)."""
        if getattr(self.app, "local", False):
            return "Local folders have no workspace: ohtui reads only their events."
        if self.events.shared or getattr(self.app, "shared", False):
            return "A shared conversation has no workspace to browse."
        return None

    def action_files(self) -> None:
        from tui.app.screens.files.files import FilesScreen

        if self.files_refusal() is not None:
            return
        record = self.conversation
        self.app.push_screen(
            FilesScreen(self.conversation_id, title=record.title if record is not None else None)
        )

    def action_trajectory(self) -> None:
        from tui.app.screens.files.files_actions import trajectory_to_cwd

        if self.files_refusal() is None:
            self.run_worker(  # type: ignore[attr-defined]
                trajectory_to_cwd(self.app, self.conversation_id),
                group="trajectory",
                exit_on_error=False,
            )
