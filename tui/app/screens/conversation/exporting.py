"""Copying an event (``c`` / ``C``) and exporting what the list shows (``ctrl+s``, palette).

Copies put the event's useful text or its JSON (secrets masked, ``copying.py``) on the
clipboard. Exports load every page of the view first (through outages: the event store),
render Markdown or JSONL with ``tui.export`` and write a new file in the working
directory, never over an existing one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from ...copying import event_json_text, useful_text
from ...row_windows import PagedWindow, PathWindow
from ...widgets.event_list import EventList

if TYPE_CHECKING:
    from tui.models import AppConversation

    from ...conversation_events import ConversationEvents
    from ...row_windows import RowWindow
    from ...rows import EventRow


class ExportMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    conversation_id: str
    events: ConversationEvents
    window: RowWindow
    conversation: AppConversation | None

    def action_copy(self, what: str) -> None:
        row = self.query_one(EventList).current
        if row is None:
            self.notify("Nothing selected to copy.", markup=False)
        else:
            self.copy_event(row, what)

    @work(group="copy")
    async def copy_event(self, row: EventRow, what: str) -> None:
        try:
            event = await self.events.event(row)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not load the event to copy", exc)
            return
        if event is None:
            self.notify("This event is no longer available.", severity="warning", markup=False)
            return
        label, text = (
            ("event JSON", event_json_text(event)) if what == "json" else useful_text(event)
        )
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the {label} ({len(text):,} characters).", markup=False)

    def action_export(self, fmt: str, scope: str) -> None:
        self.export_events(fmt, scope)

    def view_name(self) -> str:
        """What the list shows, in a word: the whole conversation, a branch, a filter, a find."""
        if isinstance(self.window, PathWindow):
            return self.window.what
        return "conversation" if self.window.query.is_plain else "filtered"

    @work(exclusive=True, group="export")
    async def export_events(self, fmt: str, scope: str) -> None:
        """Write the conversation (``scope="all"``) or what the list shows (``"view"``) to a
        file in the working directory, as Markdown or JSONL."""
        from tui.export import to_jsonl, to_markdown

        window = self.window if scope == "view" else self.events.base
        name = self.view_name() if scope == "view" else "conversation"
        try:
            if isinstance(window, PagedWindow):
                await self.events.load_all(
                    window,
                    lambda w: self.notify(
                        f"Loading {len(w):,} events to export…", timeout=2, markup=False
                    ),
                )
            rows = [row for row in (window.row(i) for i in range(len(window))) if row is not None]
            events = await self.events.events_for(rows)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not export", exc)
            return
        title = self.conversation.title if self.conversation is not None else None
        if fmt == "jsonl":
            text = to_jsonl(events)
        else:
            text = to_markdown(
                events,
                conversation_id=self.conversation_id,
                title=title if name == "conversation" else f"{title or 'Conversation'} ({name})",
            )
        try:
            path = await asyncio.to_thread(
                write_new, f"ohtui-{self.conversation_id[:8]}-{name}", fmt, text
            )
        except OSError as exc:
            self.failed("Could not write the export", exc)
            return
        self.notify(f"Exported {len(events):,} events ({name}) to {path}", timeout=8, markup=False)


def write_new(stem: str, suffix: str, text: str) -> str:
    """Write ``text`` to ``stem.suffix`` in the working directory, never over an existing file."""
    for n in range(1, 1000):
        path = Path.cwd() / (f"{stem}.{suffix}" if n == 1 else f"{stem}-{n}.{suffix}")
        try:
            with path.open("x", encoding="utf-8") as out:
                out.write(text)
            return str(path)
        except FileExistsError:
            continue
    raise FileExistsError(f"{stem}.{suffix}: too many exports with this name")
