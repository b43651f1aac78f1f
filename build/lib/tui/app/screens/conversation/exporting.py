"""Copying an event (``c`` / ``C``) and exporting what the list shows (``ctrl+s``, palette).

Copies put the event's useful text or its JSON on the clipboard, made safe to paste
(secrets masked, control sequences removed, lone surrogates replaced: ``copying.py``), and
say what was changed. Exports load every page of the view first (through outages: the
event store), then write Markdown or JSONL with ``tui.export.write_export`` in a thread:
the full events are fetched as the writer needs them, a hundred at a time and at most
about ``FETCH_BYTES`` of them (``full_events.py``: memory stays bounded), the list's corner shows how far it got, and ``ctrl+s`` again (or leaving the
screen) cancels it, leaving no file behind. A new file is made in the working directory,
never over anything (not even a dangling link: ``tui.safe_output``, the one writer of
output files), named only with safe characters (a server chooses the id).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from tui.app.store.copying import clip, clip_events
from tui.app.store.row_windows import PagedWindow, PathWindow
from tui.app.store.step_rows import StepRow, step_events
from tui.app.widgets.conversation.event_list import EventList
from tui.safe_output import safe_name, unused_name

if TYPE_CHECKING:
    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.row_windows import RowWindow
    from tui.app.store.rows import EventRow
    from tui.export import ExportProgress
    from tui.models import AnyEvent, AppConversation

#: Events fetched by id per request while an export writes.
EXPORT_BATCH = 100


@dataclass
class ExportRun:
    """One export on its way: where it writes, how far it got, whether it was cancelled."""

    path: Path
    name: str
    total: int
    written: int = 0
    cancelled: bool = False

    def status(self) -> str:
        share = f" ({100 * self.written // self.total}%)" if self.total else ""
        return f"exporting {self.written:,}/{self.total:,}{share} · ctrl+s: cancel"


class ExportMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    conversation_id: str
    events: ConversationEvents
    window: RowWindow
    conversation: AppConversation | None
    export_run: ExportRun | None = None
    export_status: str = ""  # what the list's corner says while an export loads or writes

    # --- copy ------------------------------------------------------------------------------

    def action_copy(self, what: str) -> None:
        row = self.query_one(EventList).current
        if row is None:
            self.notify("Nothing selected to copy.", markup=False)
        else:
            self.copy_event(row, what)

    @work(group="copy", exit_on_error=False)
    async def copy_event(self, row: EventRow, what: str) -> None:
        try:
            event = await self.events.event(row)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not load the event to copy", exc)
            return
        if event is None:
            self.notify("This event is no longer available.", severity="warning", markup=False)
            return
        result = row.result if isinstance(row, StepRow) else None
        try:
            if what == "json" and result is not None:  # a step: its action and its result
                answer = await self.events.event(result)
                both = [event] if answer is None else [event, answer]
                copied = clip_events(both, "step JSON (action and result)")
            else:
                copied = clip(event, what)
            self.app.copy_to_clipboard(copied.text)
        except Exception as exc:  # noqa: BLE001 - a copy that fails is said, never raised
            self.failed("Could not copy", exc)
            return
        self.notify(
            copied.summary(),
            severity="warning" if copied.notes else "information",
            timeout=8 if copied.notes else 4,
            markup=False,
        )

    # --- export ----------------------------------------------------------------------------

    def action_export(self, fmt: str, scope: str) -> None:
        run = self.export_run
        if run is not None:  # ctrl+s again: stop the one on its way
            run.cancelled = True
            self.notify("Cancelling the export…", markup=False)
            return
        self.export_events(fmt, scope)

    def view_name(self) -> str:
        """What the list shows, in a word: the whole conversation, its steps, a branch, a
        filter, a find."""
        if isinstance(self.window, PathWindow):
            return self.window.what
        query = self.window.query
        if query.merges:
            return "steps" if query.is_plain else "filtered-steps"
        return "conversation" if query.is_plain else "filtered"

    def _set_export_status(self, text: str) -> None:
        self.export_status = text
        if not self.closing:
            self.update_list_title()

    @work(exclusive=True, group="export", exit_on_error=False)
    async def export_events(self, fmt: str, scope: str) -> None:
        """Write the conversation (``scope="all"``) or what the list shows (``"view"``) to a
        new file in the working directory, as Markdown or JSONL (see the module doc)."""
        window = self.window if scope == "view" else self.events.base
        name = self.view_name() if scope == "view" else "conversation"
        stem = f"ohtui-{safe_name(self.conversation_id, 8)}-{name}"
        run = self.export_run = ExportRun(Path(), name, 0)
        try:
            if isinstance(window, PagedWindow):
                await self.events.load_all(
                    window,
                    lambda w: self._set_export_status(
                        f"export: loading {len(w.head):,}/{w.total or '?'} rows · ctrl+s: cancel"
                    ),
                )
            rows = [row for row in (window.row(i) for i in range(len(window))) if row is not None]
            # a step stands for its action and its result (the plumbing it folds stays out,
            # as it does in the view)
            rows = [event for row in rows for event in step_events(row)]
            if run.cancelled:
                self.notify("Export cancelled: nothing was written.", markup=False)
                return
            run.total = len(rows)
            run.path = await asyncio.to_thread(unused_name, stem, fmt)
            self._set_export_status(run.status())
            count = await self._write(run, rows, fmt, name)
        except asyncio.CancelledError:
            run.cancelled = True  # the screen closed: the writer stops at its next event
            raise
        except Exception as exc:  # noqa: BLE001 - shown to the user, never raised
            from tui.export import ExportCancelled

            if isinstance(exc, ExportCancelled):
                self.notify("Export cancelled: nothing was written.", markup=False)
            else:
                self.failed("Could not export", exc)
            return
        finally:
            self.export_run = None
            if not self.closing:
                self._set_export_status("")
        self.notify(f"Exported {count:,} events ({name}) to {run.path}", timeout=8, markup=False)

    async def _write(self, run: ExportRun, rows: list[EventRow], fmt: str, name: str) -> int:
        """Write ``rows``' events to ``run.path`` in a thread; the events are fetched on this
        loop a batch at a time as the writer asks for them."""
        from tui.export import ExportCancelled, write_export
        from tui.export.run import record_info

        loop = asyncio.get_running_loop()
        title = self.conversation.title if self.conversation is not None else None
        info = record_info(self.conversation) if self.conversation is not None else None
        if name != "conversation":
            title = f"{title or 'Conversation'} ({name})"

        def fetched(batch: list[EventRow]) -> tuple[list[AnyEvent], int]:
            future = asyncio.run_coroutine_threadsafe(self.events.events_for(batch), loop)
            while True:
                try:
                    return future.result(timeout=0.25)
                except concurrent.futures.TimeoutError:
                    if run.cancelled:
                        future.cancel()
                        raise ExportCancelled() from None

        def events() -> Iterator[AnyEvent]:
            start = 0
            while start < len(rows):
                if run.cancelled:
                    raise ExportCancelled()
                # as many as weigh FETCH_BYTES (full_events.py): outputs of megabytes a few
                # at a time
                batch, taken = fetched(rows[start : start + EXPORT_BATCH])
                start += taken
                batch.reverse()
                while batch:  # each let go once written, not with the next batch's fetch
                    yield batch.pop()

        def progress(done: ExportProgress) -> None:
            run.written = done.events
            loop.call_soon_threadsafe(self._set_export_status, run.status())

        def write() -> int:  # appears whole under a free name, or not at all
            return write_export(
                events(),
                run.path,
                fmt,
                exclusive=True,
                title=title,
                info=info,
                conversation_id=self.conversation_id,
                total=run.total,
                progress=progress,
                cancelled=lambda: run.cancelled,
            )

        return await asyncio.to_thread(write)
