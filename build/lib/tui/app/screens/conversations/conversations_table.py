"""The conversations list's table: enter opens the row under the cursor at once.

A key's binding runs when the app takes the key back from the widget that had it, in the
order typed. Enter's "row selected" message reached the screen only after the keys typed
right behind it (``⏎ G`` as one burst, a fast typist, ``tmux send-keys``) had acted on the
table already. Opened as enter's binding runs, and mounted before the app takes the next
key, the conversation gets them: ``G`` goes to its last event.
"""

from __future__ import annotations

from tui.app.widgets.common.fitted_table import FittedTable


class ConversationsTable(FittedTable):
    async def action_select_cursor(self) -> None:
        open_current = getattr(self.screen, "open_current", None)
        if open_current is None:  # not on the conversations screen: a table's usual enter
            super().action_select_cursor()
        else:
            await open_current()
