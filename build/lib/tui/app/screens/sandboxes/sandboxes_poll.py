"""Keeping the sandboxes table fresh without reading every sandbox every few seconds.

With 5,000 sandboxes the screen read all of them (50 pages) every few seconds while it was
shown, and every second while a pause or resume was on its way. Now:

* the whole list is read when the screen opens and on ctrl+r;
* while the screen is shown, a poll asks for the first page (the newest sandboxes, where
  one started elsewhere comes) and, in one batch by id, the rows on screen below it, those
  a change waits on and those that left the first page since the last look (so one deleted
  elsewhere goes): one request, two when the table is scrolled or something left;
* the wait between polls doubles from :data:`IDLE_POLL_S` to :data:`IDLE_MAX_S` while
  nothing changes, and is :data:`IDLE_POLL_S` again after a change, a key, or a return to
  the screen;
* a pause, resume, delete or start on its way is asked about by id alone, every
  :data:`POLL_S`, until the server shows it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work

from tui.app.format import status_value
from tui.app.screen_state import shown
from tui.app.screens.dialogs.errors import describe_error
from tui.app.widgets.common.fitted_table import FittedTable
from tui.client.params import MAX_BATCH
from tui.text import one_line

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.models import SandboxInfo

POLL_S = 1.0  # while a change is on its way
IDLE_POLL_S = 4.0  # the first wait between polls, and the wait after a change or a key
IDLE_MAX_S = 30.0  # the longest wait while nothing changes
PAGE = 100  # sandboxes in a page of the list (the first page is polled)


class PollPace:
    """The wait before the next poll: ``fast`` after a change or a key, doubling up to
    ``slow`` while nothing changes."""

    def __init__(self, fast: float, slow: float) -> None:
        self.fast, self.slow = fast, slow
        self.interval = fast

    def quicken(self) -> None:
        self.interval = self.fast

    def slow_down(self) -> None:
        self.interval = min(self.slow, self.interval * 2)


class SandboxPolling:
    """Part of :class:`~.sandboxes.SandboxesScreen` (which provides what is declared here)."""

    _sandboxes: dict[str, SandboxInfo]
    #: sandbox id → (label, awaited status, give-up time) while a change is on its way
    _pending: dict[str, tuple[str, str, float]]

    def _cells(self, box: SandboxInfo) -> dict[str, Text]:  # pragma: no cover - the screen's
        raise NotImplementedError

    def _status(self, problem: str | None = None) -> None:  # pragma: no cover - the screen's
        raise NotImplementedError

    def _show_detail(self) -> None:  # pragma: no cover - the screen's
        raise NotImplementedError

    def start_polling(self) -> None:
        """From ``__init__``: no poll is due until the list has been read."""
        self.pace = PollPace(IDLE_POLL_S, IDLE_MAX_S)
        self.listing = False  # the whole list is being read: polls wait for it
        self._first_ids: list[str] = []  # the first page's ids, as the last look found them
        self._poll_timer: Timer | None = None
        self._poll_due = 0.0  # when the poll timer fires (monotonic)
        self._pending_timer: Timer | None = None

    # --- when --------------------------------------------------------------------------------

    def poll_soon(self) -> None:
        """A key or a change: the next poll comes within the fast wait (never later than
        it was due)."""
        self.pace.quicken()
        self._schedule(self.pace.interval, sooner_only=True)

    def _schedule(self, delay: float, *, sooner_only: bool = False) -> None:
        due = time.monotonic() + delay
        if self._poll_timer is not None:
            if sooner_only and self._poll_due <= due:
                return
            self._poll_timer.stop()
        self._poll_due = due
        self._poll_timer = self.set_timer(delay, self.poll_due)

    def poll_due(self) -> None:
        """The timer's turn: poll if the screen is shown (its return polls otherwise)."""
        self._poll_timer = None
        if shown(self):
            self.poll_sandboxes()

    # --- polling -----------------------------------------------------------------------------

    @work(exclusive=True, group="sandboxes-poll")
    async def poll_sandboxes(self) -> None:
        """The first page, and by id what is on screen below it or left it (see the module
        doc); the next poll sooner after a change, later after none."""
        if self.listing:
            return  # the whole list is on its way; it schedules the next poll
        client = self.app.client
        try:
            page = await client.search_sandboxes(limit=PAGE)
            first = [box.id for box in page.items]
            on_page = set(first)
            wanted = [*self._first_ids, *self._pending, *self._table().visible_keys()]
            ids = [i for i in dict.fromkeys(wanted) if i not in on_page][:MAX_BATCH]
            found = await client.get_sandboxes(ids) if ids else []
        except Exception as exc:  # noqa: BLE001 - polling is best-effort; the next one retries
            self._status(f"refresh failed: {describe_error(exc)}")
            self.pace.slow_down()
            self._schedule(self.pace.interval)
            return
        if self.listing:
            return
        self._first_ids = first
        boxes = [*page.items, *(box for box in found if box is not None)]
        changed = self.take(boxes, gone=[i for i, box in zip(ids, found) if box is None])
        if changed:
            self.pace.quicken()
        else:
            self.pace.slow_down()
        self._schedule(self.pace.interval)

    def listed(self, boxes: list[SandboxInfo]) -> None:
        """The whole list was read (on opening, ctrl+r): it replaces the table's rows."""
        seen = {box.id for box in boxes}
        self._first_ids = [box.id for box in boxes[:PAGE]]
        self.take(boxes, gone=[key for key in self._table().keys if key not in seen])
        self.pace.quicken()
        self._schedule(self.pace.interval)

    @work(exclusive=True, group="sandboxes-pending")
    async def poll_pending(self) -> None:
        """The sandboxes a change waits on, by id alone."""
        self._pending_timer = None
        ids = list(self._pending)[:MAX_BATCH]
        if not ids:
            return
        try:
            found = await self.app.client.get_sandboxes(ids)
        except Exception as exc:  # noqa: BLE001 - asked again shortly
            self._status(f"refresh failed: {describe_error(exc)}")
            self._pending_soon()
            return
        boxes = [box for box in found if box is not None]
        if self.take(boxes, gone=[i for i, box in zip(ids, found) if box is None]):
            self.poll_soon()

    def _pending_soon(self) -> None:
        if self._pending and self._pending_timer is None:
            self._pending_timer = self.set_timer(POLL_S, self.poll_pending)

    # --- what the server said ------------------------------------------------------------------

    def take(self, boxes: Iterable[SandboxInfo], gone: Iterable[str] = ()) -> bool:
        """Put what the server said into the table (``gone``: ids it no longer has); a
        change on its way is settled when the server shows it. True when anything differs
        from what the table showed."""
        table = self._table()
        changed = False
        for box in boxes:
            want = self._pending.get(box.id)
            status = status_value(box.status)
            if want and status == want[1]:
                del self._pending[box.id]
            elif want and time.monotonic() > want[2]:
                del self._pending[box.id]
                self.notify(
                    f"{one_line(box.id, 40)} is still {status} ({want[0].rstrip('…')} not confirmed).",
                    severity="warning",
                    markup=False,
                )
            changed |= self._sandboxes.get(box.id) != box
            self._sandboxes[box.id] = box
            table.put_row(box.id, self._cells(box))
        for key in gone:
            changed |= key in self._sandboxes
            if key in table.rows:
                table.remove_row(key)
            self._sandboxes.pop(key, None)
            self._pending.pop(key, None)
        self._status()
        self._show_detail()
        self._pending_soon()
        return changed

    def _table(self) -> FittedTable:
        return self.query_one(FittedTable)
