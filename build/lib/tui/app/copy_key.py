"""``ctrl+c`` as a terminal user expects it: it copies.

Textual gives ``ctrl+c`` to a text field first (it copies the field's selection), then to the
screen (it copies text selected with the mouse); where neither had anything to copy, its app
only said "press ctrl+q to quit" — a key every terminal user presses to copy, or to stop,
answered with neither. Here it copies what the screen's copy key copies (its
``COPY_ACTION``: the row's id on the lists, the event on the conversation screen), and where
a screen has nothing to copy it says how to copy and how to quit — in a dialog too, whose
bindings stop before the app's (Textual dropped the key there without a word).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.actions import parse as parse_action

if TYPE_CHECKING:
    from textual.app import App


def copy_action(app: App) -> str | None:
    """The action ``ctrl+c`` runs on the current screen, if it applies there now."""
    screen = app.screen
    action = getattr(screen, "COPY_ACTION", None)
    if not action:
        return None
    target, name, parameters = parse_action(action)
    node = app if target == "app" else screen
    return action if node.check_action(name, parameters) is not False else None


def quit_keys(app: App) -> list[str]:
    """The keys that quit here, as the key bar shows them (``^q``, ``q``)."""
    keys: list[str] = []
    for active in app.screen.active_bindings.values():
        if active.enabled and active.binding.action in ("quit", "app.quit"):
            shown = app.get_key_display(active.binding)
            if shown not in keys:
                keys.append(shown)
    return keys


def how_to_copy_and_quit(app: App) -> str:
    quits = " or ".join(quit_keys(app)) or "^q"
    return (
        "Nothing is selected to copy: select text with the mouse, then ctrl+c copies it."
        f" To quit: {quits}."
    )


class CopyKey:
    """Mixed into the app: ``ctrl+c`` where no field and no mouse selection took it."""

    def unbound_key(self, key: str) -> bool:
        """``ctrl+c`` that no binding took (a dialog: nothing of the app's had the key)."""
        if key != "ctrl+c":
            return super().unbound_key(key)  # type: ignore[misc]
        app: App = self  # type: ignore[assignment]
        app.call_next(self.action_help_quit)
        return True

    async def action_help_quit(self) -> None:
        app: App = self  # type: ignore[assignment]
        action = copy_action(app)
        if action is not None:
            await app.run_action(action, app.screen)
            return
        app.notify(how_to_copy_and_quit(app), title="ctrl+c", markup=False)
