"""What the tree pane's nodes hold, and their labels.

Apart from the pane because labels are pure (a walk and a position in, rich ``Text`` out)
and the pane's own code is about when to rebuild and what to keep open.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from ..rows import KIND_LABELS
from ..themes import theme_style
from ..tree_outline import MoreBranches, Run, SideBranch, TreeWalk


@dataclass(frozen=True)
class Branch:
    """A branch starting at ``start``: expanding shows its own line."""

    start: int


@dataclass(frozen=True)
class EventNode:
    """One event (a leaf)."""

    position: int


@dataclass(frozen=True)
class More:
    """The "… N more" leaf of an open run listed from ``offset`` on."""

    run: Run
    offset: int


def side_label(walk: TreeWalk, item: SideBranch) -> Text:
    """A side branch: its size and its first words."""
    return Text.assemble(
        ("↳ ", "bold"),
        (f"branch · {item.size:,} events · ", "dim"),
        first_words(walk, item.start),
    )


def more_label(more: MoreBranches) -> Text:
    """A fork's folded side branches."""
    return Text(f"↳ … {more.count:,} more branches (⏎)", style="dim italic")


def run_label(walk: TreeWalk, run: Run) -> Text:
    """A fork-free run: its length, its times, its first words (the length first: at 80
    columns the pane shows a dozen letters, and a cut time range says nothing)."""
    first, last = run.positions[0], run.positions[-1]
    return Text.assemble(
        (f"{len(run.positions):,} events ", "bold"),
        (f"{event_time(walk, first)}–{event_time(walk, last)} ", "dim"),
        first_words(walk, first) if first < len(walk.rows) else "",
    )


def event_time(walk: TreeWalk, pos: int) -> str:
    return walk.rows[pos].time if pos < len(walk.rows) else "?"


def first_words(walk: TreeWalk, pos: int) -> Text:
    """The first message text at or after ``pos`` on its run, else the event summary."""
    rows = walk.rows
    node = pos
    for _ in range(50):
        row = rows[node]
        if row.kind == "MessageEvent":
            return Text(row.summary[:60])
        real = walk.real_children(node)
        if len(real) != 1:
            break
        node = real[0]
    return Text(rows[pos].summary[:60]) if pos < len(rows) else Text("")


def event_label(walk: TreeWalk, pos: int) -> Text:
    """One event: time, kind (errors in the theme's error colour), summary, forks."""
    row = walk.rows[pos]
    style = theme_style("$error bold") if row.is_error else ""
    kids = len(walk.real_children(pos))
    fork = f"  ↳ {kids} branches" if kids > 1 else ""
    return Text.assemble(
        (f"{row.time} ", "dim"),
        (f"{KIND_LABELS.get(row.kind, row.kind)} ", style or "bold"),
        row.summary[:80],
        (fork, "bold"),
    )
