"""Which columns the conversations table shows at a given width, and how wide each is.

Fixed widths left wide terminals with truncated titles beside empty space and narrow ones
scrolling sideways to reach the status. The title takes what is left over; when even a
short title would not fit, the least needed columns give way first.
"""

from __future__ import annotations

from typing import NamedTuple


class Column(NamedTuple):
    label: str
    key: str
    width: int


TITLE_MIN = 40  # below this, a column is dropped rather than squeezing the title further
TITLE_FLOOR = 24  # the narrowest title (the table scrolls sideways below that)
TITLE_ROOMY = 72  # past this, spare width also widens the model and trigger columns
CELL_PADDING = 2  # DataTable pads each cell by one on either side
CHROME = 4  # the table's border and its vertical scrollbar

# (label, key, width, drop order: lower goes first when space is short; None never goes)
_OTHERS: tuple[tuple[str, str, int, int | None], ...] = (
    ("Agent", "agent", 9, None),  # the longest status ("finished") whole
    ("Sandbox", "sandbox", 9, None),
    ("Model", "model", 18, 4),
    ("Cost", "cost", 8, 5),
    ("Tokens", "tokens", 7, 3),
    ("Created", "created", 10, 2),
    ("Updated", "updated", 10, None),
    ("Trigger", "trigger", 13, 1),
)
_GROW = {"model": 30, "trigger": 22}  # how wide these get when there is room to spare


def conversation_columns(width: int, *, local: bool = False) -> list[Column]:
    """The columns for a table ``width`` cells wide, the title first."""
    others = [
        (("Events" if local and key == "sandbox" else label), key, size, drop)
        for label, key, size, drop in _OTHERS
    ]

    def title_room(kept: list) -> int:
        used = sum(size + CELL_PADDING for _, _, size, _ in kept)
        return width - CHROME - CELL_PADDING - used

    for order in sorted(drop for *_, drop in others if drop is not None):
        if title_room(others) >= TITLE_MIN:
            break
        others = [column for column in others if column[3] != order]
    title = max(TITLE_FLOOR, title_room(others))
    widths = {key: size for _, key, size, _ in others}
    for key, most in _GROW.items():
        if key in widths and title > TITLE_ROOMY:
            extra = min(most - widths[key], title - TITLE_ROOMY)
            widths[key] += extra
            title -= extra
    return [Column("Title", "title", title), *(Column(label, key, widths[key]) for label, key, _, _ in others)]
