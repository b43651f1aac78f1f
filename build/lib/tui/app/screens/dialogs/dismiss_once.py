"""A screen is answered once, and closes only itself.

Textual's ``Screen.dismiss`` pops whatever screen is on top, not the one dismissed. Keys
typed fast reach a screen after it was answered: enter on the filter dialog's kinds posts
its choice, and an esc right behind it cancels the dialog before the choice arrives; the
choice then dismissed the conversation under the dialog (a key storm emptied the terminal
that way, one screen at a time). So a screen no longer on the stack answers nothing, and
one with another screen over it (the command palette, while a new conversation starts)
answers once it is on top again instead of closing that one.
"""

from __future__ import annotations

import logging
from typing import Any

from textual.await_complete import AwaitComplete

log = logging.getLogger("tui.app")


class DismissOnce:
    """Mixed into a screen ahead of its Textual base: :meth:`dismiss` closes only this one."""

    def dismiss(self, result: Any = None) -> AwaitComplete:
        screen: Any = self
        app = screen.app
        if screen not in app.screen_stack:
            log.debug("%s answered again; nothing closed", type(self).__name__)
            return AwaitComplete()
        if app.screen is not screen:
            signal = app.screen_change_signal

            def on_top(current: object) -> None:
                if current is screen:
                    signal.unsubscribe(screen)
                    screen.dismiss(result)

            signal.subscribe(screen, on_top)
            return AwaitComplete()
        return super().dismiss(result)  # type: ignore[misc]
