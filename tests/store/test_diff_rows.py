"""A file's diff as Changes draws it (``tui.app.workspace.diff_rows``) and which rows edit which file
(``tui.app.workspace.workspace_edits``): no Textual, no server."""

from __future__ import annotations

from tui.app.store.rows import EventRow
from tui.app.workspace.diff_rows import (
    BINARY,
    MAX_LINE,
    MAX_ROWS,
    NO_REPOSITORY,
    NO_TEXT,
    SAME_LINES,
    DiffRow,
    build_diff,
    counts,
)
from tui.app.workspace.workspace_edits import (
    EditedFile,
    edits,
    in_workspace,
    of_change,
    touches_files,
)
from tui.models.textdiff import MAX_ALIGN_CELLS, line_counts


def kinds(rows: list[DiffRow]) -> list[tuple[str, int | None, int | None, str]]:
    return [(r.kind, r.old, r.new, r.text) for r in rows]


def test_rows_and_pairs_of_a_small_edit() -> None:
    diff = build_diff("a\nb\nc", "a\nB\nc\nd")
    assert (diff.added, diff.removed, diff.hidden, diff.message) == (2, 1, 0, "")
    assert kinds(diff.rows) == [
        ("hunk", None, None, "@@ -1,3 +1,4 @@"),
        ("same", 1, 1, "a"),
        ("removed", 2, None, "b"),
        ("added", None, 2, "B"),
        ("same", 3, 3, "c"),
        ("added", None, 4, "d"),
    ]
    # side by side: the removed line beside the one that replaced it, an added one alone
    pairs = [(p.left and p.left.text, p.right and p.right.text) for p in diff.pairs]
    assert pairs == [
        ("@@ -1,3 +1,4 @@", "@@ -1,3 +1,4 @@"),
        ("a", "a"),
        ("b", "B"),
        ("c", "c"),
        (None, "d"),
    ]


def test_what_cannot_be_drawn_is_said() -> None:
    assert build_diff(None, None).message == NO_REPOSITORY
    assert build_diff("", "").message == NO_TEXT
    assert build_diff("", "PNG\x00\x01").message == BINARY
    same = build_diff("a\nb", "a\nb")  # the server's diffs drop line ends: nothing to show
    assert same.message == SAME_LINES and not same.rows
    assert counts(None, None) is None and counts("", "") is None and counts("\x00", "") is None
    assert counts("", "x\ny") == (2, 0)


def test_a_long_diff_keeps_the_bound_and_counts_the_rest() -> None:
    new = "".join(f"line {n}\n" for n in range(5_000))
    diff = build_diff("", new)
    assert len(diff.rows) == MAX_ROWS == len(diff.pairs)
    assert diff.hidden == 5_001 - MAX_ROWS  # a hunk header and 5,000 added lines
    assert (diff.added, diff.removed) == (5_000, 0)
    assert diff.number_width == 4


def test_a_changed_part_too_large_to_align_is_removed_then_added() -> None:
    side = int(MAX_ALIGN_CELLS**0.5) + 10
    old = "\n".join(f"old {n}" for n in range(side))
    new = "\n".join(f"new {n}" for n in range(side))
    diff = build_diff(old, new)
    assert "too large to align" in diff.note
    assert line_counts(old, new) == (side, side) == (diff.added, diff.removed)


def test_lines_are_cleaned_masked_cut_and_their_tabs_expanded() -> None:
    token = "sk-" + "q7W2" * 10
    long = "x" * (MAX_LINE + 50)
    diff = build_diff("", f"\x1b]52;c;cHduZWQ=\x07\n\tindented\nKEY={token}\n{long}")
    texts = [row.text for row in diff.rows[1:]]
    assert texts[0] == "␛]52;c;cHduZWQ=␇"
    assert texts[1] == "    indented"
    assert token not in texts[2] and texts[2].startswith("KEY=")
    assert texts[3] == "x" * MAX_LINE + "… (50 more characters)"


def row(kind: str, summary: str) -> EventRow:
    return EventRow("id", "2026-01-01T00:00:00.000000", "agent", kind, summary)


def test_which_rows_edit_a_file_and_which_can_change_files() -> None:
    target = of_change("src/app.py", "/workspace/project")
    assert target == EditedFile("/workspace/project/src/app.py", "src/app.py")
    assert edits(row("ActionEvent", "str_replace /workspace/project/src/app.py"), target)
    assert edits(row("ActionEvent", "create /workspace/project/./src/app.py"), target)
    assert not edits(row("ActionEvent", "view /workspace/project/src/app.py"), target)
    assert not edits(row("ActionEvent", "create /elsewhere/src/app.py"), target)
    assert not edits(row("ObservationEvent", "create /workspace/project/src/app.py"), target)
    # the working directory not known as an absolute path: the path's end must match
    loose = of_change("src/app.py", None)
    assert edits(row("ActionEvent", "insert /somewhere/src/app.py"), loose)
    assert not edits(row("ActionEvent", "insert /somewhere/xsrc/app.py"), loose)
    assert in_workspace("/workspace/project/src/app.py", "/workspace/project") == target
    assert touches_files(row("ActionEvent", "$ make"))
    assert touches_files(row("ObservationEvent", "exit 0 · done"))
    assert touches_files(row("ObservationEvent", "str_replace /w/a.py · edited"))
    assert not touches_files(row("ActionEvent", "think: later"))
    assert not touches_files(row("ActionEvent", "view /w/a.py"))
    assert not touches_files(row("MessageEvent", "$ not a command"))
