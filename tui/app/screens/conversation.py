"""One conversation: the tree, the filtered lazy event list and the detail pane."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Static

from tui.models import EventTree
from tui.text import clean

from ..conversation_events import ConversationEvents
from ..copying import event_json_text, useful_text
from ..format import (
    conversation_cost,
    money,
    sandbox_text,
    status_text,
    status_value,
    title_of,
    tokens,
)
from ..gc_freeze import FREEZE_EVERY, freeze_long_lived
from ..live_session import LiveSession, can_follow, live_mark, streaming_text
from ..messages import AgentStatusChanged
from ..row_windows import EventQuery, PagedWindow, PathWindow
from ..rows import EventRow
from ..search import Finder, FindError
from ..tree_outline import TreeWalk, slices
from ..widgets.event_detail import EventDetail
from ..widgets.event_list import EventList
from ..widgets.event_tree import EventTreeView
from ..widgets.filter_bar import FilterBar
from ..widgets.find_bar import FindBar
from ..widgets.key_bar import KeyBar
from .errors import describe_error

if TYPE_CHECKING:
    from tui.models import AppConversation

TREE_REFRESH_S = 1.0
FOLLOW_DETAIL_S = 0.5  # while following live rows, the detail pane updates at most this often
MESSAGE_PLACEHOLDER = "message to the agent (enter sends, esc cancels)"


class ConversationScreen(Screen):
    """Tree | list over detail. The base index loads in the background for the tree."""

    AUTO_FOCUS = "#event-list"
    BINDING_GROUP_TITLE = "Conversation"
    ALLOW_IN_MAXIMIZED_VIEW = "KeyBar"  # a zoomed pane (z) keeps the keys in view
    BINDINGS = [
        Binding("escape", "back", "Back", id="conversation.back"),
        Binding("o", "toggle_sort", "Sort", id="conversation.sort"),
        Binding("slash,ctrl+f", "find", "Find", id="conversation.find"),
        Binding("f", "focus_filter", "Filter", id="conversation.filter"),
        Binding("n", "find_next", "Next hit", show=False, id="conversation.find-next"),
        Binding(
            "ctrl+o", "find_toggle('only')", "Only matches", show=False, id="conversation.find-only"
        ),
        Binding(
            "ctrl+r", "find_toggle('regex')", "Regex", show=False, id="conversation.find-regex"
        ),
        Binding(
            "ctrl+t", "find_toggle('case')", "Match case", show=False, id="conversation.find-case"
        ),
        Binding("N", "find_previous", "Previous hit", show=False, id="conversation.find-previous"),
        Binding("e", "jump('error', 1)", "Next error", show=False, id="conversation.next-error"),
        Binding(
            "E", "jump('error', -1)", "Previous error", show=False, id="conversation.previous-error"
        ),
        Binding(
            "u", "jump('user', 1)", "Next user message", show=False, id="conversation.next-user"
        ),
        Binding(
            "U",
            "jump('user', -1)",
            "Previous user message",
            show=False,
            id="conversation.previous-user",
        ),
        Binding(
            "right_square_bracket",
            "jump('fork', 1)",
            "Next branch point",
            show=False,
            id="conversation.next-fork",
        ),
        Binding(
            "left_square_bracket",
            "jump('fork', -1)",
            "Previous branch point",
            show=False,
            id="conversation.previous-fork",
        ),
        Binding("c", "copy('text')", "Copy", show=False, id="conversation.copy"),
        Binding("C", "copy('json')", "Copy JSON", show=False, id="conversation.copy-json"),
        Binding("ctrl+s", "export('md', 'view')", "Export", show=False, id="conversation.export"),
        Binding("a", "show_all", "All events", id="conversation.all"),
        Binding("space", "toggle_run", "Pause/run", id="conversation.run"),
        Binding("m", "message", "Message", id="conversation.message"),
        Binding("X", "interrupt", "Interrupt", id="conversation.interrupt"),
        Binding(
            "A",
            "approve",
            "Approve",
            id="conversation.approve",
            tooltip="Run the action the agent waits to run",
        ),
        Binding(
            "R",
            "reject",
            "Reject",
            id="conversation.reject",
            tooltip="Refuse the waiting action, with a reason for the agent",
        ),
        Binding("z", "zoom", "Zoom pane", show=False, id="conversation.zoom"),
        Binding("t", "focus('event-tree')", "Tree", show=False, id="conversation.focus-tree"),
        Binding("l", "focus('event-list')", "List", show=False, id="conversation.focus-list"),
        Binding("d", "focus('event-detail')", "Detail", show=False, id="conversation.focus-detail"),
    ]

    def __init__(
        self, conversation_id: str, *, shared: bool = False, title: str | None = None
    ) -> None:
        super().__init__()
        self.conversation_id = conversation_id
        self.events = ConversationEvents(
            self.app.client, conversation_id, shared=shared, on_retry=self._retry_notice
        )
        self.window: PagedWindow | PathWindow = self.events.base
        self.query_window: PagedWindow = self.events.base
        self._title = title
        self.live: LiveSession | None = None
        self._new_below = 0
        self._tree_dirty = False
        self._tree_next = 0.0  # perf_counter time before which the tree is not rebuilt
        self._outlining = False  # a tree walk is running (in slices)
        self._frozen_rows = 0  # rows when long-lived objects were last frozen (gc_freeze.py)
        self._tree_now = False  # a refresh was asked for "now" while it ran
        self._detail_pending: EventRow | None = None  # the newest followed row, detail due
        self._detail_shown_at = 0.0  # when the detail last caught up with followed rows
        self._wanted_rows: tuple[PagedWindow, int, int] | None = None  # the list's newest ask
        self._filling = False  # fill_rows is running (it takes each new ask in turn)
        self.finder: Finder | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="conv-header")
        yield FilterBar(id="filter-bar")
        yield FindBar(id="find-bar")
        yield Static(id="error-banner")
        yield Static(id="confirm-bar")
        with Horizontal(id="conv-body"):
            yield EventTreeView(id="event-tree")
            with Vertical(id="conv-right"):
                yield EventList(id="event-list")
                yield Static(id="stream-preview")
                yield EventDetail(id="event-detail")
        yield Input(placeholder=MESSAGE_PLACEHOLDER, id="message-line")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#event-tree").border_title = "Tree"
        event_list = self.query_one(EventList)
        event_list.border_title = "Events"
        event_list.empty_text = "Loading events…"
        self.query_one(EventDetail).clear_event()
        self._render_header()
        event_list.focus()
        self.load()
        self.set_interval(TREE_REFRESH_S, self._refresh_tree)

    @property
    def closing(self) -> bool:
        """Being closed: the panes may already be gone, so late worker results are dropped."""
        return not self.is_attached or self._closing or self._closed or self._pruning

    @property
    def conversation(self) -> AppConversation | None:
        """The conversation's record (title, statuses, cost), once loaded."""
        return self.events.record

    async def on_unmount(self) -> None:
        self.events.close()
        if self.live is not None:
            await self.live.aclose()

    # --- header --------------------------------------------------------------------------

    def _render_header(self) -> None:
        conv = self.conversation
        text = Text()
        title = title_of(conv) if conv is not None else clean(self._title or self.conversation_id)
        text.append(title, style="bold")
        text.append(f"  {self.conversation_id}", style="dim")
        if self.events.shared:
            text.append("  shared link (read-only)", style="italic")
        if conv is not None:
            live = self.live.state if self.live is not None else None
            text.append("\nagent ")
            status = (
                live.execution_status
                if live is not None and live.execution_status
                else conv.execution_status
            )
            text.append_text(status_text(status))
            text.append("   sandbox ")
            text.append_text(sandbox_text(conv))
            mark = live_mark(live, local=self.app.local)
            if mark:  # before cost and model: a narrow terminal cuts the line's end
                text.append("   ")
                text.append_text(mark)
            cost, used = conversation_cost(conv)
            if live is not None and (live.cost or live.total_tokens):
                cost, used = live.cost, live.total_tokens
            text.append(f"   cost {money(cost)}   tokens {tokens(used)}")
            if conv.llm_model:
                text.append(f"   model {clean(conv.llm_model)}", style="dim")
        for header in self.query("#conv-header").results(Static):
            header.update(text)

    def _update_list_title(self) -> None:
        event_list = self.query_one(EventList)
        window = self.window
        if isinstance(window, PathWindow):
            # Text, not str: a str title is parsed as markup, and the label is a message's words
            event_list.border_title = Text(
                f"Events · {window.what}: {clean(window.label)[:40]} · {len(window):,}"
            )
        else:
            total = f"{len(window):,}" if window.total is not None else f"{len(window):,}+"
            event_list.border_title = Text(f"Events · {window.query.describe()} · {total}")
        if not self.events.base.complete:
            event_list.border_subtitle = (
                f"indexing {len(self.events.base.head):,}/{self.events.base.total or '?'}"
            )
        elif self._new_below:
            event_list.border_subtitle = f"↓ {self._new_below:,} new (G to follow)"
        else:
            event_list.border_subtitle = ""

    # --- loading -------------------------------------------------------------------------

    @work(exclusive=True, group="load")
    async def load(self) -> None:
        try:
            window, _ = await asyncio.gather(
                self.events.open_window(self.query_window.query, self._total_known),
                self._load_record(),
            )
        except Exception as exc:  # noqa: BLE001 - shown to the user, never raised
            self._failed("Could not load the conversation", exc)
            return
        if self.closing:
            return
        event_list = self.query_one(EventList)
        event_list.empty_text = "No events match." if window.total == 0 else "No events."
        self.window = self.query_window = window
        event_list.set_source(window)
        self._update_list_title()
        # the first rows are painted before the background walk starts taking turns
        self.call_after_refresh(self.index)
        if self.conversation is not None and can_follow(self.conversation):
            self.follow_live()

    def _total_known(self, window: PagedWindow) -> None:
        """A window's count arrived after its first rows: size the list and its title."""
        if self.closing or window is not self.window:
            return
        event_list = self.query_one(EventList)
        if event_list.source is window:  # before that, the list still says it is loading
            event_list.rows_changed()
            self._update_list_title()

    @work(exclusive=True, group="record")
    async def refresh_record(self) -> None:
        try:
            await self.events.load_record(patient=False)
        except Exception:  # noqa: BLE001 - best effort; the stream status already says enough
            return
        self._render_header()

    async def _load_record(self) -> None:
        if not self.events.shared:
            await self.events.load_record()
            self._render_header()

    @work(exclusive=True, group="index")
    async def index(self) -> None:
        """Walk the whole conversation (oldest first) so the tree and pairing are complete.

        The store outlasts server and network failures (with backoff), so a flaky server
        still ends fully indexed."""
        events, loop = self.events, asyncio.get_running_loop()
        last = 0.0
        while not events.base.complete:
            try:
                added = await events.index_page()
            except Exception as exc:  # noqa: BLE001 - shown to the user, never raised
                self._failed("Indexing stopped", exc)
                break
            if self.closing:
                return
            now = loop.time()
            if now - last > TREE_REFRESH_S:
                last = now
                self._base_grew()
            if not added:
                break
        if not self.closing:
            self._base_grew()

    def _base_grew(self) -> None:
        if self.events.base.complete and not self._frozen_rows:
            freeze_long_lived()  # the index's rows stay as long as the screen
            self._frozen_rows = len(self.events.base.head)
        if self.window is self.events.base:
            self.query_one(EventList).rows_changed()
        self._update_list_title()
        self._tree_dirty = True
        self._refresh_tree(now=self.events.base.complete)
        if self.events.base.complete and self.live is not None and self.live.held:
            self._flush_live_rows()
        if self.live is not None and self.live.waiting_for_confirmation:
            self._render_confirm()

    def _refresh_tree(self, *, now: bool = False) -> None:
        """Rebuild the tree when rows arrived: at most once a second, and never more than a
        fifth of the time. The walk over every event runs in slices (``_outline_tree``), so
        neither the list nor the live rows ever wait for it."""
        if not self._tree_dirty:
            return
        if self._outlining:  # one walk at a time; this one follows when it ends
            self._tree_now |= now
            return
        if time.perf_counter() < self._tree_next and not now:
            return
        self._tree_dirty = False
        tree = self.events.build_tree()  # appended rows extend it: O(new rows)
        if tree is not None:
            self._outlining = True
            self._outline_tree(tree)

    @work(group="tree")
    async def _outline_tree(self, tree: EventTree) -> None:
        busy = 0.0
        try:
            walk = TreeWalk(tree, self.events.base.head)
            outline, busy = await slices(walk.outline())
            if self.closing:
                return
            view = self.query_one(EventTreeView)
            view.show(walk, outline, keep_state=True)
            forks = len(outline.forks)
            view.border_subtitle = (
                f"{outline.size:,} events · {forks} fork{'s' if forks != 1 else ''}"
            )
        finally:
            self._outlining = False
            self._tree_next = time.perf_counter() + max(TREE_REFRESH_S, 4 * busy)
        if self._tree_now and not self.closing:
            self._tree_now = False
            self._refresh_tree(now=True)

    # --- live ----------------------------------------------------------------------------

    @work(exclusive=True, group="live")
    async def follow_live(self) -> None:
        try:
            self.live = LiveSession(self.app.client.base_url, self.conversation)
            self.refresh_bindings()
            if not self.events.base.complete:
                await self.events.fill(self.events.base, "tail")  # the newest page fixes "since"
        except Exception as exc:  # noqa: BLE001
            self._failed("Cannot follow this conversation live", exc)
            return
        stream = self.live.open_stream(self.events.newest_timestamp)
        async with stream:
            async for batch in stream.batches(0.05):
                if self.closing:  # the screen was closed while a batch was on its way
                    return
                self._apply_live(batch)

    def _apply_live(self, batch: list) -> None:
        live = self.live
        assert live is not None
        before = live.state.execution_status
        changed = live.fold(batch)
        if "status" in changed and self.conversation is not None:
            # the first status of a stream is where things stand, not news
            self.post_message(
                AgentStatusChanged(
                    self.conversation_id,
                    title_of(self.conversation),
                    status_value(before),
                    status_value(live.state.execution_status),
                )
            )
        if live.held and self.events.base.complete:
            self._flush_live_rows()
        if changed & {"status", "stats", "connection"}:
            self._render_header()
        connection = live.state.connection if "connection" in changed else None
        if connection is not None and connection.state in ("live", "reconnecting", "offline"):
            self.refresh_record()  # a drop often means the sandbox changed: show it
        if "streaming" in changed:
            preview = self.query_one("#stream-preview", Static)
            preview.set_class(live.state.is_streaming, "-visible")
            if live.state.is_streaming:
                preview.update(streaming_text(live.state))
        if changed & {"status", "events"}:
            self._render_confirm()
        if changed & {"error", "status"}:
            banner = self.query_one("#error-banner", Static)
            error = live.error_text()
            banner.set_class(error is not None, "-visible")
            if error is not None:
                banner.update(error)
        if "notice" in changed and live.state.server_notice is not None:
            notice = live.state.server_notice
            self.notify(
                f"Server: {clean(notice.code)}: {clean(notice.detail)[:200]}",
                severity="warning",
                markup=False,
            )

    def _flush_live_rows(self) -> None:
        live = self.live
        assert live is not None
        events, live.held = live.held, []
        event_list = self.query_one(EventList)
        shows_base = self.window is self.events.base or (
            self.window is self.query_window and self.query_window.query.is_plain
        )
        follow = shows_base and event_list.at_end and not self.window.query.descending
        added = self.events.add_live(events, [self.query_window])
        if not added:
            self._tree_dirty = True
            return
        self._tree_dirty = True
        if self._frozen_rows and len(self.events.base.head) - self._frozen_rows >= FREEZE_EVERY:
            freeze_long_lived()  # a long stream's rows, out of the collector's way too
            self._frozen_rows = len(self.events.base.head)
        if shows_base:
            if self.window.query.descending and event_list.cursor > 0:
                event_list.cursor += added  # keep the same event under the cursor
            event_list.rows_appended(added, follow=follow)
            if not follow and not self.window.query.descending:
                self._new_below += added
        self._update_list_title()

    def _agent(self) -> LiveSession | None:
        if self.app.readonly:
            self.notify("Read-only mode: the agent cannot be controlled.", severity="warning")
            return None
        if self.live is None:
            self.notify(
                "This conversation is not running live (its sandbox is not RUNNING).",
                severity="warning",
            )
            return None
        return self.live

    def action_toggle_run(self) -> None:
        if self._agent() is not None:
            self.control("pause" if self.live.running else "run")

    def action_interrupt(self) -> None:
        if self._agent() is None:
            return
        from .confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.control("interrupt")

        self.app.push_screen(
            ConfirmScreen(
                "Interrupt the agent now?\nThe model call in flight is cancelled.", "Interrupt"
            ),
            answered,
        )

    @work(group="agent")
    async def control(self, verb: str) -> None:
        live = self.live
        assert live is not None
        try:
            await getattr(live.agent, verb)()
        except Exception as exc:  # noqa: BLE001
            self._failed(f"Could not {verb} the agent", exc)
            return
        if verb == "interrupt":  # takes effect at once: show it before the stream says so
            from tui.models import ExecutionStatus

            live.state.execution_status = ExecutionStatus.PAUSED
            self._render_header()
        self.notify(
            {
                "pause": "Pause requested (takes effect between steps).",
                "run": "Agent running.",
                "interrupt": "Agent interrupted.",
            }[verb]
        )

    # --- confirmation ----------------------------------------------------------------------

    def _render_confirm(self) -> None:
        """Show what the agent waits to run while it waits for the user's approval."""
        bar = self.query_one("#confirm-bar", Static)
        waiting = self.live is not None and self.live.waiting_for_confirmation
        if waiting != bar.has_class("-visible"):
            bar.set_class(waiting, "-visible")
            self.refresh_bindings()  # A/R appear in the footer only while they apply
        if not waiting:
            return
        pending = self.events.pending_actions()
        text = Text("The agent waits for your approval", style="bold")
        text.append(
            f" of {len(pending)} action{'s' if len(pending) != 1 else ''}:" if pending else "."
        )
        for row in pending[-3:]:
            text.append("\n  ")
            text.append(clean(row.summary)[:200])
        text.append("\nA", style="bold")
        text.append(" approve and run   ")
        text.append("R", style="bold")
        text.append(" reject (with a reason for the agent)")
        bar.update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Agent keys show (and work) only where they apply, so the footer lists what can be done."""
        if (
            action in ("approve", "reject", "toggle_run", "message", "interrupt")
            and self.app.readonly
        ):
            return False  # read-only (or local folders): nothing to steer, so no keys for it
        if action in ("approve", "reject"):
            return self.live is not None and self.live.waiting_for_confirmation
        if action == "find_toggle":  # the find bar's toggles, from the list, while it is open
            return self.query_one(FindBar).has_class("-visible")
        if action in ("toggle_run", "message", "interrupt"):
            return self.live is not None  # only a live conversation has an agent to steer
        return True

    def action_approve(self) -> None:
        if self._agent() is not None:
            self.respond(True, "")

    def action_reject(self) -> None:
        if self._agent() is None:
            return
        box = self.query_one("#message-line", Input)
        box.placeholder = "why reject? the agent is told this (enter rejects, esc cancels)"
        box.add_class("-visible", "-reject")
        box.focus()

    @work(group="agent")
    async def respond(self, accept: bool, reason: str) -> None:
        try:
            if accept:
                await self.live.agent.respond_to_confirmation(True)
            elif reason:
                await self.live.agent.respond_to_confirmation(False, reason)
            else:
                await self.live.agent.respond_to_confirmation(False)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not answer the confirmation", exc)
            return
        self.notify(
            "Approved: the agent runs the action."
            if accept
            else "Rejected: the agent was told why.",
            markup=False,
        )

    def action_message(self) -> None:
        if self._agent() is None:
            return
        box = self.query_one("#message-line", Input)
        box.add_class("-visible")
        box.focus()

    @on(Input.Submitted, "#message-line")
    def _send_message(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        box = event.input
        rejecting = box.has_class("-reject")
        self._close_message_line()
        if rejecting:
            self.respond(False, text)
        elif text:
            self.send_message(text)

    def _close_message_line(self) -> None:
        box = self.query_one("#message-line", Input)
        box.value = ""
        box.remove_class("-visible", "-reject")
        box.placeholder = MESSAGE_PLACEHOLDER
        self.query_one(EventList).focus()

    @work(group="agent")
    async def send_message(self, text: str) -> None:
        try:
            await self.live.agent.send_message(text)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not send the message", exc)
            return
        self.notify("Message sent.")

    @on(EventList.RowsWanted)
    def _rows_wanted(self, message: EventList.RowsWanted) -> None:
        if isinstance(self.window, PagedWindow):
            self._wanted_rows = (self.window, message.start, message.end)
            if not self._filling:
                self._filling = True
                self.fill_rows()

    @work(group="fill")
    async def fill_rows(self) -> None:
        """Load what the list last asked for, then whatever it asked for meanwhile.

        A page on its way is never cancelled for a newer request (the list asks again on
        every repaint that finds a gap): cancelling it and asking anew made End on a large
        conversation wait for several page fetches instead of one."""
        try:
            while (wanted := self._wanted_rows) is not None and not self.closing:
                self._wanted_rows = None
                window, start, end = wanted
                try:
                    added = await self.events.fill_range(window, start, end)
                except Exception as exc:  # noqa: BLE001
                    self._failed("Could not load events", exc)
                    return
                if added and window is self.window and not self.closing:
                    self.query_one(EventList).rows_changed()
                    self._update_list_title()
        finally:
            self._filling = False

    def _retry_notice(self, exc: BaseException, delay: float) -> None:
        """The store tries a failed load again after ``delay`` seconds: say so."""
        if not self.closing:
            self.notify(
                f"Loading failed ({describe_error(exc)}); retrying in {delay:.1f}s.",
                severity="warning",
                timeout=min(5.0, delay + 1),
                markup=False,
            )

    def _failed(self, what: str, exc: BaseException) -> None:
        self.notify(f"{what}: {describe_error(exc)}", severity="error", timeout=8, markup=False)

    # --- detail --------------------------------------------------------------------------

    @on(EventList.Highlighted)
    def _highlighted(self, message: EventList.Highlighted) -> None:
        if message.row is not None:
            if message.followed:
                self._follow_detail(message.row)
            else:
                self._detail_pending = None
                self.show_detail(message.row)
        if self._new_below and message.event_list.at_end:
            self._new_below = 0
            self._update_list_title()

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
    async def show_detail(self, row: EventRow) -> None:
        await asyncio.sleep(0.03)  # debounce: holding a key doesn't fetch every row
        try:
            event = await self.events.event(row)
            paired = await self.events.paired(row)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not load the event", exc)
            return
        if self.closing:
            return
        detail = self.query_one(EventDetail)
        if event is None:
            detail.clear_event("This event is no longer available.")
        else:
            detail.show(event, paired)

    @on(EventList.Selected)
    def _selected(self, message: EventList.Selected) -> None:
        self.query_one(EventDetail).focus()

    # --- tree ----------------------------------------------------------------------------

    @on(EventTreeView.BranchChosen)
    def _branch(self, message: EventTreeView.BranchChosen) -> None:
        if self.events.tree is None:
            return
        self.window = self.events.branch_window(message.position, message.label)
        event_list = self.query_one(EventList)
        event_list.set_source(self.window)
        self._update_list_title()
        self.notify(
            "Showing one branch (root → its newest leaf). Press a for all events.", markup=False
        )

    @on(EventTreeView.EventChosen)
    def _event_chosen(self, message: EventTreeView.EventChosen) -> None:
        rows = self.events.base.head
        if message.position >= len(rows):
            return
        target = rows[message.position]
        if self.window is not self.events.base:
            self.action_show_all()
        event_list = self.query_one(EventList)
        if self.window is self.events.base and not self.events.base.query.descending:
            event_list.cursor = message.position
        else:
            self.show_detail(target)

    # --- find, jump, copy ------------------------------------------------------------------

    def action_find(self) -> None:
        self.query_one(FindBar).open()

    @on(FindBar.Submitted)
    def _find_submitted(self, message: FindBar.Submitted) -> None:
        bar = self.query_one(FindBar)
        try:
            finder = Finder(message.query)
        except FindError as exc:
            bar.set_status(str(exc), error=True)
            return
        self.finder = finder
        self.query_one(EventList).set_finder(finder)
        self.query_one(EventDetail).set_finder(finder)
        self.query_one(EventList).focus()  # so n / N walk the hits; / returns to the query
        if message.only:
            self.find_only(finder)
            return
        if isinstance(self.window, PathWindow) and self.window.what == "find":
            self._show_window(self.query_window)
        self.seek(
            finder.matches, 1, f"no event matches {finder.query.describe()}", include_current=True
        )

    @on(FindBar.Closed)
    def _find_closed(self) -> None:
        self.workers.cancel_group(self, "find")
        bar = self.query_one(FindBar)
        bar.remove_class("-visible")
        bar.set_status("")
        self.finder = None
        self.query_one(EventList).set_finder(None)
        self.query_one(EventDetail).set_finder(None)
        if isinstance(self.window, PathWindow) and self.window.what == "find":
            self._show_window(self.query_window)
        self.query_one(EventList).focus()

    def action_find_toggle(self, name: str) -> None:
        self.query_one(FindBar).action_toggle(name)

    def action_find_next(self) -> None:
        if self.finder is None:
            self.action_find()
        else:
            self.seek(self.finder.matches, 1, f"no event matches {self.finder.query.describe()}")

    def action_find_previous(self) -> None:
        if self.finder is None:
            self.action_find()
        else:
            self.seek(self.finder.matches, -1, f"no event matches {self.finder.query.describe()}")

    def action_jump(self, target: str, direction: int) -> None:
        tree = self.events.tree
        if target == "error":
            self.seek(lambda row: row.is_error, direction, "no error events")
        elif target == "user":
            self.seek(
                lambda row: row.kind == "MessageEvent" and row.source == "user",
                direction,
                "no user messages",
            )
        elif tree is None:
            self.notify("The tree is still being built.", markup=False)
        else:
            forks = self.query_one(EventTreeView).fork_positions()

            def is_fork(row: EventRow) -> bool:
                return row.id is not None and tree.index_of(row.id) in forks

            self.seek(is_fork, direction, "no branch points: this conversation never forked")

    @work(exclusive=True, group="find")
    async def seek(
        self,
        wanted: Callable[[EventRow], bool],
        direction: int,
        none_text: str,
        *,
        include_current: bool = False,
    ) -> None:
        """Move the cursor to the next row (wrapping) that is ``wanted``, loading pages as needed.

        Runs in a worker and yields every few thousand rows, so a 100,000-event search never
        freezes the UI; esc in the find bar (or a new search) cancels it."""
        window, event_list, bar = self.window, self.query_one(EventList), self.query_one(FindBar)
        total = len(window)
        if not total:
            return
        start = event_list.cursor
        index = start if include_current else start + direction
        for checked in range(total):
            index %= len(window)
            row = window.row(index)
            if row is None and isinstance(window, PagedWindow):
                bar.set_status(f"searching… {checked:,} of {total:,} checked (esc stops)")
                await self.events.fill_range(window, index, index + 1)
                row = window.row(index)
                if window is self.window:
                    event_list.rows_changed()
            if row is not None and wanted(row):
                if window is self.window:
                    event_list.cursor = index
                    wrapped = (index < start) if direction > 0 else (index > start)
                    bar.set_status(
                        f"row {index + 1:,} of {len(window):,}" + (" (wrapped)" if wrapped else "")
                    )
                return
            index += direction
            if checked % 2_000 == 1_999:
                bar.set_status(f"searching… {checked + 1:,} of {total:,} checked (esc stops)")
                await asyncio.sleep(0)
        bar.set_status(none_text)
        self.notify(none_text.capitalize() + ".", markup=False)

    @work(exclusive=True, group="find")
    async def find_only(self, finder: Finder) -> None:
        """Show only the events that match: loads the whole filtered view first (with progress)."""
        window, bar = self.query_window, self.query_one(FindBar)
        await self.events.load_all(
            window,
            lambda w: bar.set_status(
                f"loading {len(w.head) + len(w.tail):,} of {len(w):,} to filter… (esc stops)"
            ),
        )
        rows, count = [], len(window)
        for index in range(count):
            row = window.row(index)
            if row is not None and finder.matches(row):
                rows.append(row)
            if index % 5_000 == 4_999:
                await asyncio.sleep(0)
        self._show_window(PathWindow(rows, finder.query.describe(), what="find"))
        bar.set_status(f"{len(rows):,} of {count:,} events match")

    def _show_window(self, window: PagedWindow | PathWindow) -> None:
        self.window = window
        self.query_one(EventList).set_source(window)
        self._update_list_title()

    def action_copy(self, what: str) -> None:
        row = self.query_one(EventList).current
        if row is None:
            self.notify("Nothing selected to copy.", markup=False)
        else:
            self.copy_event(row, what)

    @work(group="copy")
    async def copy_event(self, row: EventRow, what: str) -> None:
        try:
            event = await self.events.event(row)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not load the event to copy", exc)
            return
        if event is None:
            self.notify("This event is no longer available.", severity="warning", markup=False)
            return
        label, text = (
            ("event JSON", event_json_text(event)) if what == "json" else useful_text(event)
        )
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the {label} ({len(text):,} characters).", markup=False)

    def action_export(self, fmt: str, scope: str) -> None:
        self.export_events(fmt, scope)

    def view_name(self) -> str:
        """What the list shows, in a word: the whole conversation, a branch, a filter, a find."""
        if isinstance(self.window, PathWindow):
            return self.window.what
        return "conversation" if self.window.query.is_plain else "filtered"

    @work(exclusive=True, group="export")
    async def export_events(self, fmt: str, scope: str) -> None:
        """Write the conversation (``scope="all"``) or what the list shows (``"view"``) to a
        file in the working directory, as Markdown or JSONL."""
        from tui.export import to_jsonl, to_markdown

        window = self.window if scope == "view" else self.events.base
        name = self.view_name() if scope == "view" else "conversation"
        try:
            if isinstance(window, PagedWindow):
                await self.events.load_all(
                    window,
                    lambda w: self.notify(
                        f"Loading {len(w):,} events to export…", timeout=2, markup=False
                    ),
                )
            rows = [row for row in (window.row(i) for i in range(len(window))) if row is not None]
            events = await self.events.events_for(rows)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not export", exc)
            return
        title = self.conversation.title if self.conversation is not None else None
        if fmt == "jsonl":
            text = to_jsonl(events)
        else:
            text = to_markdown(
                events,
                conversation_id=self.conversation_id,
                title=title if name == "conversation" else f"{title or 'Conversation'} ({name})",
            )
        try:
            path = await asyncio.to_thread(
                _write_new, f"ohtui-{self.conversation_id[:8]}-{name}", fmt, text
            )
        except OSError as exc:
            self._failed("Could not write the export", exc)
            return
        self.notify(f"Exported {len(events):,} events ({name}) to {path}", timeout=8, markup=False)

    # --- actions -------------------------------------------------------------------------

    @on(FilterBar.Changed)
    def _filter_changed(self, message: FilterBar.Changed) -> None:
        self.apply_query(message.query)

    @work(exclusive=True, group="load")
    async def apply_query(self, query: EventQuery) -> None:
        try:
            window = await self.events.open_window(query, self._total_known)
        except Exception as exc:  # noqa: BLE001
            self._failed("Could not apply the filter", exc)
            return
        if self.closing:
            return
        self.window = self.query_window = window
        event_list = self.query_one(EventList)
        event_list.empty_text = "No events match these filters."
        event_list.set_source(window)
        self._update_list_title()

    def action_toggle_sort(self) -> None:
        self.query_one(FilterBar).toggle_sort()

    def action_focus_filter(self) -> None:
        self.query_one("#filter-kind").focus()

    def action_show_all(self) -> None:
        if isinstance(self.window, PathWindow):
            self.window = self.query_window
            self.query_one(EventList).set_source(self.window)
            self._update_list_title()
        elif not self.query_window.query.is_plain:
            bar = self.query_one(FilterBar)
            bar.set_query(EventQuery(descending=self.query_window.query.descending))
            self.apply_query(bar.query)

    def action_back(self) -> None:
        if self.query_one("#message-line", Input).has_class("-visible"):
            self._close_message_line()
            return
        if self.query_one(FindBar).has_class("-visible"):
            self._find_closed()  # esc closes find (its marks, its only-matches view) first
            return
        focused = self.focused
        if focused is not None and self.query_one(FilterBar) in focused.ancestors_with_self:
            self.query_one(EventList).focus()  # esc leaves the filter bar first, not the screen
            return
        if isinstance(self.window, PathWindow):
            self.action_show_all()
        else:
            self.app.pop_screen()

    def action_zoom(self) -> None:
        """The focused pane fills the screen (a narrow terminal's long lines); z again restores."""
        if self.maximized is not None:
            self.minimize()
            return
        focused = self.focused
        pane = next(
            (node for node in (focused.ancestors_with_self if focused else ()) if node.id in PANES),
            None,
        )
        if pane is not None:
            self.maximize(pane, container=False)

    def action_focus(self, widget_id: str) -> None:
        if self.maximized is not None and self.maximized.id != widget_id:
            self.minimize()  # the pane asked for is hidden behind the zoomed one
        self.query_one(f"#{widget_id}").focus()

    def filter_kind(self, kind: str | None) -> None:
        """Palette entry point: show only one kind."""
        bar = self.query_one(FilterBar)
        bar.set_query(EventQuery(**{**bar.query.__dict__, "kind": kind}))
        self.apply_query(bar.query)


PANES = ("event-tree", "event-list", "event-detail")  # what z zooms


def _write_new(stem: str, suffix: str, text: str) -> str:
    """Write ``text`` to ``stem.suffix`` in the working directory, never over an existing file."""
    from pathlib import Path

    for n in range(1, 1000):
        path = Path.cwd() / (f"{stem}.{suffix}" if n == 1 else f"{stem}-{n}.{suffix}")
        try:
            with path.open("x", encoding="utf-8") as out:
                out.write(text)
            return str(path)
        except FileExistsError:
            continue
    raise FileExistsError(f"{stem}.{suffix}: too many exports with this name")
