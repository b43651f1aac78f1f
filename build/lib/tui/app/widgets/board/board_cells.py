"""What each cell of a board row says, and in which style: plain text, no widget.

Apart from the table because what a row says (a status with how long it has held, the
elapsed time, the cost and token rates) is a rule of its own, and the table only fits and
draws it.
"""

from __future__ import annotations

from datetime import datetime

from rich.cells import cell_len, set_cell_size

from tui.app.board.row import BoardRow
from tui.app.format import SHORT_STATUSES, money, tokens


def duration(seconds: float | None) -> str:
    """``42s``, ``12m``, ``3h05m``, ``2d``: how long, in at most six cells."""
    if seconds is None:
        return ""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    return f"{s // 86400}d"


def fit_cells(text: str, width: int, right: bool = False) -> str:
    """``text`` in exactly ``width`` cells: cut with an ellipsis, padded to the side."""
    if width <= 0:
        return ""
    size = cell_len(text)
    if size > width:
        return set_cell_size(text, width - 1) + "…"
    pad = " " * (width - size)
    return pad + text if right else text + pad


def row_cells(
    row: BoardRow, now: datetime, moment: float, source_in_title: bool
) -> dict[str, tuple[str, str]]:
    """Each column's text and style name for ``row`` at ``now`` (the app's clock; ``moment``
    monotonic, for rates); ``source_in_title``: the server's name leads the title (no room
    for its own column)."""
    dim = "dim" if row.leaving_at is not None else ""
    status = row.status
    if status is None:
        sandbox = (row.sandbox_status or "").lower()
        label = f"sandbox {sandbox}" if sandbox and sandbox != "running" else "—"
        status_cell = (label, "dim")
    else:
        since = (now - row.status_since).total_seconds() if row.status_since else None
        label = SHORT_STATUSES.get(status, status)
        status_cell = (f"{label} {duration(since)}".rstrip(), dim or f"status:{status}")
    elapsed = (now - row.created).total_seconds() if row.created else None
    rate = row.rate.per_minute(moment)
    title = row.title
    if source_in_title:
        title = f"{row.source} · {title}"
    return {
        "server": (row.source, dim),
        "title": (title, dim),
        "status": status_cell,
        "step": (row.step or "—", dim or ("" if row.step else "dim")),
        "steps": ("—" if row.steps is None else f"{row.steps:,}", dim),
        "elapsed": (duration(elapsed) or "—", dim),
        "cost": (money(row.cost), dim),
        "tokens": (tokens(row.tokens), dim),
        "rate": ("—" if rate is None else money(rate[0]), dim or "dim"),
        "token_rate": ("—" if rate is None else tokens(round(rate[1])), dim or "dim"),
        # an error of an earlier run is history: dim unless the run stopped on one
        "error": (row.error, dim or ("error" if status in ("error", "stuck") else "dim")),
    }
