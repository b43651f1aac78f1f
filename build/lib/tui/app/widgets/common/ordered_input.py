"""An Input whose editing keys act in the order they were typed.

Textual runs a focused widget's own (non-priority) bindings only when the key has bubbled
back to the app, through the app's message queue, while printable keys are inserted by the
widget at once. A burst of keys (a paste, tmux ``send-keys``, a fast typist) such as
``ctrl+u status`` therefore typed ``status`` first and then ran ``ctrl+u``, erasing it;
``ab backspace c`` gave ``ab``. This Input runs its own bindings as the key arrives.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    async def on_key(self, event: events.Key) -> None:
        """Runs before Input's own key handler (a subclass's handler comes first in
        Textual's dispatch), which then restarts the cursor's blink as for any key."""
        if event.is_printable:
            return
        active = self.screen.active_bindings.get(event.key)
        if active is None or active.node is not self:
            return  # not one of this Input's bindings (or refused now): Textual's way
        event.stop()  # handled here: the app does not run it again
        await self.run_action(active.binding.action)
