"""Which columns a table shows at a given width, and how wide each is.

Fixed widths left wide terminals with truncated titles beside empty space and narrow ones
scrolling sideways to reach the status. One column (the title, a sandbox's spec) takes
what is left over; when even a short one would not fit, the least needed columns give way
first, and with room to spare the columns that can use it grow.
"""

from __future__ import annotations

from typing import NamedTuple

CELL_PADDING = 2  # DataTable pads each cell by one on either side
CHROME = 4  # the table's border and its vertical scrollbar


class Column(NamedTuple):
    label: str
    key: str
    width: int


class ColumnSpec(NamedTuple):
    label: str
    key: str
    width: int  # for the flexible column: the width worth dropping other columns for
    drop: int | None = None  # lower goes first when space is short; None never goes
    grow: int | None = None  # the widest it gets when there is room to spare
    flex: bool = False  # takes whatever width the others leave
    keep_above: int | None = None  # kept while the flexible column gets this (default: its width)


def fit_columns(width: int, specs: list[ColumnSpec], *, floor: int, roomy: int) -> list[Column]:
    """Columns for a table ``width`` cells wide, in the order of ``specs``.

    The flexible column never goes below ``floor`` (the table scrolls sideways then); past
    ``roomy`` its spare width widens the columns that can ``grow``."""
    flex = next(spec for spec in specs if spec.flex)
    kept = list(specs)

    def room(columns: list[ColumnSpec]) -> int:
        used = sum(spec.width + CELL_PADDING for spec in columns if not spec.flex)
        return width - CHROME - CELL_PADDING - used

    for candidate in sorted(
        (spec for spec in specs if spec.drop is not None), key=lambda spec: spec.drop
    ):
        if room(kept) < (candidate.keep_above or flex.width):
            kept.remove(candidate)
    flexible = max(floor, room(kept))
    widths = {spec.key: spec.width for spec in kept}
    for spec in kept:
        if spec.grow is not None and not spec.flex and flexible > roomy:
            extra = min(spec.grow - spec.width, flexible - roomy)
            widths[spec.key] += extra
            flexible -= extra
    widths[flex.key] = flexible
    return [Column(spec.label, spec.key, widths[spec.key]) for spec in kept]


def conversation_columns(
    width: int,
    *,
    local: bool = False,
    sandbox_ids: bool = False,
    sort: str = "",
    reverse: bool = False,
) -> list[Column]:
    """The conversations table: the title flexes; local folders count events, not sandboxes;
    ``sandbox_ids``: the sandbox column is wide enough to name the sandbox too. The column
    the list is sorted by (``sort``) is never left out and says so (▼ biggest first)."""
    specs = [
        ColumnSpec("Title", "title", 40, flex=True),
        ColumnSpec("Agent", "agent", 9),  # the longest status ("finished") whole
        ColumnSpec("Events" if local else "Sandbox", "sandbox", 32 if sandbox_ids else 9),
        ColumnSpec("Model", "model", 18, drop=5, grow=30),
        ColumnSpec("Cost", "cost", 8, drop=6),
        ColumnSpec("Tokens", "tokens", 7, drop=4),
        ColumnSpec("Duration", "duration", 8, drop=3),  # "47h59m" whole
        ColumnSpec("Created", "created", 10, drop=2),
        ColumnSpec("Updated", "updated", 10),
        ColumnSpec("Trigger", "trigger", 13, drop=1, grow=22),  # "microagent_management" whole
    ]
    if sort:
        specs = [
            spec._replace(
                label=f"{spec.label} {'▲' if reverse else '▼'}",
                width=max(spec.width, len(spec.label) + 2),
                drop=None,
            )
            if spec.key == sort
            else spec
            for spec in specs
        ]
    return fit_columns(width, specs, floor=24, roomy=72)


def sandbox_columns(width: int) -> list[Column]:
    """The sandboxes table: ids whole, the spec flexes, the exposed URLs use spare room."""
    return fit_columns(
        width,
        [
            ColumnSpec("ID", "id", 30),
            ColumnSpec("Status", "status", 10),  # "resuming…" whole
            ColumnSpec("Spec", "spec", 44, flex=True),  # an image name and tag whole
            ColumnSpec("Created", "created", 10, drop=1),
            ColumnSpec("Exposed URLs", "urls", 36, drop=2, grow=90, keep_above=24),
        ],
        floor=20,
        roomy=60,
    )
