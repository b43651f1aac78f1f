"""The board's rows in the order they are shown: those needing a human first, then by the
chosen column; filtered by text and status; marked for actions on several at once.

The order is worked out again only after something changed (``touch``), at most a few
times a second by the screen, never per event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tui.app.board.row import BoardRow
from tui.app.tables.table_columns import Column, ColumnSpec, fit_columns

#: The agent statuses in the order the status column sorts them (most pressing first).
STATUS_ORDER = {
    "waiting_for_confirmation": 0,
    "error": 1,
    "stuck": 2,
    "running": 3,
    "paused": 4,
    "idle": 5,
    "finished": 6,
}
#: What ``f`` steps through: None (every row), the rows needing a human, then one status.
STATUS_FILTERS: tuple[str | None, ...] = (
    None,
    "attention",
    "running",
    "waiting_for_confirmation",
    "paused",
    "stuck",
    "error",
)


@dataclass(frozen=True)
class BoardColumn:
    key: str
    label: str
    width: int
    drop: int | None = None  # lower goes first when the terminal is narrow
    grow: int | None = None
    flex: bool = False
    descending: bool = False  # the first sort by it puts the biggest first


COLUMNS = (
    BoardColumn("server", "Server", 12, drop=3, grow=20),
    BoardColumn("title", "Title", 22, flex=True),
    BoardColumn("status", "Agent", 12),
    BoardColumn("step", "Current step", 22, drop=7, grow=60),
    BoardColumn("steps", "Steps", 5, drop=6, descending=True),
    BoardColumn("elapsed", "Elapsed", 7, drop=4, descending=True),
    BoardColumn("cost", "Cost", 7, drop=8, descending=True),
    BoardColumn("tokens", "Tokens", 6, drop=2, descending=True),
    BoardColumn("rate", "$/min", 6, drop=1, descending=True),
    BoardColumn("token_rate", "Tok/min", 7, drop=0, descending=True),
    BoardColumn("error", "Last error", 24, drop=5, grow=80),
)
BY_KEY = {column.key: column for column in COLUMNS}


def board_columns(width: int, *, servers: bool) -> list[Column]:
    """The columns that fit ``width`` cells (the server column only for several servers)."""
    specs = [
        ColumnSpec(c.label, c.key, c.width, drop=c.drop, grow=c.grow, flex=c.flex)
        for c in COLUMNS
        if servers or c.key != "server"
    ]
    return fit_columns(width, specs, floor=16, roomy=40)


def _number(value: float | None) -> float:
    return -1.0 if value is None else value


def sort_value(row: BoardRow, column: str, now: float) -> object:
    """The value ``column`` sorts ``row`` by (comparable with every other row's)."""
    if column == "server":
        return row.source.lower()
    if column == "title":
        return row.title.lower()
    if column == "status":
        since = row.status_since.timestamp() if row.status_since else now
        return (STATUS_ORDER.get(row.status or "", 9), since)
    if column == "step":
        return row.step.lower()
    if column == "steps":
        return _number(row.steps)
    if column == "elapsed":  # older = longer
        return -row.created.timestamp() if row.created else float("-inf")
    if column == "cost":
        return _number(row.cost)
    if column == "tokens":
        return _number(row.tokens)
    if column in ("rate", "token_rate"):
        rate = row.rate.per_minute(now)
        return -1.0 if rate is None else rate[0 if column == "rate" else 1]
    if column == "error":
        return (not row.error, row.error.lower())
    raise KeyError(column)


def matches(row: BoardRow, words: list[str], statuses: list[str]) -> bool:
    if statuses and not any((row.status or "").startswith(s) for s in statuses):
        return False
    if not words:
        return True
    text = " ".join(
        (row.source, row.title, row.status or "", row.step, row.error, row.conversation_id)
    ).lower()
    return all(word in text for word in words)


class BoardModel:
    """Every row the board knows, and the ones it shows, in order."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.rows: dict[tuple[str, str], BoardRow] = {}
        self.clock = clock  # seconds, for rates and times in a status
        self.sort = "status"
        self.reverse = False
        self.text = ""
        self.status_filter: str | None = None
        self.marks: set[tuple[str, str]] = set()
        self.dirty = True
        self._shown: list[BoardRow] = []

    # --- rows --------------------------------------------------------------------------

    def add(self, row: BoardRow) -> None:
        self.rows[row.key] = row
        self.dirty = True

    def remove(self, key: tuple[str, str]) -> None:
        if self.rows.pop(key, None) is not None:
            self.marks.discard(key)
            self.dirty = True

    def touch(self) -> None:
        self.dirty = True

    def of_source(self, source: str) -> list[BoardRow]:
        return [row for row in self.rows.values() if row.source == source]

    # --- order ---------------------------------------------------------------------------

    def shown(self) -> list[BoardRow]:
        """The rows shown, in order (worked out again only after a change)."""
        if self.dirty:
            self._shown = self._order(self.rows.values())
            self.dirty = False
        return self._shown

    def _order(self, rows: Iterable[BoardRow]) -> list[BoardRow]:
        words, statuses = [], []
        for word in self.text.lower().split():
            if word.startswith("status:"):
                statuses.append(word[7:])
            else:
                words.append(word)
        wanted = self.status_filter
        if wanted == "attention":
            kept = [row for row in rows if row.needs_human]
        elif wanted:
            kept = [row for row in rows if row.status == wanted and row.failure is None]
        else:
            kept = list(rows)
        kept = [row for row in kept if row.failure is not None or matches(row, words, statuses)]
        now = self.clock()
        column = BY_KEY[self.sort]
        descending = column.descending != self.reverse
        # stable sorts, least significant first: title, then the column, then the tier
        kept.sort(key=lambda row: (row.title.lower(), row.key))
        kept.sort(key=lambda row: sort_value(row, column.key, now), reverse=descending)
        kept.sort(key=lambda row: (row.failure is None, not row.needs_human))
        return kept

    def sort_by(self, column: str) -> None:
        """Sort by ``column``; the same column again turns the order round."""
        if column not in BY_KEY:
            raise KeyError(column)
        if column == self.sort:
            self.reverse = not self.reverse
        else:
            self.sort, self.reverse = column, False
        self.dirty = True

    def next_sort(self, step: int = 1) -> str:
        keys = [column.key for column in COLUMNS]
        self.sort = keys[(keys.index(self.sort) + step) % len(keys)]
        self.reverse = False
        self.dirty = True
        return self.sort

    def toggle_order(self) -> None:
        self.reverse = not self.reverse
        self.dirty = True

    def set_filter(self, text: str) -> None:
        self.text = text.strip()
        self.dirty = True

    def next_status_filter(self) -> str | None:
        at = STATUS_FILTERS.index(self.status_filter)
        self.status_filter = STATUS_FILTERS[(at + 1) % len(STATUS_FILTERS)]
        self.dirty = True
        return self.status_filter

    # --- marks ---------------------------------------------------------------------------

    def toggle_mark(self, row: BoardRow) -> bool:
        if row.failure is not None:
            return False
        if row.key in self.marks:
            self.marks.discard(row.key)
            return False
        self.marks.add(row.key)
        return True

    def marked(self) -> list[BoardRow]:
        """The marked rows still on the board, in the board's order."""
        return [row for row in self.shown() if row.key in self.marks]
