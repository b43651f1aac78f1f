"""What the conversation screen's first frame does not redo.

Opening a conversation is timed against a bare Textual screen with one list
(``bench/bare.py``). Most of what is left between the push and the first rows is Textual
styling the panes: each widget is styled as it mounts, the list again when it takes the
focus, and the whole screen once more when Textual resumes it (``ScreenResume`` restyles a
screen, for one coming back from under another after the theme changed). For a screen
resumed for the first time, right after it mounted, that last pass recomputes what its
widgets were given a moment before (bench: "open 100,000 events: view → first rows
painted"), so it is skipped; every later resume (after a dialog, a theme change, the palette)
restyles as before.
"""

from __future__ import annotations

from textual import events


class FirstFrameMixin:
    """Part of :class:`~.screen.ConversationScreen`: its first resume keeps the styles it has."""

    _resumed = False

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Runs before :class:`~textual.screen.Screen`'s own handler (a subclass's comes
        first in Textual's dispatch), which then lays out and refreshes as usual."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False  # styled as each widget mounted, moments ago
