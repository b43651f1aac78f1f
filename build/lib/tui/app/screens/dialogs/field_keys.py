"""Tab and shift+tab in dialogs with several fields, as *priority* bindings.

Textual queues each key at the focused widget as it arrives, and an ordinary binding runs
when that widget reaches it: a title, tab and a message typed in one burst (a fast typist,
a paste, ``tmux send-keys``) were all queued at the title field, so the message went into
the title and the focus moved after it. A priority binding moves the focus as the key
arrives, so the keys after it already go to the next field (the conversation screen's panes
do the same, see ``conversation/keys.py``).
"""

from __future__ import annotations

from textual.binding import Binding

FIELD_KEYS = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
]
