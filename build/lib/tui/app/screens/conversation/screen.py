"""One conversation: the tree, the filtered lazy event list and the detail pane.

The screen composes the panes and routes what the widgets say. Each concern beside it lives
in its own module and is mixed in: loading through the event store (``loading.py``), find
and jump (``find.py``), the tree's cursor moving the list (``tree_follow.py``), copy and
export (``exporting.py``), following a live run (``following.py``), steering its agent
(``agent.py``). Every switch of what the list shows goes through one reactive,
:attr:`ConversationScreen.window`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input

from tui.app.guard import GuardedDispatch, being_removed
from tui.app.refusals import read_only_reason
from tui.app.screens.conversation.acting import ACTING_KEYS, ActingMixin
from tui.app.screens.conversation.agent import AgentMixin
from tui.app.screens.conversation.changes import ChangesMixin
from tui.app.screens.conversation.deferred import DeferredPartsMixin
from tui.app.screens.conversation.exporting import ExportMixin
from tui.app.screens.conversation.files import FilesMixin
from tui.app.screens.conversation.filter_dialog import FilterDialog
from tui.app.screens.conversation.find import FindMixin
from tui.app.screens.conversation.first_frame import FirstFrameMixin
from tui.app.screens.conversation.following import RECORD_POLL_S, FollowMixin
from tui.app.screens.conversation.history import HistoryMixin
from tui.app.screens.conversation.insights import InsightsMixin
from tui.app.screens.conversation.keys import CONVERSATION_KEYS
from tui.app.screens.conversation.loading import LoadingMixin
from tui.app.screens.conversation.panes import PanesMixin
from tui.app.screens.conversation.reading import READING, ReadingMixin, list_title
from tui.app.screens.conversation.tree_follow import TreeFollowMixin
from tui.app.screens.conversation.waiting import WaitingMixin
from tui.app.store.conversation_events import ConversationEvents
from tui.app.store.duplicate_rows import NOTE as DUPLICATE_NOTE
from tui.app.store.duplicate_rows import is_duplicate
from tui.app.store.live_placing import history_by_time
from tui.app.store.live_session import LiveSession
from tui.app.store.row_windows import EventQuery, PagedWindow, PathWindow, RowWindow
from tui.app.store.rows import EventRow
from tui.app.store.search import Finder
from tui.app.store.step_rows import StepRow
from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.conversation.conversation_header import ConversationHeader
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.app.widgets.conversation.filter_bar import FilterBar
from tui.text import clean

if TYPE_CHECKING:
    from tui.models import AppConversation

#: the keys that steer the agent (agent.py): only for a live conversation, never read-only
AGENT_KEYS = frozenset({"approve", "reject", "toggle_run", "message", "interrupt"})
#: priority keys (keys.py) that go to a focused text field as typing instead
TYPING_YIELDS = frozenset({"find", "edit_filter", "focus", "open_detail"})
FOLLOW_DETAIL_S = 0.5  # while following live rows, the detail pane updates at most this often
PANES = ("event-tree", "event-list", "event-detail")  # what z zooms


class ConversationScreen(
    GuardedDispatch,
    FindMixin,
    TreeFollowMixin,
    ReadingMixin,
    ExportMixin,
    FollowMixin,
    AgentMixin,
    ActingMixin,
    PanesMixin,
    WaitingMixin,
    InsightsMixin,
    ChangesMixin,
    FilesMixin,
    HistoryMixin,
    LoadingMixin,
    DeferredPartsMixin,
    FirstFrameMixin,
    Screen,
):
    """Tree | list over detail. The base index loads in the background for the tree."""

    AUTO_FOCUS = "#event-list"
    BINDING_GROUP_TITLE = "Conversation"
    #: what ctrl+c copies where no text is selected (``copy_key.py``): what c copies
    COPY_ACTION = "copy('text')"
    ALLOW_IN_MAXIMIZED_VIEW = "KeyBar"  # a zoomed pane (z) keeps the keys in view
    CSS_PATH = "conversation.tcss"
    BINDINGS = CONVERSATION_KEYS

    #: What the list shows: the filter bar's view, a branch, or find's matches. Assigning it
    #: is the one way to switch: the list takes the rows (cursor on the first) and its title
    #: says what they are (:meth:`watch_window`).
    window: reactive[RowWindow] = reactive(
        PathWindow([], ""), always_update=True, init=False, repaint=False
    )

    def __init__(
        self, conversation_id: str, *, shared: bool = False, title: str | None = None
    ) -> None:
        super().__init__()
        self.conversation_id = conversation_id
        self.events = ConversationEvents(
            self.app.client,
            conversation_id,
            shared=shared,
            on_retry=self._retry_notice,
            by_time=history_by_time(self.app.client, local=self.app.local),
        )
        self.set_reactive(ConversationScreen.window, self.events.base)
        #: the filter bar's view (a query's window): what branch and find views return to
        self.query_window: PagedWindow = self.events.base
        #: what the list shows first: the steps view (the base window is the event log,
        #: walked in the background for the tree)
        self.opening_query = READING
        self.prefetch_first_page()  # the request runs while the panes are built
        self._title = title
        self.live: LiveSession | None = None
        self.new_below = 0  # live rows below a cursor that does not follow them
        self.frozen_rows = 0  # rows when long-lived objects were last frozen (tui/memory.py)
        self._detail_pending: EventRow | None = None  # the newest followed row, detail due
        self._detail_shown_at = 0.0  # when the detail last caught up with followed rows
        self._wanted_rows: tuple[PagedWindow, int, int] | None = None  # the list's newest ask
        self._filling = False  # fill_rows is running (it takes each new ask in turn)
        self.finder: Finder | None = None
        self.forks_made: list[tuple[str, str]] = []  # (event id, title): acting.py
        self.make_deferred_parts()

    def compose(self) -> ComposeResult:
        yield ConversationHeader(
            self.conversation_id, self._title, shared=self.events.shared, id="conv-header"
        )
        yield FilterBar(id="filter-bar")
        # the find bar, the error banner and the confirm bar come here (deferred.py)
        with Horizontal(id="conv-body"):
            yield EventTreeView(id="event-tree")
            with Vertical(id="conv-right"):
                yield EventList(id="event-list")
                # the stream preview comes here
                yield EventDetail(id="event-detail")
        # the message line comes here
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(FilterBar).set_query(self.opening_query)
        self.query_one("#event-tree").border_title = "Tree"
        event_list = self.query_one(EventList)
        event_list.border_title = "Events"
        event_list.empty_text = "Loading events…"
        self.render_header()
        event_list.focus()
        self.start_loading()
        self.watch_tree_content()
        self.set_interval(RECORD_POLL_S, self.poll_record)
        self.start_waiting_clock()

    @property
    def closing(self) -> bool:
        """Being closed: the panes may already be gone, so late worker results are dropped."""
        return being_removed(self)

    @property
    def conversation(self) -> AppConversation | None:
        """The conversation's record (title, statuses, cost), once loaded."""
        return self.events.record

    async def on_unmount(self) -> None:
        self.cancel_loading()
        self.events.close()
        if self.live is not None:
            await self.live.aclose()

    # --- what the list shows ----------------------------------------------------------------

    def watch_window(self, window: RowWindow) -> None:
        cursor, self.start_cursor = self.start_cursor, 0
        self.query_one(EventList).set_source(window, cursor=cursor)
        self.update_list_title()
        self.find_view_changed()  # find's count and words were for the old view

    def render_header(self) -> None:
        for header in self.query(ConversationHeader):  # none once the screen is closing
            seen = self.events.newest_stats
            forks = self.query(EventTreeView)  # as the tree shows them: state updates aside
            if forks and self.conversation is not None:
                forks.first().set_head(self.conversation.leaf_event_id)
            header.show(
                self.conversation,
                self.live.state if self.live is not None else None,
                seen[1:] if seen is not None else None,
                branched=bool(forks) and forks.first().fork_count() > 0,
            )

    def update_list_title(self) -> None:
        event_list = self.query_one(EventList)
        window = self.window
        if isinstance(window, PathWindow):
            # Text, not str: a str title is parsed as markup, and the label is a message's words
            event_list.border_title = Text(
                f"Events · {window.what}: {clean(window.label)[:40]} · {len(window):,}"
            )
        else:
            event_list.border_title = Text(list_title(window))
        status = self.list_status() or self.locate_status
        if status:
            event_list.border_subtitle = Text(status)
        elif not self.events.base.complete:
            total = self.events.base.total
            event_list.border_subtitle = (
                f"indexing {len(self.events.base.head):,}/{f'{total:,}' if total else '?'}"
            )
        elif self.new_below:
            event_list.border_subtitle = f"↓ {self.new_below:,} new (G to follow)"
        else:
            event_list.border_subtitle = ""

    # --- loading (loading.py) ---------------------------------------------------------------

    @on(EventList.RowsWanted)
    def _rows_wanted(self, message: EventList.RowsWanted) -> None:
        self.rows_wanted(message)

    # --- filters -----------------------------------------------------------------------------

    @on(FilterBar.Changed)
    def _filter_changed(self, message: FilterBar.Changed) -> None:
        """A filter, the order or every event again: the cursor stays on its event (where
        the new view leaves it out, on the nearest row before its time)."""
        self.apply_query(message.query, keep=self.current_row())

    @work(exclusive=True, group="load")
    async def apply_query(self, query: EventQuery, keep: EventRow | None = None) -> None:
        """Show ``query`` (``keep``: with the cursor on the row holding that event)."""
        query = replace(query, raw=self.events.raw)  # the filter bar knows nothing of it
        if query.raw:  # every event as stored: no steps, nothing folded (the base index)
            query = replace(query, steps=False, hide_plumbing=False)
        try:
            # counted after the rows are painted (the title says "N+" until then)
            await self.open_view(query, keep)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not apply the filter", exc)

    def filter_kind(self, kind: str | None) -> None:
        """Palette entry point: show only one kind."""
        bar = self.query_one(FilterBar)
        bar.set_query(bar.applied.with_kinds([kind] if kind else None))
        self.apply_query(bar.applied, keep=self.current_row())

    def action_toggle_sort(self) -> None:
        self.query_one(FilterBar).toggle_sort()

    def action_edit_filter(self) -> None:
        """``f``: the filter dialog (kinds with their counts, time range, order)."""
        bar = self.query_one(FilterBar)

        def chosen(query: EventQuery | None) -> None:
            if query is not None and not self.closing:
                bar.change(query)

        self.app.push_screen(FilterDialog(bar.applied, self.events.count), chosen)

    @on(FilterBar.EditWanted)
    def _filter_clicked(self) -> None:
        self.action_edit_filter()

    def action_show_all(self) -> None:
        if isinstance(self.window, PathWindow):
            self.window = self.query_window
        elif not self.query_window.query.is_plain:
            bar = self.query_one(FilterBar)
            bar.set_query(self.query_window.query.cleared())
            self.apply_query(bar.applied, keep=self.current_row())

    # --- detail ------------------------------------------------------------------------------

    @on(EventList.Highlighted)
    def _highlighted(self, message: EventList.Highlighted) -> None:
        if message.row is not None:
            if message.followed:
                self._follow_detail(message.row)
            else:
                self._detail_pending = None
                self.show_detail(message.row)
        if self.finder is not None:
            self.refresh_find_status()  # "hit 3 of 31" follows the cursor
        if self.new_below and message.event_list.at_end:
            self.new_below = 0
            self.update_list_title()

    def _follow_detail(self, row: EventRow) -> None:
        """The cursor follows live rows: the detail pane catches up at most every
        FOLLOW_DETAIL_S (drawing a message is ~10–100 ms; at 20 batches a second the
        screen would do little else), always ending on the newest row."""
        pending = self._detail_pending
        self._detail_pending = row
        if pending is not None:
            return  # a catch-up is already due; it takes the newest row
        wait = self._detail_shown_at + FOLLOW_DETAIL_S - time.perf_counter()
        if wait > 0:
            self.set_timer(wait, self._catch_up_detail)
        else:
            self.call_later(self._catch_up_detail)

    def _catch_up_detail(self) -> None:
        row, self._detail_pending = self._detail_pending, None
        if row is not None and not self.closing:
            self._detail_shown_at = time.perf_counter()
            self.show_detail(row)

    @work(exclusive=True, group="detail")
    async def show_detail(self, row: EventRow, *, note: str | None = None) -> None:
        """The event in the detail pane; ``note`` is said over it."""
        await asyncio.sleep(0.03)  # debounce: holding a key doesn't fetch every row
        try:
            event = await self.events.event(row)
            paired = await self.events.paired(row)
        except Exception as exc:  # noqa: BLE001
            self.failed("Could not load the event", exc)
            return
        if self.closing:
            return
        detail = self.query_one(EventDetail)
        if event is None:
            detail.clear_event("This event is no longer available.")
        else:
            detail.show(
                event,
                paired,
                note=note or (DUPLICATE_NOTE if is_duplicate(row) else None),
                folded=row.folded or () if isinstance(row, StepRow) else (),
            )

    @on(EventList.Selected)
    def _selected(self, message: EventList.Selected) -> None:
        self.set_focus(self.query_one(EventDetail))

    def action_open_detail(self) -> None:
        """Enter on the list: the detail takes the keys (as the list's own enter asks, but
        at once: a key typed right after it already goes to the detail)."""
        self.set_focus(self.query_one(EventDetail))

    # --- tree ----------------------------------------------------------------------------

    @on(EventTreeView.BranchChosen)
    def _branch(self, message: EventTreeView.BranchChosen) -> None:
        if self.events.tree is None:
            return
        self.window = self.events.branch_window(message.position, message.label)
        self.notify(
            "Showing one branch (root → its newest leaf). Press a for all events.", markup=False
        )

    # --- keys --------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Agent keys show (and work) only where they apply, so the key bar lists what can be
        done; pressed elsewhere, :meth:`why_not` says why they do nothing."""
        if action in AGENT_KEYS and self.app.readonly:
            return False  # read-only (or local folders): nothing to steer, so no keys for it
        if action in ("changes", "changes_here"):
            return self.changes_refused() is None
        if action in ("approve", "reject"):
            return self.live is not None and self.live.waiting_for_confirmation
        if action in TYPING_YIELDS and isinstance(self.focused, Input):
            return False  # a priority key (keys.py) that a text field types instead
        if action == "open_detail":
            return isinstance(self.focused, EventList)
        if action == "retry_load":
            return self.load_failure is not None  # only while the rows could not be had
        if action == "find_toggle":  # the find bar's toggles, from the list, while it is open
            return self.find_bar.has_class("-visible")
        if action in ("toggle_run", "message", "interrupt"):
            return self.live is not None  # only a live conversation has an agent to steer
        if action == "files":
            return self.files_refusal() is None
        if action in ACTING_KEYS:
            return self.acting_refused(action) is None
        return True

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str | None:
        """Why a key refused by :meth:`check_action` does nothing (``refusals.py``)."""
        if action in AGENT_KEYS and self.app.readonly:
            return read_only_reason(self.app)
        if action in AGENT_KEYS and self.live is None:
            return self.not_live_reason()
        if action in ("changes", "changes_here"):
            return self.changes_refused()
        if action in ("approve", "reject"):
            return "The agent waits for no approval: there is nothing to approve or reject."
        if action == "find_toggle":
            return "Find is closed: / opens it, then ^r ^t ^o switch its options."
        if action == "files":
            return self.files_refusal()
        if action in ACTING_KEYS:
            return self.acting_refused(action)
        return None

    def action_back(self) -> None:
        if self.message_line.is_open:
            self.close_message_line()
            return
        if self.find_bar.has_class("-visible"):
            hits_words = self.words_from_hit  # a search hit's, untouched: back to the hits
            self.close_find()  # esc closes find (its marks, its only-matches view) first
            if not hits_words:
                return
        if isinstance(self.window, PathWindow):
            self.action_show_all()
        else:
            self.app.pop_screen()

    def action_zoom(self) -> None:
        """The focused pane fills the screen (a narrow terminal's long lines); z again restores."""
        if self.maximized is not None:
            self.minimize()
            self.fit_tree()
            return
        focused = self.focused
        pane = next(
            (node for node in (focused.ancestors_with_self if focused else ()) if node.id in PANES),
            None,
        )
        if pane is not None:
            self.maximize(pane, container=False)
            self.fit_tree()

    def action_focus(self, widget_id: str) -> None:
        """``t`` / ``l`` / ``d``: that pane, at once.

        Focus moves now, not after the next refresh (``Widget.focus`` defers it to a
        callback queued behind keys already typed): ``t`` then ``j`` typed together
        moved the list's cursor instead of the tree's."""
        if self.maximized is not None and self.maximized.id != widget_id:
            self.minimize()  # the pane asked for is hidden behind the zoomed one
            self.fit_tree()
        if widget_id == "event-tree":
            self.show_tree()
        self.set_focus(self.query_one(f"#{widget_id}"))
