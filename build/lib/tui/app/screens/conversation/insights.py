"""Insights (``i``, palette "Insights"): open the view, and go to the event it names.

The view (:mod:`..insights`) is pushed over the conversation; Enter on one of its rows
dismisses it with an event id, and the list moves there the way a tree choice does
(``tree_follow.py``: the whole conversation shown, the cursor on the event).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.row_windows import RowWindow
    from tui.models import AppConversation


class InsightsMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    conversation_id: str
    events: ConversationEvents
    window: RowWindow
    conversation: AppConversation | None

    def action_insights(self) -> None:
        from tui.app.screens.insights import InsightsScreen

        base = self.events.base
        record = self.conversation
        self.app.push_screen(
            InsightsScreen(
                self.conversation_id,
                shared=self.events.shared,
                title=record.title if record is not None else None,
                known_total=len(base) if base.complete else None,
            ),
            self.go_to_event,
        )
