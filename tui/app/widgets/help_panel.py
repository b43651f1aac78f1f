"""The help panel (``?``): every key that applies now, over the screen's right edge.

Textual's panel splits the screen, so opening it at 80 columns squeezed the panes it
explains (the list's summaries shrank to a few letters and the key bar lost its keys).
This one lies over the right edge instead, on its own layer (``help``, declared for every
screen in ``app.py``): nothing underneath moves when it opens or closes, and the key bar
below stays whole.
"""

from __future__ import annotations

from textual.widgets import HelpPanel


class HelpOverlay(HelpPanel):
    """The keys and the focused pane's help, drawn over the screen instead of beside it."""

    DEFAULT_CSS = """
    HelpOverlay {
        split: initial;
        dock: right;
        layer: help;
        width: 40;
        max-width: 50%;
        min-width: 30;
        height: 100%;
        margin-bottom: 1;
        background: $panel;
        border-left: vkey $accent 60%;
        KeyPanel#keys-help { background: $panel; }
    }
    """
