"""Keeping Python's full garbage collections short while the screen is live.

A full collection (generation 2) scans every object the collector tracks. With Textual,
pydantic's schemas and a 100,000-event conversation's rows that took ~100 ms on this
machine, at whatever allocation triggered it: six times in a 5 s live stream, each a
frozen screen and late rows. Objects that stay for the app's life (modules, styles,
the rows of an indexed conversation) are moved out of the collector's sight with
``gc.freeze()`` once they exist; later collections scan only what came after.
Rows, events and widgets hold no reference cycles that would need collecting.
"""

from __future__ import annotations

import gc

#: live rows after which the newest are frozen too (a full collection then scans at most these)
FREEZE_EVERY = 5_000


def freeze_long_lived() -> None:
    """Everything alive now is treated as permanent by the collector (cheap: a list splice)."""
    gc.freeze()
