"""What the tree pane's nodes hold, and their labels.

Apart from the pane because labels are pure (a walk and a position in, rich ``Text`` out)
and the pane's own code is about when to rebuild and what to keep open.

Labels say things in words: "branch 1 of 3 · 14 events", "1 event", "continues below". A
label is cut to the pane's width where it is drawn (``fitted_tree.py``), at a space: the
words that belong together ("14 events", "branch 1 of 3", a time) are marked :func:`whole`,
so a cut never leaves "14 ev…" or a number without its noun.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from tui.app.server_marks import plural
from tui.app.store.rows import KIND_LABELS
from tui.app.store.tree_outline import MoreBranches, Run, SideBranch, TreeWalk
from tui.app.themes import theme_style
from tui.text import cut_at_word

#: the style mark of words a cut never separates (``fitted_tree.fit_label``)
WHOLE = Style(meta={"whole": True})
SEP = " · "
WORDS = 60  # characters of an event's words a label carries (the pane shows fewer)


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
    """The "… N more events" leaf of an open run listed from ``offset`` on."""

    run: Run
    offset: int


def node_position(data: object) -> int | None:
    """The event a line stands for: its own, a run's or a branch's first (None: a "… more"
    line, or the root)."""
    if isinstance(data, EventNode):
        return data.position
    if isinstance(data, Run):
        return data.positions[0]
    if isinstance(data, Branch):
        return data.start
    return None


def whole(text: str, style: str | Style = "") -> Text:
    """Words a label is never cut between ("14 events", "branch 2 of 3", a time range)."""
    return Text(text, style=(Style.parse(style) if isinstance(style, str) else style) + WHOLE)


def events(count: int) -> str:
    """``1 event``, ``14 events``, ``1,204 events``."""
    return plural(count, "event")


def branch_of(index: int, count: int) -> str:
    """``branch 2 of 3``: which of a fork's branches (oldest first; the newest goes on)."""
    return f"branch {index:,} of {count:,}"


def footer(shown: int, total: int | None, forks: int, room: int) -> str:
    """The pane's border: ``N events · F forks``, ``N of M events`` while it catches up with
    the conversation (indexing, rows that arrived a moment ago); what ``room`` (cells) holds:
    the forks go first, then the words after the numbers."""
    count = events(shown) if total in (None, shown) else f"{shown:,} of {events(total)}"
    said = count + (f"{SEP}{plural(forks, 'fork')}" if forks else "")
    if 0 < room < len(said):
        said = count if len(count) <= room else f"{shown:,}/{total or shown:,}"
    return said


#: what a branch holding the conversation's head says (``navigate`` makes another current)
CURRENT = "● current"


def side_label(
    walk: TreeWalk, item: SideBranch, index: int, count: int, *, current: bool = False
) -> Text:
    """A side branch: which of the fork's branches, its size, its first words; whether the
    next message continues on it."""
    return Text.assemble(
        whole(branch_of(index, count), "bold"),
        (SEP, "dim"),
        *((whole(CURRENT, "bold"), (SEP, "dim")) if current else ()),
        whole(events(item.size), "dim"),
        (SEP, "dim"),
        first_words(walk, item.start),
    )


def main_label(count: int, *, current: bool = False) -> Text:
    """The fork's newest branch: it is the line that goes on below, at the same indent."""
    return Text.assemble(
        ("↓ ", "bold"),
        whole(branch_of(count, count), "bold"),
        (SEP, "dim"),
        *((whole(CURRENT, "bold"), (SEP, "dim")) if current else ()),
        whole("the newest", "dim"),
        (SEP, "dim"),
        whole("continues below", "dim"),
    )


def more_label(more: MoreBranches) -> Text:
    """A fork's folded side branches."""
    return _more(plural(more.count, "more branch", "more branches"))


def more_events_label(count: int) -> Text:
    """The rest of an open run, not listed yet."""
    return _more(plural(count, "more event"))


def _more(what: str) -> Text:
    return Text.assemble(
        whole(f"… {what}", "dim italic"), (SEP, "dim"), whole("enter lists them", "dim italic")
    )


def run_label(walk: TreeWalk, run: Run) -> Text:
    """A fork-free run: its length, its times, its first words (the length first: at 80
    columns the pane shows a score of letters, and a cut time range says nothing)."""
    first, last = run.positions[0], run.positions[-1]
    return Text.assemble(
        whole(events(len(run.positions)), "bold"),
        (SEP, "dim"),
        whole(f"{event_time(walk, first)}–{event_time(walk, last)}", "dim"),
        (SEP, "dim"),
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
            return Text(cut_at_word(row.summary, WORDS))
        real = walk.real_children(node)
        if len(real) != 1:
            break
        node = real[0]
    return Text(cut_at_word(rows[pos].summary, WORDS)) if pos < len(rows) else Text("")


def event_label(walk: TreeWalk, pos: int, forked: str | None = None) -> Text:
    """One event: time, kind (errors in the theme's error colour), summary, and where it
    forks, how many branches start there; ``forked``: the conversations forked from it."""
    row = walk.rows[pos]
    style = theme_style("$error bold") if row.is_error else ""
    kids = len(walk.real_children(pos))
    return Text.assemble(
        (f"{row.time} ", "dim"),
        ("⑂ " if forked else "", "bold"),  # up front: a narrow pane cuts the words at the end
        (f"{KIND_LABELS.get(row.kind, row.kind)} ", style or "bold"),
        cut_at_word(row.summary, 2 * WORDS),
        (f"{SEP}{kids} branches start here" if kids > 1 else "", "bold"),
        (f"{SEP}{forked}" if forked else "", "bold"),
    )
