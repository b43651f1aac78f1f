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
    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                if self.check_action(binding.action, ()) is False:
                    continue
                event.stop()
                event.prevent_default()
                self._restart_blink()
                await self.run_action(binding.action)
                return
        await super()._on_key(event)
