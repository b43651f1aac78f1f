"""Failures to connect as a calm full screen titled by what happened, never a traceback.

A server that answered is never "unreachable": the title comes from
:func:`tui.failures.explain` (the key refused, not found, not an OpenHands server, what this
kind of server lacks, cannot reach it, the server broke), then the error's own line and the
next step. Retrying is offered where trying again can help.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.widgets.common.key_bar import KeyBar
from tui.failures import Failure, explain, known_fault
from tui.models.redact import mask_url
from tui.text import clean


def describe_error(exc: BaseException) -> str:
    """One readable line for any failure; client errors already carry redacted text."""
    text = str(exc) or type(exc).__name__
    return clean(mask_url(text.splitlines()[0] if text else type(exc).__name__))[:300]


def server_words(exc: BaseException, limit: int = 600) -> str:
    """What the server said, first ("no capacity for a new sandbox (HTTP 500)"); for other
    failures the client's own sentence (an unknown outcome says what is unknown)."""
    status = getattr(exc, "status", None)
    detail = getattr(exc, "detail", None)
    if isinstance(status, int) and detail not in (None, "", [], {}):
        if not isinstance(detail, str):
            import json

            detail = json.dumps(detail, ensure_ascii=False, default=str)
        said = " ".join(detail.split())
        return clean(mask_url(said[:limit])) + f" (HTTP {status})"
    text = " ".join((str(exc) or type(exc).__name__).split())
    return clean(mask_url(text[:limit]))


def server_advice(exc: BaseException) -> str:
    """What the user can do about a server fault known by its words (a 500 whose cause the
    server's operator can fix), or ''."""
    return clean(known_fault(server_words(exc, limit=2000)))


def keys_sent(client: object) -> bool:
    """Whether the client sends any key (a 401 then means "refused", not "wanted")."""
    auth = getattr(getattr(client, "_http", None), "auth", None)
    describe = getattr(auth, "describe", None)
    return describe() != "none" if callable(describe) else True


def failure_of(exc: BaseException, *, sent: bool = True, base_url: str = "") -> Failure:
    """The failure, its first letter capitalised for a title (detail and advice cleaned);
    ``base_url`` is left out of the detail (the screen names the server above it)."""
    found = explain(exc, keys_sent=sent)
    title = clean(found.title)
    detail = describe_error(exc) if found.detail else ""
    if base_url and len(base_url) > 8:
        detail = detail.replace(clean(mask_url(base_url)), "")
    return Failure(title[:1].upper() + title[1:], detail, clean(found.next_step))


def can_retry(exc: BaseException) -> bool:
    """Trying again cannot make a server grow a route it lacks."""
    return not any(cls.__name__ == "Unsupported" for cls in type(exc).__mro__)


class ConnectionErrorScreen(DismissOnce, Screen[bool]):
    """Dismissed with True when the user asks to retry (the app then connects again)."""

    BINDINGS = [
        Binding("r", "retry", "Retry", id="error.retry"),
        Binding("q", "app.quit", "Quit", id="error.quit"),
    ]
    CSS_PATH = "errors.tcss"

    def __init__(
        self, url: str, error: BaseException, *, sent_keys: bool = True, base_url: str = ""
    ) -> None:
        super().__init__()
        self.url = mask_url(url)
        self.error = error
        self.failure = failure_of(error, sent=sent_keys, base_url=base_url)
        self.retry = can_retry(error)

    def compose(self) -> ComposeResult:
        failure = self.failure
        with Vertical(id="error-box", classes="" if self.retry else "-calm"):
            yield Static(Text(failure.title), id="error-title")
            body = Text(clean(self.url), style="dim")
            if failure.detail and failure.detail.lower() != failure.title.lower():
                body.append("\n\n")
                body.append(failure.detail, style="")
            if failure.next_step:
                body.append("\n\nNext: ", style="bold")
                body.append(failure.next_step)
            yield Static(body, id="error-body")
            if self.retry:
                with Center():
                    yield Button("Retry (r)", id="retry", variant="primary")
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.retry if action == "retry" else True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_retry()

    def action_retry(self) -> None:
        if self.retry:
            self.dismiss(True)
