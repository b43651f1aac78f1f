"""Insights (``i``, palette "Insights"): open the view, and go to the event it names.

The view (:mod:`..insights`) is pushed over the conversation; Enter on one of its rows
dismisses it with an event id, and the list moves there the way a tree choice does: the
whole conversation shown, the cursor on the event (or, where the list cannot show it at
once, the event in the detail pane).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...rows import EventRow
from ...widgets.event_list import EventList

if TYPE_CHECKING:
    from tui.models import AppConversation

    from ...conversation_events import ConversationEvents
    from ...row_windows import RowWindow


class InsightsMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    conversation_id: str
    events: ConversationEvents
    window: RowWindow
    conversation: AppConversation | None

    def action_insights(self) -> None:
        from ..insights import InsightsScreen

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

    def go_to_event(self, event_id: str | None) -> None:
        if not event_id:
            return
        rows = self.events.base.head
        position = next((n for n, row in enumerate(rows) if row.id == event_id), None)
        if position is None:  # not indexed yet: show it in the detail pane meanwhile
            self.show_detail(EventRow(event_id, "", "", "", ""))
            return
        if self.window is not self.events.base:
            self.action_show_all()
        if self.window is self.events.base and not self.events.base.query.descending:
            self.query_one(EventList).cursor = position
            self.query_one(EventList).focus()
        else:
            self.show_detail(rows[position])
