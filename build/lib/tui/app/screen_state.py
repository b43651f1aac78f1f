"""Whether a screen is in view: what its timers ask before they poll the server.

Textual's ``Screen.is_current`` is also true for the screen right under the top one (it
may show through a translucent screen), so a list under an open conversation would go on
polling. Here a screen is shown when it is the top screen or only dialogs lie over it.
"""

from __future__ import annotations

from textual.screen import ModalScreen, Screen


def shown(screen: Screen) -> bool:
    """``screen`` is on top, or under nothing but dialogs (modal screens)."""
    if not screen.is_attached:
        return False
    for above in reversed(screen.app.screen_stack):
        if above is screen:
            return True
        if not isinstance(above, ModalScreen):
            return False
    return False
