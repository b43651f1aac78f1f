"""What the keys panel adds to a key's line: where the same key means something else.

A key keeps one meaning across the screens people move between where habits allow (``o``
orders the conversations list, the board and a conversation alike), but some habits
clash: ``n`` is "new conversation" on the list and vim's "next hit" in a conversation;
``space`` runs the agent in a conversation and marks a row on the board. The panel says so
on the key's own line ("in Conversations: New conversation"). The differences
are read from the screens' bindings (with the user's keymap), so the note cannot go
stale; keys with one spirit everywhere (back, open, the next pane) are left alone.

Also: what ``ctrl+c`` copies here (``copy_key.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingsMap

if TYPE_CHECKING:
    from textual.screen import Screen

#: keys whose words differ by screen but not their spirit: back, open, the next pane
UNIVERSAL = frozenset({"escape", "enter", "tab", "shift+tab"})
_WORD = re.compile(r"[a-z]+")


def _main_screens() -> list[type]:
    """The screens people move between by habit (the number keys and enter)."""
    from tui.app.screens.board.board import BoardScreen
    from tui.app.screens.conversation import ConversationScreen
    from tui.app.screens.conversations.conversations import ConversationsScreen
    from tui.app.screens.sandboxes.sandboxes import SandboxesScreen

    return [ConversationsScreen, ConversationScreen, BoardScreen, SandboxesScreen]


def class_bindings(cls: type) -> BindingsMap:
    """The bindings a screen of class ``cls`` has of its own, merged along its classes as
    Textual merges them (a subclass's key replaces its base's), without making one."""
    keys: dict[str, list[Binding]] = {}
    for base in reversed(cls.__mro__):
        for key, each in BindingsMap(base.__dict__.get("BINDINGS", [])).key_to_bindings.items():
            keys[key] = each
    return BindingsMap.from_keys(keys)


def meanings(cls: type, keymap: dict[str, str]) -> dict[str, str]:
    """Key → what it does on a screen of class ``cls`` (its own keys, keymap applied)."""
    bindings = class_bindings(cls)
    if keymap:
        bindings.apply_keymap(keymap)
    out: dict[str, str] = {}
    for key, each in bindings.key_to_bindings.items():
        for binding in each:
            if binding.description and not binding.system:
                out.setdefault(key, binding.description)
    return out


def _gist(description: str) -> str:
    """The first word: "Copy id" and "Copy", "Pause/run" and "Pause" mean the same."""
    found = _WORD.search(description.lower())
    return found.group() if found else ""


def elsewhere(screen: Screen) -> dict[str, str]:
    """Key → "in Board: Mark" for the keys of ``screen`` that do something else on another
    of the main screens (each named by its title)."""
    keymap = dict(getattr(screen.app, "_keymap", {}) or {})
    here = type(screen)
    mine = meanings(here, keymap)
    others = [(cls, meanings(cls, keymap)) for cls in _main_screens() if cls is not here]
    notes: dict[str, str] = {}
    for key, description in mine.items():
        if key in UNIVERSAL:
            continue
        differ = [
            f"in {cls.BINDING_GROUP_TITLE}: {theirs[key]}"
            for cls, theirs in others
            if key in theirs and _gist(theirs[key]) != _gist(description)
        ]
        if differ:
            notes[key] = "; ".join(differ)
    return notes


def copy_note(screen: Screen) -> str:
    """What ``ctrl+c`` copies here besides text selected with the mouse."""
    action = getattr(screen, "COPY_ACTION", None)
    for active in screen.active_bindings.values() if action else ():
        if active.binding.action == action:
            shown = screen.app.get_key_display(active.binding)
            return f"with the mouse; else as {shown}: {active.binding.description}"
    return "with the mouse (nothing else to copy here)"
