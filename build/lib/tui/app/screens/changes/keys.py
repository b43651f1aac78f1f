"""Every key of the Changes view, in the order the key bar and the help show them (on a
narrow terminal the last ones give way first). Each binding's ``id`` is what a user's
``[keymap]`` targets (``changes.uncommitted`` …); the actions are in ``screen.py``."""

from __future__ import annotations

from textual.binding import Binding

CHANGES_KEYS = [
    Binding("escape", "back", "Back", id="changes.back"),
    Binding(
        "u",
        "uncommitted",
        "Uncommitted",
        id="changes.uncommitted",
        tooltip="Only the changes not committed yet (against HEAD), or all against the base",
    ),
    Binding("c", "commits", "Commits", id="changes.commits"),
    Binding("s", "side_by_side", "Side by side", id="changes.side-by-side"),
    Binding(
        "e",
        "edits",
        "Edits",
        id="changes.edits",
        tooltip="The events of the conversation that edited this file",
    ),
    Binding("ctrl+s", "save_patch", "Save patch", id="changes.patch"),
    Binding("r", "refresh", "Refresh", id="changes.refresh"),
    Binding("right_square_bracket", "step(1)", "Next file", show=False, id="changes.next-file"),
    Binding(
        "left_square_bracket",
        "step(-1)",
        "Previous file",
        show=False,
        id="changes.previous-file",
    ),
]
