"""Connection problems as a calm full screen with retry, never a traceback."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from tui.models.redact import mask_url
from tui.text import clean

from ..widgets.key_bar import KeyBar


def describe_error(exc: BaseException) -> str:
    """One readable line for any failure; client errors already carry redacted text."""
    text = str(exc) or type(exc).__name__
    return clean(mask_url(text.splitlines()[0] if text else type(exc).__name__))[:300]


def advice_for(exc: BaseException) -> str:
    name = type(exc).__name__
    status = getattr(exc, "status", None)
    if name == "AuthError" or status in (401, 403):
        return "The server refused the credentials. Check --api-key / --session-key (or OHTUI_API_KEY)."
    if name in ("ConnectionLost", "ConnectError") or "refused" in str(exc).lower():
        return "Nothing answered at that address. Is the server running, and is the URL right?"
    if name == "RequestTimeout":
        return "The server did not answer in time. It may be overloaded; try again."
    return "Try again, or start ohtui without --url to use the bundled demo server."


class ConnectionErrorScreen(Screen[bool]):
    """Dismissed with True when the user asks to retry (the app then connects again)."""

    BINDINGS = [
        Binding("r", "retry", "Retry", id="error.retry"),
        Binding("q", "app.quit", "Quit", id="error.quit"),
    ]
    CSS_PATH = "errors.tcss"

    def __init__(self, url: str, error: BaseException) -> None:
        super().__init__()
        self.url = mask_url(url)
        self.error = error

    def compose(self) -> ComposeResult:
        with Vertical(id="error-box"):
            yield Static(Text("Cannot reach the service"), id="error-title")
            yield Static(
                Text(f"{self.url}\n\n{describe_error(self.error)}\n\n{advice_for(self.error)}")
            )
            with Center():
                yield Button("Retry (r)", id="retry", variant="primary")
        yield KeyBar()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_retry()

    def action_retry(self) -> None:
        self.dismiss(True)
