"""No failure of one action, handler, worker or callback closes the app.

Textual exits on any exception that escapes: from a key's action, a message handler, a
``@work`` worker (``exit_on_error``), a timer or a ``call_later``/``call_after_refresh``
callback; and where it escapes a message handler, that widget's message loop has already
stopped for good. Here the failures are caught where they happen, told to the user as a
notification with the reason, logged with their traceback (secrets masked) to the log file
the notice names (``log_file.py``), and the app keeps running:

* :class:`AppGuard` (on the app): every key action (``_dispatch_action``), and what still
  reaches ``_handle_exception`` once the app runs: a worker's failure, a timer's or a
  callback's error. A failure while the app starts, or a storm of them
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
from typing import TYPE_CHECKING, Any

from textual import events
from textual.worker import WorkerFailed

from tui.client.known_secrets import redact_known
from tui.text import clean

from .log_file import current as current_log_file

if TYPE_CHECKING:
    from textual.app import App
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


class AppGuard:
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
            app.is_running and not app._exit and app._screen_stack and app.screen.is_mounted
        )

    async def _dispatch_action(self, namespace: Any, action_name: str, params: Any) -> bool:
        try:
            return await super()._dispatch_action(namespace, action_name, params)  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not self._guard_ready() or self._guard_storm():
                raise
            report(self, f"The {action_name.replace('_', ' ')} action", exc)  # type: ignore[arg-type]
            return True

    def _handle_exception(self, error: Exception) -> None:
        if self._guard_ready() and not self._guard_storm():
            what = "A background task" if isinstance(error, WorkerFailed) else "A callback"
            report(self, what, error)  # type: ignore[arg-type]
            return
        super()._handle_exception(error)  # type: ignore[misc]


class GuardedDispatch:
    """Mixed into a screen or widget ahead of its Textual base (see the module doc)."""

    async def _dispatch_message(self, message: Message) -> None:
        try:
            await super()._dispatch_message(message)  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            app: Any = getattr(self, "app", None)
            if isinstance(message, events.Compose) or app is None:
                raise
            guard = app if isinstance(app, AppGuard) else None
            if self._being_removed():
                # a screen pushed just before the app closes (or the screen is popped) gets
                # its Mount after its widgets are gone (``ohtui PATH --conversation ID``,
                # then q at once): nothing is left to act on, and nothing to tell
                log.debug("%s: %s while removed", type(self).__name__, type(exc).__name__)
                return
            if guard is None or not guard._guard_ready() or guard._guard_storm():
                raise
            name = getattr(message, "handler_name", type(message).__name__)
            report(app, f"{type(self).__name__} ({name.removeprefix('on_')})", exc)

    def _being_removed(self) -> bool:
        """The node is being taken off the screen, or its app was told to exit (its screens
        are then taken down before they are pruned): Textual's own flags."""
        return bool(
            getattr(self, "_pruning", False)
            or getattr(self, "_closing", False)
            or getattr(self, "_closed", False)
            or getattr(getattr(self, "app", None), "_exit", False)
        )
