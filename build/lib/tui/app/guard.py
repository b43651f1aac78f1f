"""No failure of one action, handler, worker or callback closes the app.

Textual exits on any exception that escapes: from a key's action, a message handler, a
``@work`` worker (``exit_on_error``), a timer or a ``call_later``/``call_after_refresh``
callback; and where it escapes a message handler, that widget's message loop has already
stopped for good. Here the failures are caught where they happen, told to the user as a
notification with the reason, logged with their traceback (secrets masked) to the log file
the notice names (``log_file.py``), and the app keeps running:

* :class:`AppGuard` (on the app): every action (``run_action``: keys, links, the palette),
  and what still reaches Textual's last handler once the app runs: a worker's failure, a
  timer's or a callback's error. A failure while the app starts, or a storm of them
  (:data:`STORM` in :data:`STORM_S` seconds: something fails on every frame), still ends
  the app with the traceback, as Textual does.
* :class:`GuardedDispatch` (on a screen or widget): its message handlers and posted
  callbacks, so its message loop survives (everything but ``Compose``); once the node is
  being removed (its screen popped, the app closing), a handler's failure is only logged.
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual import actions, events
from textual.app import App
from textual.worker import WorkerFailed

from tui.app.log_file import current as current_log_file
from tui.app.textual_compat import EscapedFailureHook, HandlerFailureHook
from tui.client.known_secrets import redact_known
from tui.text import clean

if TYPE_CHECKING:
    from textual.actions import ActionParseResult
    from textual.dom import DOMNode
    from textual.message import Message

log = logging.getLogger("tui.app")

#: This many failures within STORM_S seconds: the app is broken, let it exit.
STORM = 20
STORM_S = 5.0


def reason(exc: BaseException) -> str:
    """One line for the user: the exception's type and first line, cleaned and masked (every
    key a client was given, and the usual patterns)."""
    if isinstance(exc, WorkerFailed):
        exc = exc.error
    text = (str(exc).splitlines() or [""])[0].strip()
    name = type(exc).__name__
    said = f"{name}: {text}" if text and name not in text else (text or name)
    return clean(redact_known(said))[:300]


def report(app: App, where: str, exc: BaseException) -> None:
    """Say that ``where`` failed and why; log the traceback (masked). Never raises."""
    try:
        if isinstance(exc, WorkerFailed):
            exc = exc.error
        lines = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        log.error("%s failed; the app goes on:\n%s", where, redact_known(lines))
        written = current_log_file()  # the details are promised only where they are
        details = f"; details in {written}" if written is not None else ""
        app.notify(
            f"{where} failed: {reason(exc)}. The app goes on{details}.",
            title="Something went wrong",
            severity="error",
            timeout=10,
            markup=False,
        )
    except Exception:
        log.exception("could not report a failure")


def being_removed(node: DOMNode) -> bool:
    """The node is being taken off the screen (closing, closed or pruned: Textual's
    ``display`` is then False), is no longer attached, or its app was told to exit (a
    node's ``is_attached`` is then False; the app's return code is set)."""
    exiting = node.return_code is not None if isinstance(node, App) else not node.is_attached
    return exiting or (node.styles.display != "none" and not node.display)


def action_name(action: str | ActionParseResult) -> str:
    """The action's name without its namespace and parameters (``app.quit`` → ``quit``)."""
    if not isinstance(action, str):
        return action[1]
    try:
        return actions.parse(action)[1]
    except actions.ActionError:
        return action


class AppGuard(EscapedFailureHook):
    """Mixed into the app ahead of :class:`textual.app.App` (see the module doc)."""

    _guard_times: list[float]

    def _guard_storm(self) -> bool:
        """True when failures come too fast to go on (a frame that fails every time)."""
        now = time.monotonic()
        times = getattr(self, "_guard_times", None)
        if times is None:
            times = self._guard_times = []
        times.append(now)
        while times and now - times[0] > STORM_S:
            times.pop(0)
        return len(times) > STORM

    def _guard_ready(self) -> bool:
        """The app runs normally (not starting, not exiting) with a screen to notify on."""
        app: Any = self
        return bool(
            app.is_running
            and app.return_code is None
            and app.screen_stack
            and app.screen.is_mounted
        )

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        try:
            return await super().run_action(action, default_namespace, namespaces)  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not self._guard_ready() or self._guard_storm():
                raise
            name = action_name(action)
            report(self, f"The {name.replace('_', ' ')} action", exc)  # type: ignore[arg-type]
            return True

    def failure_escaped(self, error: Exception) -> bool:
        if self._guard_ready() and not self._guard_storm():
            what = "A background task" if isinstance(error, WorkerFailed) else "A callback"
            report(self, what, error)  # type: ignore[arg-type]
            return True
        return False


class GuardedDispatch(HandlerFailureHook):
    """Mixed into a screen or widget ahead of its Textual base (see the module doc)."""

    def handler_failed(self, message: Message, error: Exception) -> bool:
        app: Any = getattr(self, "app", None)
        if isinstance(message, events.Compose) or app is None:
            return False
        guard = app if isinstance(app, AppGuard) else None
        if being_removed(self):  # type: ignore[arg-type]
            # a screen pushed just before the app closes (or the screen is popped) gets
            # its Mount after its widgets are gone (``ohtui PATH --conversation ID``,
            # then q at once): nothing is left to act on, and nothing to tell
            log.debug("%s: %s while removed", type(self).__name__, type(error).__name__)
            return True
        if guard is None or not guard._guard_ready() or guard._guard_storm():
            return False
        name = getattr(message, "handler_name", type(message).__name__)
        report(app, f"{type(self).__name__} ({name.removeprefix('on_')})", error)
        return True
