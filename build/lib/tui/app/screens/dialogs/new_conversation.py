"""Starting a conversation: the dialog (title, first message) and the start it follows.

An app server starts a conversation in the background and reports a start task's status
(WORKING → WAITING_FOR_SANDBOX → … → READY, or ERROR with its reason); the real one takes
minutes when it needs a sandbox. The start runs in a worker of the conversations screen
(:class:`ConversationStarts`), not of the dialog: the dialog shows every status with the
time it came, and ``esc`` while it runs only stops watching — the server goes on, the list
says how far it got, and a notice says when it is ready or why it failed. Only one start
runs at a time: ``n`` meanwhile shows its progress again. A bare agent server starts a
conversation at once from the user's agent settings (``agent_settings_file``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from tui.app import server_marks
from tui.app.format import status_value
from tui.app.refusals import read_only_reason
from tui.app.screens.dialogs.dismiss_once import DismissOnce
from tui.app.screens.dialogs.errors import server_advice, server_words
from tui.app.screens.dialogs.field_keys import FIELD_KEYS
from tui.app.server_marks import duration
from tui.app.themes import theme_style
from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.common.ordered_input import OrderedInput
from tui.text import one_line

TICK_S = 0.5
START_POLL_S = 0.5  # how often the start task is asked while it is young (the client slows down)
AGENT_STATUS = "STARTING"  # a bare agent server's start has no task statuses
#: After a start on an app server, the typed title is checked this often, this many times:
#: the real one (openhands-ai 1.11) sets the agent's own title 3–12 s after the first message
#: (its set-title callback polls the sandbox 4 × 3 s), over the title ohtui applied at READY.
TITLE_CHECK_S = 4.0
TITLE_CHECKS = 6


@dataclass
class StartProgress:
    """One conversation start as the UI follows it."""

    title: str
    began: float = field(default_factory=lambda: server_marks.monotonic())
    #: ``(status, seconds after the start when it was first seen)``, oldest first
    steps: list[tuple[str, float]] = field(default_factory=list)
    detail: str = ""
    conversation_id: str | None = None
    error: str | None = None
    #: what to do about a known server fault ('' for others)
    advice: str = ""
    done: bool = False
    #: a dialog shows it (False: the user stopped waiting; a notice tells the end)
    watched: bool = True
    #: called when anything changed (the dialog showing it redraws at once)
    listener: Callable[[], object] | None = field(default=None, repr=False, compare=False)

    def changed(self) -> None:
        if self.listener is not None:
            self.listener()

    def elapsed(self) -> float:
        return max(0.0, server_marks.monotonic() - self.began)

    def seen(self, status: str, detail: str | None = None) -> None:
        if not self.steps or self.steps[-1][0] != status:
            self.steps.append((status, self.elapsed()))
        if detail:
            self.detail = one_line(detail, 300)
        self.changed()

    @property
    def status(self) -> str:
        return self.steps[-1][0] if self.steps else "sending"

    def lines(self) -> Text:
        """Every status seen, with when it came; the current one ticking; the one a failed
        start stopped at crossed (a failure is never ticked as done)."""
        text = Text()
        for index, (status, at) in enumerate(self.steps):
            last = index == len(self.steps) - 1
            current = last and not self.done
            failed = last and self.done and (self.error is not None or status == "ERROR")
            mark = "●" if current else "✕" if failed else "✓"
            style = "bold" if current else theme_style("$error") if failed else "dim"
            text.append(f"\n{mark} " if text else f"{mark} ", style=style)
            text.append(f"{one_line(status, 40):<24}", style="" if current else "dim")
            text.append(duration(self.elapsed() if current else at), style="dim")
        if not self.steps and not self.done:
            text.append(f"● sending the request  {duration(self.elapsed())}", style="italic")
        if self.detail and not (self.error and self.detail in self.error):
            text.append(f"\n  {self.detail}", style="dim")
        return text

    def summary(self) -> Text:
        """One line for the conversations list while nobody watches."""
        return Text(
            f"starting “{one_line(self.title, 30) or 'a conversation'}”: "
            f"{one_line(self.status, 30)} · {duration(self.elapsed())}",
            style="italic",
        )


class ConversationStarts:
    """The conversations screen's half of a start: one at a time, followed in its worker."""

    _start: StartProgress | None = None

    def can_start(self) -> bool:
        app: Any = self.app  # type: ignore[attr-defined]
        if app.readonly or app.local or app.shared:
            return False
        return app.can("start_conversation")

    def why_not_start(self) -> str:
        """Why ``n`` starts nothing here (``can_start`` is False), for the user."""
        app: Any = self.app  # type: ignore[attr-defined]
        if app.readonly or app.local or app.shared:
            return read_only_reason(app)
        info = app.server_info
        if info is not None and info.kind == "agent":
            return (
                "This agent server has no agent settings to start a conversation with:"
                " set agent_settings_file in the config (ohtui config path shows where it is)."
            )
        return "This server cannot start conversations."

    def starting(self) -> StartProgress | None:
        start = self._start
        return start if start is not None and not start.done else None

    def start_line(self) -> Text | None:
        start = self.starting()
        return start.summary() if start is not None and not start.watched else None

    def action_new(self) -> None:
        if not self.can_start():
            return
        app: Any = self.app  # type: ignore[attr-defined]
        info = app.server_info
        agent = info is not None and info.kind == "agent"
        pending = self.starting()
        if pending is not None:
            pending.watched = True
        app.push_screen(
            NewConversationScreen(self.begin_start, pending, agent=agent), self._dialog_closed
        )

    def begin_start(self, title: str, message: str) -> StartProgress:
        progress = StartProgress(title=title)
        self._start = progress
        self._run_start(progress, title, message)
        return progress

    @work(group="new-conversation", exit_on_error=False)
    async def _run_start(self, progress: StartProgress, title: str, message: str) -> None:
        app: Any = self.app  # type: ignore[attr-defined]
        client = app.client
        try:
            info = app.server_info
            if info is not None and info.kind == "agent":
                progress.seen(AGENT_STATUS)
                conv = await client.start_agent_conversation(
                    message=message or None, title=title or None
                )
                progress.conversation_id = conv.id
                progress.seen("READY")
            else:
                request: dict[str, Any] = {}
                if title:
                    request["title"] = title
                if message:
                    request["initial_message"] = {
                        "role": "user",
                        "content": [{"type": "text", "text": message}],
                        "run": True,
                    }

                def on_progress(task: Any) -> None:
                    progress.seen(status_value(task.status) or "?", task.detail)
                    progress.conversation_id = task.app_conversation_id or progress.conversation_id

                task = await client.create_conversation(
                    request, on_progress=on_progress, poll_interval=START_POLL_S
                )
                progress.conversation_id = task.app_conversation_id
                if title and task.app_conversation_id:
                    self._keep_title(task.app_conversation_id, title)
        except Exception as exc:  # noqa: BLE001 - the server's own words, shown
            progress.error = server_words(exc)
            progress.advice = server_advice(exc)
        finally:
            progress.done = True
        progress.changed()
        self._start_finished(progress)

    @work(group="keep-title", exit_on_error=False)
    async def _keep_title(self, conversation_id: str, title: str) -> None:
        """The title the user typed, set again if the server replaced it after the start."""
        client: Any = self.app.client  # type: ignore[attr-defined]
        for _ in range(TITLE_CHECKS):
            await asyncio.sleep(TITLE_CHECK_S)
            try:
                found = (await client.get_conversations([conversation_id]))[0]
                if found is not None and found.title != title:
                    await client.rename_conversation(conversation_id, title)
            except Exception:  # noqa: BLE001 - a title is not worth a failure
                return

    def _dialog_closed(self, result: str | None) -> None:
        app: Any = self.app  # type: ignore[attr-defined]
        if result:
            self.refresh_rows()  # type: ignore[attr-defined]
            app.open_conversation(result)
            return
        start = self.starting()
        if start is not None:
            start.watched = False
            self.notify(  # type: ignore[attr-defined]
                "Stopped waiting; the server goes on starting the conversation. "
                "You will be told when it is ready (n shows its progress).",
                markup=False,
            )
            self._status()  # type: ignore[attr-defined]

    def _start_finished(self, progress: StartProgress) -> None:
        if progress.watched:
            return  # the dialog shows the end and closes itself
        title = one_line(progress.title, 60) or "The new conversation"
        if progress.error is not None:
            self.notify(  # type: ignore[attr-defined]
                f"{title}: not started. {progress.error}"
                + (f"\nNext: {progress.advice}." if progress.advice else ""),
                title="New conversation",
                severity="error",
                timeout=15,
                markup=False,
            )
        else:
            self.notify(  # type: ignore[attr-defined]
                f"“{title}” is ready: it is in the list (enter opens it).",
                title="New conversation",
                timeout=10,
                markup=False,
            )
            self.refresh_rows()  # type: ignore[attr-defined]
            self._cursor_id = progress.conversation_id  # type: ignore[attr-defined]
        self._status()  # type: ignore[attr-defined]


class NewConversationScreen(DismissOnce, ModalScreen[str | None]):
    """Title and first message, then the start's progress; dismissed with the new id."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="new.cancel"),
        Binding("escape", "stop_waiting", "Stop waiting", id="new.stop-waiting"),
        Binding("ctrl+s", "start", "Start", id="new.start"),
        *FIELD_KEYS,
        # enter in the title goes on to the message as it arrives (see field_keys.py)
        Binding("enter", "next_field", "Next field", show=False, priority=True),
    ]
    CSS_PATH = "new_conversation.tcss"

    def __init__(
        self,
        begin: Callable[[str, str], StartProgress],
        progress: StartProgress | None = None,
        *,
        agent: bool = False,
    ) -> None:
        super().__init__()
        self.begin = begin
        self.progress = progress
        self.agent = agent
        self._over = False

    def compose(self) -> ComposeResult:
        with Vertical(id="new-box"):
            where = "on the agent server" if self.agent else ""
            yield Static(Text(f"New conversation {where}".strip(), style="bold"))
            title = self.progress.title if self.progress is not None else ""
            yield OrderedInput(title, placeholder="title (optional)", id="new-title")
            yield OrderedInput(
                placeholder="first message to the agent (optional)", id="new-message"
            )
            with VerticalScroll(id="new-progress-box"):  # a long reason scrolls, buttons stay
                yield Static(id="new-progress")
            with Horizontal(id="new-buttons"):
                yield Button("Cancel", id="new-cancel")
                yield Button("Start", id="new-start", variant="primary")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#new-title", Input).focus()
        self.set_interval(TICK_S, self.draw)
        if self.progress is not None:
            self.progress.listener = self.draw
        self.draw()

    def on_unmount(self) -> None:
        if self.progress is not None and self.progress.listener == self.draw:
            self.progress.listener = None

    @property
    def running(self) -> bool:
        return self.progress is not None and not self.progress.done

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("start", "cancel"):
            return not self.running
        if action == "stop_waiting":
            return self.running
        if action == "next_field":  # elsewhere enter is the field's or the button's own
            focused = self.focused
            return focused is not None and focused.id == "new-title" and not self.running
        return True

    def draw(self) -> None:
        if self._over or not self.is_attached:
            return
        progress = self.progress
        box = self.query_one("#new-progress", Static)
        running = self.running
        for widget in self.query(Input):
            widget.disabled = running
        self.query_one("#new-start", Button).disabled = running
        cancel = self.query_one("#new-cancel", Button)
        cancel.label = "Stop waiting" if running else "Cancel"
        if progress is None:
            box.update("")
            return
        text = progress.lines()
        if progress.done and progress.error is not None:
            text.append("\n")
            text.append(progress.error, style=theme_style("$error bold"))
            if progress.advice:
                text.append("\nNext: ", style="bold")
                text.append(f"{progress.advice}.")
        elif running:
            text.append(
                "\nesc stops waiting; the server goes on and the list shows it.", style="dim"
            )
        box.update(text)
        if progress.done:
            self.refresh_bindings()
        if progress.done and progress.error is None and progress.conversation_id:
            self._over = True
            self.dismiss(progress.conversation_id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "new-title":
            self.query_one("#new-message", Input).focus()
        else:
            self.action_start()

    def action_next_field(self) -> None:
        self.set_focus(self.query_one("#new-message", Input))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "new-start":
            self.action_start()
        else:
            self.action_cancel()

    def action_start(self) -> None:
        if self.running:
            return
        title = self.query_one("#new-title", Input).value.strip()
        message = self.query_one("#new-message", Input).value.strip()
        self.progress = self.begin(title, message)
        self.progress.listener = self.draw
        self.refresh_bindings()
        self.draw()

    def action_cancel(self) -> None:
        """Close; while a start runs this only stops watching it."""
        if not self._over:
            self._over = True
            self.dismiss(None)

    def action_stop_waiting(self) -> None:
        self.action_cancel()
