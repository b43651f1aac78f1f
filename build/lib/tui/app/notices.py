"""Telling the user when a watched agent needs them: finished, failed, stuck, waiting.

The open conversation (over its stream) and the conversations list (by polling) report
status changes here; a change into one of the configured statuses becomes a notification,
a terminal bell, and optionally a desktop notification. Each change is announced once: the
notifier keeps the last status it heard of per conversation, so the list's poll reporting
what the stream already said is not news, and a status flapping back (a stale record
after the stream) is not news again within :data:`REPEAT_S`.

Nothing is shown while the user types (a dialog, a prompt, a text field has the focus):
the app holds the notices and shows them once the typing is over (:func:`user_is_typing`).
Toasts sit at the top right, small (:data:`TOAST_CSS`), clear of the detail pane and the
message line at the bottom. A screen whose rows show the change (the conversations list, the
board) says it in its status line instead (``board/notices.py``: ``tell_in_status_line``);
the bell and desktop notifications go with either (:func:`alert`).
"""

from __future__ import annotations

import asyncio
import html
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tui.app.format import status_value
from tui.text import clean

DEFAULT_STATUSES = ("finished", "error", "stuck", "waiting_for_confirmation")
#: status → (what is said, notification severity)
WORDING = {
    "finished": ("finished", "information"),
    "error": ("stopped with an error", "error"),
    "stuck": ("is stuck", "warning"),
    "waiting_for_confirmation": ("waits for your confirmation", "warning"),
    "paused": ("paused", "information"),
    "idle": ("is idle", "information"),
}
REPEAT_S = 30.0  # the same conversation reaching the same status again within this is not news


@dataclass
class Notifier:
    statuses: frozenset[str] = frozenset(DEFAULT_STATUSES)
    bell: bool = True
    desktop: bool = False
    clock: Callable[[], float] = time.monotonic
    _said: dict[tuple[str, str], float] = field(default_factory=dict)
    #: the last status heard of, per conversation (from any source)
    _known: dict[str, str] = field(default_factory=dict)

    def notice(
        self, conversation_id: str, title: str, old: object, new: object
    ) -> tuple[str, str] | None:
        """``(message, severity)`` when ``old → new`` is worth telling, else None.

        ``old`` None means the status was not known before (a first load): not a change;
        neither is a change into the status already heard of from another source."""
        before, after = status_value(old), status_value(new)
        if after is None:
            return None
        known = self._known.get(conversation_id)
        self._known[conversation_id] = after
        if before is None or before == after or after == known or after not in self.statuses:
            return None
        now = self.clock()
        key = (conversation_id, after)
        if now - self._said.get(key, -REPEAT_S * 2) < REPEAT_S:
            return None
        self._said[key] = now
        words, severity = WORDING.get(after, (after, "information"))
        return f"{title}: the agent {words}.", severity


#: Toasts: top right under the header, narrow, one line of padding: never over the detail
#: pane (bottom right) or the message line and the key bar (bottom).
TOAST_CSS = """
ToastRack { dock: top; align: right top; margin-top: 2; margin-bottom: 0; }
Toast { width: 46; max-width: 45%; padding: 0 1; margin-top: 0; margin-bottom: 1; }
"""


def alert(app: object, texts: list[str]) -> None:
    """The bell and the desktop notifications (as configured) for notices just told, wherever
    they were shown; not for the bundled demo, whose agents run by themselves."""
    notifier = getattr(app, "notifier", None)
    if not texts or notifier is None or getattr(app, "bundled", False):
        return
    if notifier.bell:
        app.bell()  # type: ignore[attr-defined]
    for text in texts if notifier.desktop else ():
        app.run_worker(  # type: ignore[attr-defined]
            desktop_notify("ohtui", text), group="desktop-notify", exit_on_error=False
        )


def user_is_typing(app: object) -> bool:
    """A dialog or prompt is open, or a text field has the focus: keys belong to it, and
    nothing should pop up over it."""
    from textual.screen import ModalScreen
    from textual.widgets import Input, TextArea

    try:
        screen = app.screen  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - no screen (starting, shutting down): nobody types
        return False
    if isinstance(screen, ModalScreen):
        return True
    return isinstance(getattr(screen, "focused", None), (Input, TextArea))


async def desktop_notify(title: str, body: str) -> bool:
    """Best effort ``notify-send``; False where there is none or it fails (never raises).

    The body starts with a conversation's title (untrusted): ``--`` keeps a title like
    ``--icon=…`` from being read as an option, and the body is escaped because notification
    daemons read it as markup (``<a href>``, ``<img>``); controls are neutralised in both."""
    program = shutil.which("notify-send")
    if program is None:
        return False
    try:
        process = await asyncio.create_subprocess_exec(
            program,
            "--app-name=ohtui",
            "--",
            clean(title),
            html.escape(clean(body), quote=False),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        return await asyncio.wait_for(process.wait(), 5) == 0
    except (TimeoutError, OSError):
        return False
