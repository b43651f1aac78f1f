"""Start a conversation: title and first message, then the start task's progress."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from tui.text import clean

from ..format import status_value
from ..themes import theme_style
from .errors import describe_error


class NewConversationScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="new.cancel")]
    CSS_PATH = "new_conversation.tcss"

    def compose(self) -> ComposeResult:
        with Vertical(id="new-box"):
            yield Static(Text("New conversation", style="bold"))
            yield Input(placeholder="title (optional)", id="new-title")
            yield Input(placeholder="first message to the agent (optional)", id="new-message")
            yield Static(id="new-progress")
            with Horizontal(id="new-buttons"):
                yield Button("Cancel", id="new-cancel")
                yield Button("Start", id="new-start", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#new-title", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "new-title":
            self.query_one("#new-message", Input).focus()
        else:
            self.start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "new-start":
            self.start()
        else:
            self.action_cancel()

    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "start")
        self.dismiss(None)

    @work(exclusive=True, group="start")
    async def start(self) -> None:
        if self.app.readonly:
            self.notify("Read-only mode: starting conversations is disabled.", severity="warning")
            return
        progress = self.query_one("#new-progress", Static)
        self.query_one("#new-start", Button).disabled = True
        title = self.query_one("#new-title", Input).value.strip()
        message = self.query_one("#new-message", Input).value.strip()
        request: dict = {}
        if title:
            request["title"] = title
        if message:
            request["initial_message"] = {
                "role": "user",
                "content": [{"type": "text", "text": message}],
                "run": True,
            }

        def on_progress(task) -> None:
            status = status_value(task.status)
            detail = f" — {clean(task.detail)}" if task.detail else ""
            progress.update(Text(f"start task: {status}{detail}"))

        try:
            task = await self.app.client.create_conversation(request, on_progress=on_progress)
        except Exception as exc:  # noqa: BLE001
            progress.update(
                Text(f"failed: {describe_error(exc)}", style=theme_style("$error bold"))
            )
            self.query_one("#new-start", Button).disabled = False
            return
        self.dismiss(task.app_conversation_id)
