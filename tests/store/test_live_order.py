"""Live rows in the history's order (issue 32, N1): the list reads the same whether its events
came live or from pages.

An app server (and the reference server) sorts a conversation's history by timestamp; its
sandbox's stream sends the log, where a stats update logged after a step may be stamped
before it. Live rows go where a page would have put them: in the event log and the steps
view (an action and its result on one row, plumbing folded under the step before it), with
the pairs (action ↔ result) and the tree right, nothing doubled, nothing lost. An agent
server's history is its log: there they go at the end, in the order they came.

No server here: the store's pieces are driven directly, in random interleavings
(``tests/app/test_app_live_order.py`` does it through the app against the reference server).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.insights_events import action, at, reply, result, stats, user
from tui.app.screens.conversation.reading import READING
from tui.app.store import live_placing
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.live_placing import history_by_time
from tui.app.store.row_windows import EventQuery, PagedWindow
from tui.app.store.rows import EventRow
from tui.app.store.step_rows import StepRow
from tui.client.kinds import ServerKind

SETTINGS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
#: how far before the event it follows a stats update may be stamped (0: the same stamp;
#: 25: before the step before it)
BACK = st.sampled_from([0.0, 0.25, 0.25, 2.0, 25.0])


@st.composite
def logs(draw: Any) -> list[Any]:
    """A run as an agent logs it: messages, actions, their results, stats updates logged
    after a step but stamped before it (as openhands-ai 1.11.0 does)."""
    events: list[Any] = [user("u0", 0.0, "start")]
    for n in range(draw(st.integers(1, 12))):
        t = 10.0 * (n + 1)
        what = draw(st.sampled_from(["step", "step", "step", "reply", "user"]))
        if what == "user":
            events.append(user(f"u{n + 1}", t, "more"))
            continue
        if what == "reply":
            events.append(reply(f"r{n}", t))
        else:
            events.append(action(f"a{n}", t, f"echo {n}"))
            events.append(stats(f"s{n}", t - draw(BACK)))
            if draw(st.integers(0, 5)):  # now and then an action still waits for its result
                events.append(result(f"o{n}", t + 5.0, f"a{n}", command=f"echo {n}"))
        if draw(st.booleans()):
            events.append(stats(f"t{n}", t + 5.0 - draw(BACK)))
    return events


def history(events: list[Any]) -> list[Any]:
    """The server's order: by timestamp, the log's position breaking ties."""
    return sorted(events, key=lambda e: e.timestamp)


class Walks:
    """A window's two walks over the history as it was when the window opened."""

    def __init__(self, window: PagedWindow, rows: list[EventRow], page: int) -> None:
        self.window, self.rows, self.page = window, rows, page
        self.head_at = 0
        self.tail_at = 0  # rows the tail walk has read, from the newest

    def head(self, store: ConversationEvents | None = None) -> None:
        window, rows = self.window, self.rows
        if window.complete:
            return
        chunk = rows[self.head_at : self.head_at + self.page]
        self.head_at += len(chunk)
        before = len(window.head)
        window.add_head(chunk, str(self.head_at) if self.head_at < len(rows) else None)
        if store is not None and window is store.base:
            store._index_pairs(before)

    def tail(self) -> None:
        window, rows = self.window, self.rows
        if window.complete or window.total is None or window.tail_page is None:
            return
        newest = rows[::-1][self.tail_at : self.tail_at + self.page]
        self.tail_at += len(newest)
        window.add_tail(newest, "t" if self.tail_at < len(rows) else None)

    def opened(self) -> None:
        """Its first page and its newest, its length from the counts (as the app opens it)."""
        window = self.window
        self.head()
        counts = {k: sum(r.kind == k for r in self.rows) for k in window.query.counted_kinds()}
        window.set_count(len(self.rows), counts)
        self.tail()

    def to_the_end(self, store: ConversationEvents | None = None) -> None:
        while not self.window.complete:
            self.head(store)


def walk_head(store: ConversationEvents, window: PagedWindow, rows: list, page: int) -> None:
    Walks(window, rows, page).to_the_end(store)


def steps_of(window: PagedWindow) -> list[tuple]:
    """What a steps view shows: each row's event, the result on it, what folded under it."""
    out = []
    for i in range(len(window)):
        row = window.row(i)
        assert isinstance(row, StepRow), (i, row)
        result_id = row.result.id if row.result is not None else None
        out.append((row.own.id, result_id, sorted(r.id for r in row.folded or ())))
    return out


def shown(rows: list[EventRow]) -> list[tuple[str | None, str, str]]:
    return [(r.id, r.timestamp, r.kind) for r in rows]


def reopened(events: list[Any]) -> tuple[ConversationEvents, PagedWindow]:
    """The conversation opened afresh once every event is stored: pages only."""
    store = ConversationEvents(None, "c", by_time=True)  # type: ignore[arg-type]
    rows = [store._row(e) for e in history(events)]
    walk_head(store, store.base, rows, 7)
    steps = store._window(READING)
    walk_head(store, steps, [store._row(e) for e in history(events)], 7)
    return store, steps


def relations(store: ConversationEvents) -> tuple:
    tree = store.build_tree()
    ids = tree.ids
    parents = [(ids[p], ids[q] if q >= 0 else None) for p, q in enumerate(tree.parent)]
    pairs = sorted((action_id, row.id) for action_id, row in store._result_at.items())
    waiting = [row.id for row in store.pending_actions()]
    return parents, pairs, waiting


def in_time_order(window: PagedWindow, newest_first: bool = False) -> None:
    stamps = [r.timestamp for r in window.head] + [r.timestamp for r in reversed(window.tail)]
    assert stamps == sorted(stamps, reverse=newest_first)


#: the event log, newest first
NEWEST_FIRST = EventQuery(descending=True)
#: an event log filtered by kinds: its own window, rows not folded
FILTERED = EventQuery(
    kinds=frozenset({"MessageEvent", "ActionEvent", "ConversationStateUpdateEvent"})
)


@SETTINGS
@given(events=logs(), data=st.data())
def test_live_rows_read_as_the_reopened_history(events, data) -> None:
    n = len(events)
    stored = data.draw(st.integers(1, n), label="stored when opened")
    page = data.draw(st.integers(1, 6), label="page")
    store = ConversationEvents(None, "c", by_time=True)  # type: ignore[arg-type]

    def rows() -> list[EventRow]:
        return [store._row(e) for e in history(events[:stored])]

    walk_head(store, store.base, rows(), page)  # live rows wait for the index
    views = [
        Walks(store._window(READING), rows(), page),
        Walks(store._window(FILTERED), rows(), page),
        Walks(store._window(NEWEST_FIRST), rows()[::-1], page),
    ]
    for view in views:
        if data.draw(st.booleans(), label="walked before the live rows"):
            view.to_the_end()
        else:
            view.opened()
    if data.draw(st.booleans(), label="tree built before"):
        store.build_tree()
    position = stored
    while position < n:  # the stream: the log in order, in batches, an event now and then again
        take = data.draw(st.integers(1, n - position), label="batch")
        batch = events[position : position + take]
        if data.draw(st.booleans(), label="replay"):
            batch.insert(0, events[data.draw(st.integers(0, position - 1), label="which")])
        store.add_live(batch, [view.window for view in views])
        position += take
        for view in views:  # the views' walks go on meanwhile, from either end
            for _ in range(data.draw(st.integers(0, 2), label="pages")):
                view.tail() if data.draw(st.booleans(), label="tail") else view.head()
        in_time_order(views[2].window, newest_first=True)
        in_time_order(views[1].window)  # what is loaded reads in order meanwhile too
        in_time_order(views[0].window)
    for view in views:
        view.to_the_end()

    again, again_steps = reopened(events)
    filtered = again._window(FILTERED)
    walk_head(again, filtered, [again._row(e) for e in history(events)], 5)
    assert shown(store.base.head) == shown(again.base.head)  # the event log: same order
    assert len({r.id for r in store.base.head}) == n  # nothing doubled
    steps, kinds = views[0].window, views[1].window
    assert steps_of(steps) == steps_of(again_steps)  # the steps view: same rows, same folds
    assert shown(kinds.head) == shown(filtered.head)
    newest = again._window(NEWEST_FIRST)
    walk_head(again, newest, [again._row(e) for e in history(events)][::-1], 5)
    assert shown(views[2].window.head) == shown(newest.head)
    assert len(steps) == len(again_steps) and len(kinds) == len(filtered)
    assert relations(store) == relations(again)  # the tree, the pairs, what waits


def test_a_stats_update_stamped_before_its_step_goes_above_it_in_both_views() -> None:
    """The finding's own rows: ``observation exit 0`` over ``stats`` over ``stats`` over its
    ``action``, as the stream's order put them; the history's order is action, stats,
    observation, stats (by time)."""
    store = ConversationEvents(None, "c", by_time=True)  # type: ignore[arg-type]
    first = [user("u", 0.0), action("a0", 1.0, "echo hi 0"), result("o0", 2.0, "a0")]
    store.base.add_head([store._row(e) for e in first], None)
    store._index_pairs(0)
    steps = store._window(READING)
    steps.add_head([store._row(e) for e in first], None)
    built = store.build_tree()
    live = [  # the log's order
        action("a1", 10.0, "echo hi 1"),
        stats("s1", 9.5),  # logged after the action, stamped before it
        result("o1", 11.0, "a1", command="echo hi 1"),
        stats("s2", 10.5),  # logged after the result, stamped before it
    ]
    assert store.add_live(live, [steps]) == 4
    assert [r.id for r in store.base.head] == ["u", "a0", "o0", "s1", "a1", "s2", "o1"]
    assert store.base.inserted_at == 3
    assert steps_of(steps) == [("u", None, []), ("a0", "o0", ["s1"]), ("a1", "o1", ["s2"])]
    assert store._result_at["a1"].id == "o1" and store._result_at["a0"].id == "o0"
    assert store.pending_actions() == []
    tree = store.build_tree()  # the rows moved were not in it yet: extended
    assert tree is built and tree.cuts == 0
    assert list(tree.ids) == [r.id for r in store.base.head]
    assert [tree.ids[p] for p in tree.path_to(len(tree) - 1)] == [r.id for r in store.base.head]


def test_a_step_that_lands_before_the_newest_takes_the_plumbing_stamped_after_it() -> None:
    store = ConversationEvents(None, "c", by_time=True)  # type: ignore[arg-type]
    steps = store._window(READING)
    first = [user("u", 0.0), action("a0", 1.0)]
    for window in (store.base, steps):
        window.add_head([store._row(e) for e in first], None)
    store.add_live([stats("s0", 8.0), stats("s1", 4.0)], [steps])  # both fold under a0
    assert steps_of(steps) == [("u", None, []), ("a0", None, ["s0", "s1"])]
    built = store.build_tree()
    store.add_live([reply("r", 5.0)], [steps])  # logged later, stamped between them
    assert steps_of(steps) == [("u", None, []), ("a0", None, ["s1"]), ("r", None, ["s0"])]
    assert [r.id for r in store.base.head] == ["u", "a0", "s1", "r", "s0"]
    tree = store.build_tree()  # cut back to where the rows moved, extended from there
    assert tree is built and tree.cuts == 1
    assert [tree.ids[p] for p in tree.path_to(4)] == ["u", "a0", "s1", "r", "s0"]


def test_an_agent_servers_live_rows_go_at_the_end_as_they_came() -> None:
    """Its history is its log (``TIMESTAMP`` is the log forward, whatever the stamps say):
    so is its stream."""
    store = ConversationEvents(None, "c", by_time=False)  # type: ignore[arg-type]
    first = [user("u", 0.0), action("a1", 10.0)]
    store.base.add_head([store._row(e) for e in first], None)
    store.add_live([stats("s1", 9.5), result("o1", 11.0, "a1"), stats("s2", 10.5)])
    assert [r.id for r in store.base.head] == ["u", "a1", "s1", "o1", "s2"]
    assert store.base.inserted_at is None


def test_which_servers_sort_by_time() -> None:
    class Client:
        def __init__(self, kind: ServerKind | None) -> None:
            self.kind = kind

    assert history_by_time(Client(ServerKind.APP))  # type: ignore[arg-type]
    assert history_by_time(Client(ServerKind.SHARED))  # type: ignore[arg-type]
    assert history_by_time(Client(None))  # type: ignore[arg-type]  # not probed: the usual
    assert not history_by_time(Client(ServerKind.AGENT))  # type: ignore[arg-type]
    assert not history_by_time(Client(ServerKind.APP), local=True)  # type: ignore[arg-type]
    assert not history_by_time(None)


def test_a_page_that_brings_a_live_row_again_leaves_it() -> None:
    """A window still walked takes live rows in its tail; its head walk later meets one of
    them (now stored): the same event, not a second row; rows the walk brings stamped after
    a live row go after it."""
    rows = [EventRow(f"e{i}", at(i), "agent", "MessageEvent", f"#{i}") for i in range(8)]
    window = PagedWindow(EventQuery(), by_time=True)
    window.add_head(rows[:2], "2")
    window.set_count(6)  # six stored when counted
    window.add_tail([rows[5]], "t")
    late = EventRow("live", at(3.5), "agent", "MessageEvent", "live")
    assert window.append_live([late]) == 1
    window.add_head([rows[2], rows[3], late, rows[4], rows[5]], None)
    assert [r.id for r in window.head] == ["e0", "e1", "e2", "e3", "live", "e4", "e5"]
    assert len(window) == 7 and window.complete


def test_placing_a_live_row_reads_a_few_rows_whatever_the_length(monkeypatch) -> None:
    """At the newest end: one row looked at; before every row of 100,000: a bisection."""
    rows = [EventRow(f"e{i}", at(i), "agent", "MessageEvent", "") for i in range(100_000)]
    window = PagedWindow(EventQuery(), by_time=True)
    window.add_head(rows, None)
    read = []
    key = live_placing.order_key

    def counted(row: EventRow) -> str:
        read.append(row)
        return key(row)

    monkeypatch.setattr(live_placing, "order_key", counted)
    window.append_live([EventRow("new", at(100_000), "agent", "MessageEvent", "")])
    assert len(read) == 1 and window.head[-1].id == "new"
    read.clear()
    window.append_live([EventRow("early", at(-1), "agent", "MessageEvent", "")])
    assert window.head[0].id == "early" and len(read) <= 40
    read.clear()
    window.append_live([EventRow("near", at(99_997.5), "agent", "MessageEvent", "")])
    assert window.head[-4].id == "near" and len(read) <= 8


def test_a_view_walked_from_an_earlier_copy_takes_what_the_index_has_since() -> None:
    """Opened while the app server stores a run (late, in batches): the steps view's page
    came before the index's, which holds events stored in between; the stream does not
    send those again (the index has them). The view takes them from the index, in place."""
    events = [user("u", 0.0), action("a1", 1.0), stats("s1", 0.5), result("o1", 2.0, "a1")]
    store = ConversationEvents(None, "c", by_time=True)  # type: ignore[arg-type]
    steps = store._window(READING)
    steps.add_head([store._row(e) for e in history(events[:1])], None)  # the user's message
    walk_head(store, store.base, [store._row(e) for e in history(events)], 10)
    later = [action("a2", 3.0), result("o2", 4.0, "a2")]
    store.add_live(later, [steps])
    _, again = reopened(events + later)
    assert steps_of(steps) == steps_of(again)
    assert steps_of(steps)[1] == ("a1", "o1", [])
