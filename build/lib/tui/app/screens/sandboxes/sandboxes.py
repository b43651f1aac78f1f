"""Sandboxes: pause, resume, start from a spec and delete by keystroke, with guard rails.

An action marks the row with a transitional state at once (e.g. "pausing…"); polling
replaces it when the server reports the new status, and a failure rolls it back with a
notification. Starting one takes as long as the server works (the real app server answers
once the sandbox runs, 26–29 s): the line under the table says so with the time, ``x``
stops watching without cancelling anything, a second ``s`` meanwhile is refused, and a
failure shows the server's own words. The app keeps this screen while it runs
(``app.action_show_sandboxes``), so its cursor and a start on its way stay with it. What
is polled, and how often, is ``sandboxes_poll.py``'s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from tui.app import server_marks
from tui.app.format import relative_time, status_text, status_value
from tui.app.refusals import read_only_reason
from tui.app.screen_state import shown
from tui.app.screens.dialogs.confirm import ConfirmScreen
from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.screens.dialogs.errors import describe_error, server_advice, server_words
from tui.app.screens.sandboxes.sandboxes_poll import POLL_S, SandboxPolling
from tui.app.server_marks import duration, plural
from tui.app.tables.table_columns import sandbox_columns
from tui.app.themes import theme_style
from tui.app.widgets.common.fitted_table import FittedTable
from tui.app.widgets.common.key_bar import KeyBar
from tui.models.redact import mask_url
from tui.text import clean, one_line

if TYPE_CHECKING:
    from tui.models import SandboxInfo, SandboxSpecInfo

PENDING_MAX_S = 30.0  # a transitional mark that polling never confirms is dropped after this
PAUSABLE = ("RUNNING", "STARTING")
RESUMABLE = ("PAUSED", "ERROR")
MUTATING = frozenset({"pause", "resume", "start", "delete", "stop_waiting"})


@dataclass
class SandboxStart:
    """A start on its way: the POST answers once the sandbox runs (or fails)."""

    spec: str
    began: float = field(default_factory=lambda: server_marks.monotonic())
    done: bool = False
    error: str | None = None
    #: what to do about a known server fault ('' for others)
    advice: str = ""
    sandbox_id: str | None = None
    watched: bool = True

    def elapsed(self) -> float:
        return max(0.0, server_marks.monotonic() - self.began)


class SpecPicker(DismissOnce, ModalScreen[str | None]):
    """Choose the spec a new sandbox starts from; shows image and working dir."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel", id="specs.cancel"),
        # priority: the list's own enter (the same choice) would hide it from the key bar
        Binding("enter", "choose", "Start from this spec", priority=True, id="specs.choose"),
    ]
    CSS_PATH = "sandboxes.tcss"

    def __init__(self, specs: list[SandboxSpecInfo]) -> None:
        super().__init__()
        self.specs = specs

    def compose(self) -> ComposeResult:
        options = []
        for spec in self.specs:
            label = Text()
            label.append(clean(spec.id), style="bold")
            label.append(f"\n  working dir {clean(spec.working_dir)}", style="dim")
            if spec.command:
                label.append("  ·  cmd " + clean(" ".join(spec.command)), style="dim")
            options.append(Option(label, id=spec.id))
        picker = OptionList(*options, id="spec-list")
        picker.border_title = "Start a sandbox from a spec (enter)"
        yield picker
        yield KeyBar()

    def action_choose(self) -> None:
        picker = self.query_one(OptionList)
        if picker.highlighted is not None:
            self.dismiss(picker.get_option_at_index(picker.highlighted).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class SandboxesScreen(SandboxPolling, Screen):
    AUTO_FOCUS = "#sandboxes"
    BINDING_GROUP_TITLE = "Sandboxes"
    #: what ctrl+c copies where no text is selected (``copy_key.py``)
    COPY_ACTION = "copy_id"
    BINDINGS = [
        Binding("p", "pause", "Pause", id="sandboxes.pause"),
        Binding("r", "resume", "Resume", id="sandboxes.resume"),
        Binding("s", "start", "Start from spec", id="sandboxes.start"),
        Binding("x", "stop_waiting", "Stop waiting", id="sandboxes.stop-waiting"),
        Binding("d", "delete", "Delete", id="sandboxes.delete"),
        Binding("c", "copy_id", "Copy id", id="sandboxes.copy-id"),
        Binding("ctrl+r", "refresh", "Refresh", id="sandboxes.refresh"),
        Binding("escape", "app.show_conversations", "Conversations", id="sandboxes.back"),
    ]
    CSS_PATH = "sandboxes.tcss"

    def __init__(self) -> None:
        super().__init__()
        self._sandboxes: dict[str, SandboxInfo] = {}
        self._pending: dict[
            str, tuple[str, str, float]
        ] = {}  # id -> (label, awaited status, give-up time)
        self.start: SandboxStart | None = None
        self.start_polling()

    def compose(self) -> ComposeResult:
        yield FittedTable(
            sandbox_columns, middle=("id",), id="sandboxes", cursor_type="row", zebra_stripes=True
        )
        yield Static(id="sandboxes-progress")
        yield Static(id="sandboxes-detail")
        yield Static(id="sandboxes-status")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(FittedTable)
        table.border_title = "Sandboxes"
        table.border_subtitle = self.app.server_mark
        table.focus()
        self.refresh_sandboxes()
        self.set_interval(1.0, self._tick)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw_rows())

    def on_screen_resume(self) -> None:
        """Shown again (its state kept): what changed meanwhile, at once."""
        self.pace.quicken()
        self.poll_sandboxes()

    def _tick(self) -> None:
        if shown(self) and self.start is not None and not self.start.done:
            self._show_progress()

    def _redraw_rows(self) -> None:
        """Statuses have the theme's colours drawn in: a new theme draws the cells anew;
        relative times tick."""
        table = self.query_one(FittedTable)
        for box in self._sandboxes.values():
            table.put_row(box.id, self._cells(box))

    def _cells(self, box: SandboxInfo) -> dict[str, Text]:
        urls = ", ".join(f"{u.name} {mask_url(u.url)}" for u in box.exposed_urls or ())
        return {
            "id": Text(one_line(box.id, 200)),
            "status": self._status_cell(box),
            "spec": Text(
                one_line(box.sandbox_spec_id, 200), style="dim", no_wrap=True, overflow="ellipsis"
            ),
            "created": Text(
                relative_time(box.created_at, self.app.clock()),
                style="dim",
                no_wrap=True,
                overflow="ellipsis",
            ),
            "urls": Text(clean(urls) or "—", style="dim", no_wrap=True, overflow="ellipsis"),
        }

    def _status_cell(self, box: SandboxInfo) -> Text:
        pending = self._pending.get(box.id)
        if pending:
            return Text(pending[0], style=theme_style("$status-starting italic"))
        return status_text(box.status)

    def refresh_sandboxes(self) -> None:
        """Read the whole list (on opening, ctrl+r); polls wait for it."""
        self.listing = True
        self._list_all()

    @work(exclusive=True, group="sandboxes")
    async def _list_all(self) -> None:
        try:
            boxes = [box async for box in self.app.client.iter_sandboxes()]
        except Exception as exc:  # noqa: BLE001
            self.listing = False
            self._status(f"error: {describe_error(exc)}")
            self._schedule(self.pace.interval)  # the polls go on trying
            return
        self.listing = False
        self.listed(boxes)

    def _status(self, problem: str | None = None) -> None:
        count = len(self._sandboxes)
        running = sum(1 for b in self._sandboxes.values() if status_value(b.status) == "RUNNING")
        text = Text(f"{plural(count, 'sandbox', 'sandboxes')} · {running} running")
        if problem:
            text.append(" · ")
            text.append(problem, style=theme_style("$error bold"))
        self.query_one("#sandboxes-status", Static).update(text)

    def _show_detail(self) -> None:
        box = self._current()
        text = Text(no_wrap=True, overflow="ellipsis")
        if box is not None:
            text.append(one_line(box.id, 200), style="bold")
            text.append(f"  ·  {one_line(box.sandbox_spec_id, 200)}", style="dim")
            for url in box.exposed_urls or ():
                text.append(f"  ·  {clean(url.name)} {clean(mask_url(url.url))}", style="dim")
        self.query_one("#sandboxes-detail", Static).update(text)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail()
        self.poll_soon()  # someone is looking: the rows they see are read again soon

    def _current(self) -> SandboxInfo | None:
        return self._sandboxes.get(self.query_one(FittedTable).current_key)

    def _mark(self, box: SandboxInfo, label: str, target: str | None) -> None:
        if target is None:
            self._pending.pop(box.id, None)
        else:
            self._pending[box.id] = (label, target, time.monotonic() + PENDING_MAX_S)
        self.query_one(FittedTable).put_cell(box.id, "status", self._status_cell(box))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in MUTATING and self.app.readonly:
            return False  # read-only: not offered at all
        if action == "stop_waiting":
            return self.start is not None and not self.start.done and self.start.watched
        return True

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str | None:
        """Why a key refused by :meth:`check_action` does nothing (``refusals.py``)."""
        return read_only_reason(self.app) if action in MUTATING and self.app.readonly else None

    def _can(self, box: SandboxInfo, verb: str, allowed: tuple[str, ...]) -> bool:
        status = status_value(box.status)
        if status in allowed:
            return True
        self.notify(
            f"Cannot {verb} a sandbox that is {status} (only {' or '.join(allowed)}).",
            severity="warning",
            markup=False,
        )
        return False

    def action_pause(self) -> None:
        self.poll_soon()
        box = self._current()
        if box is not None and self._can(box, "pause", PAUSABLE):
            self._mark(box, "pausing…", "PAUSED")
            self.change(box, "pause")

    def action_resume(self) -> None:
        self.poll_soon()
        box = self._current()
        if box is not None and self._can(box, "resume", RESUMABLE):
            self._mark(box, "resuming…", "RUNNING")
            self.change(box, "resume")

    def action_delete(self) -> None:
        self.poll_soon()
        box = self._current()
        if box is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._mark(box, "deleting…", "MISSING")
                self.change(box, "delete")

        self.app.push_screen(
            ConfirmScreen(
                f"Delete sandbox {one_line(box.id, 60)}?\nIts conversations stop and cannot be resumed.",
                "Delete",
            ),
            answered,
        )

    def action_copy_id(self) -> None:
        box = self._current()
        if box is None:
            self.notify("No sandbox is selected: there is no id to copy.", markup=False)
            return
        self.app.copy_to_clipboard(box.id)
        self.notify(f"Copied the id {one_line(box.id, 80)}.", markup=False)

    @work(group="sandbox-actions")
    async def change(self, box: SandboxInfo, verb: str) -> None:
        client = self.app.client
        call = {
            "pause": client.pause_sandbox,
            "resume": client.resume_sandbox,
            "delete": client.delete_sandbox,
        }[verb]
        try:
            await call(box.id)
        except Exception as exc:  # noqa: BLE001
            self._mark(box, "", None)
            self.notify(
                f"Could not {verb} {one_line(box.id, 40)}: {describe_error(exc)}",
                severity="error",
                markup=False,
            )
            return
        self.notify(f"{verb.capitalize()} requested for {one_line(box.id, 40)}", markup=False)
        self.poll_pending()

    # --- starting ------------------------------------------------------------------------

    def action_start(self) -> None:
        self.poll_soon()
        start = self.start
        if start is not None and not start.done:
            self.notify(
                f"A sandbox start is already on its way ({duration(start.elapsed())}): "
                "it shows in the list once the server answers.",
                severity="warning",
                markup=False,
            )
            return
        self.pick_spec()

    def action_stop_waiting(self) -> None:
        start = self.start
        if start is None or start.done:
            return
        start.watched = False
        self._show_progress()
        self.refresh_bindings()
        self.notify(
            "Stopped waiting; the server goes on starting the sandbox: it shows in the list "
            "and you will be told when it runs.",
            markup=False,
        )

    @work(exclusive=True, group="specs")
    async def pick_spec(self) -> None:
        try:
            page = await self.app.client.search_sandbox_specs(limit=100)
        except Exception as exc:  # noqa: BLE001
            self.notify(
                f"Could not list specs: {describe_error(exc)}", severity="error", markup=False
            )
            return
        if not page.items:
            self.notify("The server offers no sandbox specs.", severity="warning")
            return
        spec_id = await self.app.push_screen_wait(SpecPicker(page.items))
        if spec_id and (self.start is None or self.start.done):
            self.start = SandboxStart(spec_id)
            self._show_progress()
            self.refresh_bindings()
            self.run_start(self.start)
            self.set_timer(POLL_S, self.poll_sandboxes)  # the first page lists it, STARTING

    @work(group="sandbox-start", exit_on_error=False)
    async def run_start(self, start: SandboxStart) -> None:
        """Wait for the server's answer (never cancelled by the UI: stopping waiting only
        stops showing it), then tell how it went."""
        try:
            box = await self.app.client.start_sandbox(start.spec)
        except Exception as exc:  # noqa: BLE001 - the server's own words
            start.error = server_words(exc)
            start.advice = server_advice(exc)
        else:
            start.sandbox_id = box.id
            if status_value(box.status) != "RUNNING":
                self._pending[box.id] = ("starting…", "RUNNING", time.monotonic() + PENDING_MAX_S)
        finally:
            start.done = True
        if not self.is_attached:
            return
        self.refresh_bindings()
        self._show_progress()
        if start.error is not None:
            self.notify(
                f"The sandbox did not start: {start.error}"
                + (f"\nNext: {start.advice}." if start.advice else ""),
                title="Sandboxes",
                severity="error",
                timeout=15,
                markup=False,
            )
        else:
            took = duration(start.elapsed())
            runs = start.sandbox_id not in self._pending  # else the server is still starting it
            self.notify(
                f"Sandbox {one_line(start.sandbox_id or '', 60)} "
                + (f"runs ({took})." if runs else "is starting: its row says when it runs."),
                title="Sandboxes",
                markup=False,
            )
            if start.sandbox_id:
                self.query_one(FittedTable).cursor_to(start.sandbox_id)
        self.poll_sandboxes()

    def _show_progress(self) -> None:
        """The line under the table while a start is on its way (or how the last failed)."""
        start = self.start
        line = self.query_one("#sandboxes-progress", Static)
        text = Text()
        if start is not None and not start.done:
            text.append(
                f"● starting a sandbox from {one_line(start.spec, 60)} · "
                f"{duration(start.elapsed())}",
                style=theme_style("$status-starting"),
            )
            if start.watched:
                text.append(
                    "  the server answers once it runs · x stops waiting (it goes on)", style="dim"
                )
            else:
                text.append("  (not waiting: it shows in the list when it runs)", style="dim")
        elif start is not None and start.error is not None:
            text.append(f"✕ the sandbox did not start: {start.error}", style=theme_style("$error"))
        line.update(text)
        line.set_class(bool(text.plain), "-visible")

    def action_refresh(self) -> None:
        self.refresh_sandboxes()
