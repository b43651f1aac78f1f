"""Row windows with events that share an id: both kept (the later marked), and the two
walks still meet exactly where they overlap."""

from __future__ import annotations

from tui.app.store.duplicate_rows import DuplicateRow, is_duplicate, row_key
from tui.app.store.row_windows import EventQuery, PagedWindow
from tui.app.store.rows import EventRow


def row(i: int, event_id: str | None = None) -> EventRow:
    stamp = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}"
    return EventRow(event_id or f"e{i}", stamp, "agent", "MessageEvent", f"m{i}")


def rows(a: int, b: int, step: int = 1, **ids: str) -> list[EventRow]:
    return [row(i, ids.get(f"e{i}")) for i in range(a, b, step)]


def test_an_id_seen_twice_in_one_walk_is_two_rows_the_second_marked():
    w = PagedWindow(EventQuery(), total=6)
    taken = w.add_head(rows(0, 4, e3="e1"), "p1")  # e3 carries e1's id
    w.add_head(rows(4, 6, e5="e1"), None)  # and e5 too: a third copy
    assert [r.id for r in w.head] == ["e0", "e1", "e2", "e1", "e4", "e1"]
    assert w.complete and len(w) == 6 and all(w.row(i) is not None for i in range(6))
    assert [is_duplicate(r) for r in w.head] == [False, False, False, True, False, True]
    third = w.head[5]
    assert isinstance(third, DuplicateRow) and third.copy == 3
    assert row_key(w.head[1]) == "e1" and len({row_key(w.head[i]) for i in (1, 3, 5)}) == 3
    assert [index for index, _ in taken] == [0, 1, 2, 3]


def test_a_copy_on_the_tail_side_is_a_duplicate_not_the_meeting_point():
    w = PagedWindow(EventQuery(), total=10)
    w.add_head(rows(0, 3), "p1")
    w.add_tail(rows(9, 6, -1, e8="e1"), "t1")  # 9, 8 (= e1's id), 7
    assert is_duplicate(w.row(8)) and not w.complete
    w.add_head(rows(3, 8), "p2")  # 3..6, then 7 is the tail's oldest row: the walks meet
    assert w.complete and w.total == 10
    assert [w.row(i).id for i in range(10)] == [f"e{i}" for i in range(8)] + ["e1", "e9"]


def test_the_tail_walk_meeting_the_head_stops_there():
    w = PagedWindow(EventQuery(), total=8)
    w.add_head(rows(0, 5), "p1")
    taken = w.add_tail(rows(7, 2, -1), "t1")  # 7, 6, 5, then 4: the head's newest row
    assert [r.id for _, r in taken] == ["e7", "e6", "e5"]
    assert w.complete and [w.row(i).id for i in range(8)] == [f"e{i}" for i in range(8)]
    assert not any(is_duplicate(w.row(i)) for i in range(8))
