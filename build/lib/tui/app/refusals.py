"""Why a key does nothing here, said when it is pressed.

A key whose action does not apply now (read-only mode, local folders, a server without the
feature, a conversation that is not live) is refused by ``check_action``: it returns False,
so the key bar and the help leave the key out and only offer what works. Textual then
drops the key without a word, and a user who presses it from habit (or from the README)
cannot tell a dead key from a broken one. So when no binding and no widget took a key, the
app asks the nodes whose binding refused it why (``why_not(action, parameters)``, a
method a screen, widget or the app may have; None: nothing worth saying) and shows the
first answer for a few seconds.

Keys that a text field types, or a dialog holds back, never get here: the field or the
dialog took them.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import actions

from tui.app.textual_compat import UnboundKeyHook, modal_bindings

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode

#: the namespaces an action may name (``app.quit``): the app's properties of those names
NAMESPACES = ("app", "screen", "focused")

#: how long a reason stays on screen; the same reason is not repeated meanwhile
REASON_S = 4.0


def read_only_reason(app: object) -> str:
    """Why nothing can be changed: local folders, a shared conversation, or read-only mode."""
    if getattr(app, "local", False):
        return "Local folders are read-only: ohtui only reads them."
    if getattr(app, "shared", False):
        return "A shared conversation is read-only."
    return "Read-only mode: nothing can be changed (--readonly, readonly = true or OHTUI_READONLY)."


def action_target(app: App, action: str, namespace: DOMNode) -> tuple[DOMNode, str, tuple] | None:
    """Where a binding's action runs, its name and parameters (as Textual runs it: the
    binding's own node unless the action names a namespace); None if that is not there."""
    try:
        named, name, parameters = actions.parse(action)
    except actions.ActionError:
        return None
    if not named:
        return namespace, name, parameters
    target = getattr(app, named, None) if named in NAMESPACES else None
    return None if target is None else (target, name, parameters)


def refusal(app: App, key: str) -> str | None:
    """Why ``key`` does nothing on the current screen: the reason of the first binding of
    the key (from the focused widget up) whose action is refused and has one."""
    for namespace, bindings in modal_bindings(app.screen):
        for binding in bindings.key_to_bindings.get(key, ()):
            found = action_target(app, binding.action, namespace)
            if found is None:
                continue
            target, name, parameters = found
            if target.check_action(name, parameters) is not False:
                continue  # it applies (it ran, or chose to do nothing itself)
            why_not = getattr(target, "why_not", None)
            reason = why_not(name, parameters) if callable(why_not) else None
            if reason:
                return reason
    return None


class RefusedKeys(UnboundKeyHook):
    """Mixed into the app ahead of :class:`textual.app.App`: a key nothing took says why.

    Textual checks the (non-priority) bindings once a key has bubbled back to the app,
    from the focused widget up; where none ran, the refusal is told and the key counts as
    handled. (Hooked there, not on the app's key handler: Textual runs the handler of every
    class in the app's MRO, so a second one would see the key again, after a dialog it
    closed is gone.)"""

    _said: tuple[str, float] = ("", 0.0)

    def unbound_key(self, key: str) -> bool:
        app: App = self  # type: ignore[assignment]
        reason = refusal(app, key)
        if reason is None:
            return False
        said, at = self._said
        now = time.monotonic()
        if reason != said or now - at > REASON_S:
            self._said = (reason, now)
            app.notify(reason, severity="warning", timeout=REASON_S, markup=False)
        return True
