"""Row windows: two-ended filling, meeting, de-duplication, live appends."""

from __future__ import annotations

from tui.app.store.row_windows import START, EventQuery, PagedWindow, PathWindow
from tui.app.store.rows import EventRow


def rows(a: int, b: int, step: int = 1) -> list[EventRow]:
    return [
        EventRow(f"e{i}", f"2026-01-01T00:00:{i:02d}", "agent", "MessageEvent", f"m{i}")
        for i in range(a, b, step)
    ]


def test_head_then_tail_meet_into_one_ordered_list():
    w = PagedWindow(EventQuery(), total=10)
    assert w.side_for(0, 3) == "head" and w.row(0) is None
    w.add_head(rows(0, 3), "p1")
    assert w.side_for(7, 10) == "tail"
    w.add_tail(rows(9, 5, -1), "t1")  # a descending page: 9, 8, 7, 6
    assert w.row(9).id == "e9" and w.row(6).id == "e6" and w.row(5) is None
    assert not w.complete
    w.add_head(rows(3, 7), "p2")  # overlaps e6: dropped as a duplicate
    assert w.complete and w.total == 10
    assert [w.row(i).id for i in range(10)] == [f"e{i}" for i in range(10)]


def test_side_prefers_the_nearer_end():
    w = PagedWindow(EventQuery(), total=1000)
    w.add_head(rows(0, 100), "p")
    assert w.side_for(150, 160) == "head"
    assert w.side_for(900, 910) == "tail"
    assert w.side_for(10, 20) is None  # loaded


def test_unknown_total_grows_with_the_head():
    w = PagedWindow(EventQuery())
    assert len(w) == 0 and w.head_page == START
    w.add_head(rows(0, 5), "p")
    assert len(w) == 5 and w.side_for(0, 10) == "head"
    w.add_head(rows(5, 7), None)
    assert w.total == 7 and w.complete


def test_live_append_dedupes_and_extends():
    w = PagedWindow(EventQuery(), total=3)
    w.add_head(rows(0, 3), None)
    assert w.append_live(rows(2, 5)) == 2
    assert len(w) == 5 and w.row(4).id == "e4"
    desc = PagedWindow(EventQuery(descending=True), total=2)
    desc.add_head(rows(1, -1, -1), None)
    desc.append_live(rows(2, 4))
    assert [desc.row(i).id for i in range(4)] == ["e3", "e2", "e1", "e0"]


def test_path_window():
    p = PathWindow(rows(0, 4), "branch")
    assert len(p) == 4 and p.row(3).id == "e3" and p.row(4) is None and p.side_for(0, 4) is None


def test_query_describe():
    q = EventQuery(kind="ActionEvent", since="2026-01-01T00:00:00", descending=True)
    assert q.describe() == "action · from 2026-01-01 00:00:00 · newest first"
    assert EventQuery().is_plain and not q.is_plain
