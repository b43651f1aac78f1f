"""The tree pane speaks plainly: "branch 2 of 3 · 14 events", "1 event" (never "1 events"),
"continues below", a condensation says what it summarised; and a label a narrow pane cannot
hold whole is cut at a space, never inside a count, a time or a word where a space would do."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App

from tests.helpers.app_helpers import settled
from tui.app.store.rows import EventRow, condensation_summary, make_row
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.fitted_tree import fit_label
from tui.app.widgets.conversation.tree_nodes import Branch, More, footer, more_events_label, whole
from tui.models import ROOT_PARENT, EventTree, parse_event

T = "2026-01-01T00:00:{:02d}"


def _row(n: int, event_id: str, parent: str, text: str, kind: str = "MessageEvent") -> EventRow:
    return EventRow(event_id, T.format(n % 60), "agent", kind, text, parent)


def _three_branches() -> list[EventRow]:
    """A root whose three children start branches of 1, 14 and 3 events (the newest last):
    19 events."""
    rows = [_row(0, "root", ROOT_PARENT, "user: start here")]
    rows.append(_row(1, "a0", "root", "assistant: the first try"))
    rows += [_row(2 + i, f"b{i}", f"b{i - 1}" if i else "root", f"b step {i}") for i in range(14)]
    rows += [_row(20 + i, f"c{i}", f"c{i - 1}" if i else "root", f"c step {i}") for i in range(3)]
    return rows


class One(App):
    def compose(self):
        yield EventTreeView(id="tree")


def _plain(view: EventTreeView) -> list[str]:
    return [node.label.plain for node in view.root.children]


async def test_branches_say_which_of_their_fork_and_how_many_events():
    rows = _three_branches()
    app = One()
    async with app.run_test(size=(160, 30)) as pilot:
        view = app.query_one(EventTreeView)
        view.load(EventTree((r.id, r.parent_id) for r in rows), rows)
        await settled(pilot)
        lines = _plain(view)
        assert lines[1] == "branch 1 of 3 · 1 event · assistant: the first try"
        assert lines[2] == "branch 2 of 3 · 14 events · b step 0"
        assert lines[3] == "↓ branch 3 of 3 · the newest · continues below"
        assert lines[4].startswith("3 events · 00:00:20–00:00:22 · c step 0")
        assert lines[0].endswith("· 3 branches start here")
        assert not [line for line in lines if "1 events" in line or "↳" in line]
        assert view.border_subtitle == "19 events · 1 fork"
        # a side branch opened: its own line, a run of its 14 events
        branch = view.root.children[2]
        assert branch.data == Branch(2)
        branch.expand()
        await settled(pilot)
        assert branch.children[0].label.plain.startswith("14 events · 00:00:02–00:00:15")


async def test_a_long_run_says_how_many_more_events_it_has():
    rows = [_row(0, "e0", ROOT_PARENT, "user: go")]
    rows += [_row(i, f"e{i}", f"e{i - 1}", f"step {i}", "ActionEvent") for i in range(1, 700)]
    app = One()
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(EventTreeView)
        view.load(EventTree((r.id, r.parent_id) for r in rows), rows)
        run = view.root.children[0]
        run.expand()
        await settled(pilot)
        last = run.children[-1]
        assert isinstance(last.data, More)
        assert last.label.plain == "… 200 more events · enter lists them"
        assert more_events_label(1).plain == "… 1 more event · enter lists them"


def test_a_condensation_says_what_it_summarised():
    event = parse_event(
        {
            "id": "c1",
            "timestamp": "2026-01-01T00:00:00",
            "source": "environment",
            "kind": "Condensation",
            "forgotten_event_ids": [f"old-{n}" for n in range(77)],
            "summary": "The user asked for asyncio.",
            "summary_offset": 2,
            "llm_response_id": "r1",
        }
    )
    assert (
        make_row(event).summary
        == "condensed: 77 earlier events summarised: The user asked for asyncio."
    )
    assert condensation_summary(1, None) == "condensed: 1 earlier event dropped"


def test_the_footer_says_what_the_border_has_room_for():
    assert footer(1_492, None, 1, 40) == "1,492 events · 1 fork"
    assert footer(1_492, 1_492, 2, 40) == "1,492 events · 2 forks"
    assert footer(1_492, None, 1, 18) == "1,492 events"  # the forks give way first
    assert footer(1_200, 1_492, 0, 40) == "1,200 of 1,492 events"
    assert footer(1_200, 1_492, 0, 18) == "1,200/1,492"
    assert footer(1, None, 0, 40) == "1 event"


LABEL = Text.assemble(
    ("▶ ", ""),
    whole("branch 2 of 3", "bold"),
    (" · ", "dim"),
    whole("14 events", "dim"),
    (" · ", "dim"),
    "user: Port the CLI to asyncio",
)


@pytest.mark.parametrize(
    ("width", "shown"),
    [
        (80, "▶ branch 2 of 3 · 14 events · user: Port the CLI to asyncio"),
        (50, "▶ branch 2 of 3 · 14 events · user: Port the CLI…"),
        (30, "▶ branch 2 of 3 · 14 events…"),
        (27, "▶ branch 2 of 3…"),  # never "14 ev…"
        (15, "▶ branch 2 of…"),  # nothing whole fits: cut where it must be
        (3, "▶…"),
    ],
)
def test_a_label_is_cut_at_a_space_and_never_inside_words_kept_whole(width, shown):
    fitted = fit_label(LABEL, width, keep=2)
    assert fitted.plain == shown and fitted.cell_len <= width


def test_free_words_are_cut_at_a_space_unless_that_would_waste_the_room():
    event = Text.assemble(("09:00:00 ", "dim"), ("state ", "bold"), "hook_config = {pre, post}")
    assert fit_label(event, 30).plain == "09:00:00 state hook_config =…"
    assert fit_label(event, 20).plain == "09:00:00 state…"  # the space keeps most of it
    assert fit_label(event, 24).plain == "09:00:00 state hook_con…"  # it would not: cut


async def test_the_pane_draws_labels_cut_at_a_word_to_its_width():
    rows = _three_branches()
    app = One()
    async with app.run_test(size=(24, 12)) as pilot:
        view = app.query_one(EventTreeView)
        view.load(EventTree((r.id, r.parent_id) for r in rows), rows)
        await settled(pilot)
        drawn = [view.render_line(y).text.rstrip() for y in range(5)]
        assert drawn[1] == "▶ branch 1 of 3…"
        assert drawn[3] == "↓ branch 3 of 3…"
        assert view.virtual_size.width > 24  # the pane's width is worked out from whole labels
