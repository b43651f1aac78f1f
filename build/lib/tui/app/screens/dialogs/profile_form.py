"""A profile's settings typed in: a new LLM profile (name, model, base URL, key) or a
stored one checked again (its model and base URL, a key to check it with).

``ctrl+t`` runs the server's pre-flight on what is typed and says its answer here, in
words; ``enter`` saves (a new profile) or checks (a stored one). The key field is a
password field: what is typed shows as dots, is never put in a message, a notification or
the log, and goes only into the request to the server (the client masks it in any error).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.screens.dialogs.errors import server_words
from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.common.ordered_input import OrderedInput
from tui.models.llm_profiles import valid_profile_name
from tui.text import clean


@dataclass(frozen=True)
class ProfileDraft:
    """What the form answers: the key only travels on to the save (never shown, and left out
    of the draft's repr, which a log line or a traceback might hold)."""

    name: str
    model: str
    base_url: str | None
    api_key: str | None = field(default=None, repr=False)


class KeyInput(OrderedInput):
    """The key's field: dots on screen, and never copied or cut to the clipboard."""

    def action_copy(self) -> None:
        self.notify("A key typed here is not copied.", severity="warning")

    def action_cut(self) -> None:
        self.notify("A key typed here is not cut or copied.", severity="warning")


def check_words(valid: bool, kind: str | None, message: str | None) -> str:
    """The pre-flight's answer as a sentence (the server's words, never its markup)."""
    if valid:
        return "✓ The server reached the model with these settings."
    words = clean(message or "no reason given")[:400]
    return f"✗ The server could not use these settings ({clean(kind or 'error')}): {words}"


class ProfileForm(DismissOnce, ModalScreen[ProfileDraft | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="profile-form.cancel"),
        Binding("ctrl+t", "check", "Check with the server", id="profile-form.check"),
        Binding("enter", "answer", "Save", id="profile-form.save"),
        # priority: run as the key arrives, so the characters typed after a tab in one burst
        # (a paste, tmux send-keys) go to the next field, not the one being left
        Binding(
            "tab", "app.focus_next", "Next field", show=False, priority=True, id="profile-form.next"
        ),
        Binding(
            "shift+tab",
            "app.focus_previous",
            "Previous field",
            show=False,
            priority=True,
            id="profile-form.previous",
        ),
    ]
    CSS_PATH = "profile_form.tcss"

    def __init__(
        self, *, name: str = "", model: str = "", base_url: str = "", taken: frozenset = frozenset()
    ) -> None:
        super().__init__()
        self.new = not name
        self.fixed_name = name
        self.model = model
        self.base_url = base_url
        self.taken = taken
        self.checking = False

    def compose(self) -> ComposeResult:
        with Vertical(id="profile-box"):
            title = "New LLM profile" if self.new else f"Check the profile {self.fixed_name}"
            yield Static(Text(clean(title), style="bold"), id="profile-title")
            key_hint = "optional; sent only to the server"
            if not self.new:
                key_hint = "to check with (the stored one is never read back)"
            fields = [
                ("Model", "profile-model", self.model, "e.g. anthropic/claude-sonnet-4-5", False),
                ("Base URL", "profile-url", self.base_url, "optional: the provider's own", False),
                ("API key", "profile-key", "", key_hint, True),
            ]
            if self.new:
                fields.insert(0, ("Name", "profile-name", "", "e.g. fast-model", False))
            for label, field_id, value, hint, secret in fields:
                with Horizontal(classes="profile-row"):
                    yield Static(Text(label), classes="profile-label")
                    kind = KeyInput if secret else OrderedInput
                    yield kind(value, placeholder=hint, password=secret, id=field_id)
            yield Static(Text(self._hint()), id="profile-result")
        yield KeyBar()

    def _hint(self) -> str:
        if self.new:
            return "ctrl+t checks the settings with the server; enter saves the profile."
        return "enter (or ctrl+t) asks the server to reach the model with these settings."

    def on_mount(self) -> None:
        self.query_one("#profile-name" if self.new else "#profile-model", Input).focus()

    def _say(self, words: str) -> None:
        self.query_one("#profile-result", Static).update(Text(words))

    def _draft(self, *, saving: bool = False) -> ProfileDraft | None:
        name = self.query_one("#profile-name", Input).value.strip() if self.new else self.fixed_name
        model = self.query_one("#profile-model", Input).value.strip()
        url = self.query_one("#profile-url", Input).value.strip() or None
        key = self.query_one("#profile-key", Input).value or None
        if not valid_profile_name(name):
            self._say(
                "A name is 1 to 64 letters, digits, '.', '_' or '-', "
                "starting with a letter or digit."
            )
            return None
        if saving and name in self.taken:
            self._say(f"There is a profile named {name} already: choose another name.")
            return None
        if not model:
            self._say("A profile needs a model, e.g. anthropic/claude-sonnet-4-5.")
            return None
        if url is not None and not url.startswith(("http://", "https://")):
            # said without the text typed: a key pasted into the wrong field stays unshown
            self._say("The base URL starts with http:// or https:// (or is left empty).")
            return None
        return ProfileDraft(name, model, url, key)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer()

    def action_answer(self) -> None:
        if not self.new:
            self.action_check()
            return
        draft = self._draft(saving=True)
        if draft is not None:
            self.dismiss(draft)

    def action_check(self) -> None:
        draft = self._draft()
        if draft is None or self.checking:
            return
        self.checking = True
        self._say("Asking the server to reach the model…")
        self._check(draft)

    @work(exclusive=True, group="profile-check")
    async def _check(self, draft: ProfileDraft) -> None:
        try:
            result = await self.app.client.check_llm_profile(
                draft.name, draft.model, draft.base_url, draft.api_key
            )
        except Exception as exc:  # noqa: BLE001 - the server's refusal, in its words
            self._say(f"The check failed: {server_words(exc)}")
        else:
            error = result.error
            self._say(check_words(result.valid, error and error.type, error and error.message))
        finally:
            self.checking = False

    def action_cancel(self) -> None:
        self.dismiss(None)
