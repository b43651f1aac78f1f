"""Sandboxes: pause, resume, start from a spec and delete by keystroke, with guard rails.

An action marks the row with a transitional state at once (e.g. "pausing…"); polling
replaces it when the server reports the new status, and a failure rolls it back with a
notification.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from tui.models.redact import mask_url
from tui.text import clean, one_line

from ..format import relative_time, status_text, status_value
from ..table_columns import sandbox_columns
from ..themes import theme_style
from ..widgets.fitted_table import FittedTable
from ..widgets.key_bar import KeyBar
from .confirm import ConfirmScreen
from .errors import describe_error

if TYPE_CHECKING:
    from tui.models import SandboxInfo, SandboxSpecInfo

POLL_S = 1.0
PENDING_MAX_S = 30.0  # a transitional mark that polling never confirms is dropped after this
PAUSABLE = ("RUNNING", "STARTING")
RESUMABLE = ("PAUSED", "ERROR")
IDLE_POLL_S = 5.0


class SpecPicker(ModalScreen[str | None]):
    """Choose the spec a new sandbox starts from; shows image and working dir."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="specs.cancel")]
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

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class SandboxesScreen(Screen):
    AUTO_FOCUS = "#sandboxes"
    BINDING_GROUP_TITLE = "Sandboxes"
    BINDINGS = [
        Binding("p", "pause", "Pause", id="sandboxes.pause"),
        Binding("r", "resume", "Resume", id="sandboxes.resume"),
        Binding("s", "start", "Start from spec", id="sandboxes.start"),
        Binding("d", "delete", "Delete", id="sandboxes.delete"),
        Binding("ctrl+r", "refresh", "Refresh", id="sandboxes.refresh"),
        Binding("escape", "app.show_conversations", "Conversations", id="sandboxes.back"),
        Binding("j", "cursor_down", "Down", show=False, id="sandboxes.down"),
        Binding("k", "cursor_up", "Up", show=False, id="sandboxes.up"),
    ]
    CSS_PATH = "sandboxes.tcss"

    def __init__(self) -> None:
        super().__init__()
        self._sandboxes: dict[str, SandboxInfo] = {}
        self._pending: dict[
            str, tuple[str, str, float]
        ] = {}  # id -> (label, awaited status, give-up time)

    def compose(self) -> ComposeResult:
        yield FittedTable(sandbox_columns, id="sandboxes", cursor_type="row", zebra_stripes=True)
        yield Static(id="sandboxes-status")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.border_title = "Sandboxes"
        table.focus()
        self.refresh_sandboxes()
        self.set_interval(IDLE_POLL_S, self.refresh_sandboxes)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw_rows())

    def _redraw_rows(self) -> None:
        """Statuses have the theme's colours drawn in: a new theme draws the cells anew."""
        table = self.query_one(FittedTable)
        for box in self._sandboxes.values():
            table.put_row(box.id, self._cells(box))

    def _cells(self, box: SandboxInfo) -> dict[str, Text]:
        urls = ", ".join(f"{u.name} {mask_url(u.url)}" for u in box.exposed_urls or ())
        return {
            "id": Text(one_line(box.id, 60)),
            "status": self._status_cell(box),
            "spec": Text(one_line(box.sandbox_spec_id, 80), style="dim"),
            "created": Text(relative_time(box.created_at, self.app.clock()), style="dim"),
            "urls": Text(clean(urls) or "—", style="dim", no_wrap=True, overflow="ellipsis"),
        }

    def _status_cell(self, box: SandboxInfo) -> Text:
        pending = self._pending.get(box.id)
        if pending:
            return Text(pending[0], style=theme_style("$status-starting italic"))
        return status_text(box.status)

    @work(exclusive=True, group="sandboxes")
    async def refresh_sandboxes(self) -> None:
        try:
            boxes = [box async for box in self.app.client.iter_sandboxes()]
        except Exception as exc:  # noqa: BLE001
            self.query_one("#sandboxes-status", Static).update(
                Text(f"error: {describe_error(exc)}", style=theme_style("$error bold"))
            )
            return
        table = self.query_one(FittedTable)
        seen = set()
        for box in boxes:
            seen.add(box.id)
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
            self._sandboxes[box.id] = box
            table.put_row(box.id, self._cells(box))
        for gone in [key.value for key in table.rows if key.value not in seen]:
            table.remove_row(gone)
            self._sandboxes.pop(gone, None)
            self._pending.pop(gone, None)
        self._status()
        if self._pending:  # poll quickly while a change is in flight
            self.set_timer(POLL_S, self.refresh_sandboxes)

    def _status(self) -> None:
        count = len(self._sandboxes)
        running = sum(1 for b in self._sandboxes.values() if status_value(b.status) == "RUNNING")
        self.query_one("#sandboxes-status", Static).update(
            Text(f"{count} sandboxes · {running} running · p pause · r resume · s start · d delete")
        )

    def _current(self) -> SandboxInfo | None:
        return self._sandboxes.get(self.query_one(FittedTable).current_key)

    def _mark(self, box: SandboxInfo, label: str, target: str | None) -> None:
        if target is None:
            self._pending.pop(box.id, None)
        else:
            self._pending[box.id] = (label, target, time.monotonic() + PENDING_MAX_S)
        self.query_one(FittedTable).put_cell(box.id, "status", self._status_cell(box))

    def _guard(self) -> bool:
        if self.app.readonly:
            self.notify("Read-only mode: sandbox actions are disabled.", severity="warning")
            return False
        return True

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
        box = self._current()
        if box is not None and self._guard() and self._can(box, "pause", PAUSABLE):
            self._mark(box, "pausing…", "PAUSED")
            self.change(box, "pause")

    def action_resume(self) -> None:
        box = self._current()
        if box is not None and self._guard() and self._can(box, "resume", RESUMABLE):
            self._mark(box, "resuming…", "RUNNING")
            self.change(box, "resume")

    def action_delete(self) -> None:
        box = self._current()
        if box is None or not self._guard():
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
        self.refresh_sandboxes()

    def action_start(self) -> None:
        if self._guard():
            self.pick_spec()

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
        if spec_id:
            try:
                box = await self.app.client.start_sandbox(spec_id)
            except Exception as exc:  # noqa: BLE001
                self.notify(
                    f"Could not start a sandbox: {describe_error(exc)}",
                    severity="error",
                    markup=False,
                )
                return
            self._pending[box.id] = ("starting…", "RUNNING", time.monotonic() + PENDING_MAX_S)
            self.notify(f"Starting sandbox {one_line(box.id, 40)}", markup=False)
            self.refresh_sandboxes()

    def action_refresh(self) -> None:
        self.refresh_sandboxes()

    def action_cursor_down(self) -> None:
        self.query_one(DataTable).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(DataTable).action_cursor_up()

    @on(DataTable.RowHighlighted)
    def _noop(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
