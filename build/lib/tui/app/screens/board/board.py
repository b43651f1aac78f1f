"""The board: every active agent of the server (or of every profile), live, in one list.

k9s-style: one row per conversation that runs, waits for confirmation, is paused, stuck or
failed lately (``[board]`` of the config says which), changing in place as the agents work
(``board/feed.py``: websockets for the first rows, polling for the rest), the ones needing
a human on top. Actions apply to the marked rows (``space``), else to the cursor's row
(``board_actions.py``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from tui.app.board.feed import BoardFeed
from tui.app.board.model import BY_KEY, BoardModel
from tui.app.board.notices import Lately, NoticeGate, app_newsworthy, tell_in_status_line
from tui.app.board.options import BoardOptions
from tui.app.board.sources import board_sources
from tui.app.messages import AgentStatusChanged
from tui.app.profiles import watched
from tui.app.refusals import read_only_reason
from tui.app.screens.board.board_actions import BoardActions
from tui.app.widgets.board.board_table import BoardTable
from tui.app.widgets.common.key_bar import KeyBar
from tui.app.widgets.common.ordered_input import OrderedInput
from tui.text import one_line

if TYPE_CHECKING:
    from tui.app.board.row import BoardRow

FLUSH_S = 0.25  # rows changed by the feed are drawn again at most this often
TICK_S = 1.0  # times in a status move on
#: Actions that change something: none of them in read-only mode.
STEERING = frozenset({"mark", "toggle_run", "interrupt", "approve", "reject", "pause_sandbox"})
FILTER_NAMES = {
    "attention": "needing you",
    "waiting_for_confirmation": "waiting for confirmation",
}


class BoardScreen(BoardActions, Screen):
    AUTO_FOCUS = "#board"
    BINDING_GROUP_TITLE = "Board"
    #: what ctrl+c copies where no text is selected (``copy_key.py``)
    COPY_ACTION = "copy_id"
    BINDINGS = [
        Binding("enter", "open", "Open", id="board.open"),
        Binding("space", "mark", "Mark", id="board.mark"),
        Binding("p", "toggle_run", "Pause/run", id="board.pause-run"),
        Binding("X", "interrupt", "Interrupt", id="board.interrupt"),
        Binding("A", "approve", "Approve", id="board.approve"),
        Binding("R", "reject", "Reject", id="board.reject"),
        Binding("P", "pause_sandbox", "Pause sandbox", show=False, id="board.pause-sandbox"),
        # priority: handled as it arrives, so the keys typed right after it (a paste, a fast
        # typist) already go to the filter, not to the board's own keys
        Binding("slash", "filter", "Filter", priority=True, id="board.filter"),
        Binding("f", "status_filter", "Status", show=False, id="board.status-filter"),
        Binding("s", "sort", "Sort", id="board.sort"),
        Binding("o", "order", "Order", show=False, id="board.order"),
        Binding("a", "all_profiles", "All servers", show=False, id="board.all-profiles"),
        Binding("c", "copy_id", "Copy id", show=False, id="board.copy-id"),
        Binding("ctrl+r", "refresh", "Refresh", show=False, id="board.refresh"),
        Binding("escape", "clear", "Back", show=False, id="board.clear"),
    ]
    CSS_PATH = "board.tcss"

    def __init__(self, *, all_profiles: bool | None = None) -> None:
        super().__init__()
        self.options: BoardOptions = getattr(self.app, "board_options", None) or BoardOptions()
        self.all_profiles = self.options.all_profiles if all_profiles is None else all_profiles
        self.model = BoardModel(clock=time.monotonic)
        self.feed: BoardFeed | None = None
        self._changes: list[tuple[BoardRow, str | None, str | None]] = []
        self._gate = NoticeGate(app_newsworthy(self.app))
        self._lately = Lately()

    def compose(self) -> ComposeResult:
        with Horizontal(id="board-filter-row"):
            yield OrderedInput(
                placeholder="filter: words in server, title, step, error; status:NAME",
                id="board-filter",
            )
        yield BoardTable(id="board", now=self.app.clock, moment=time.monotonic)
        yield Static(id="board-status")
        yield KeyBar()

    def on_mount(self) -> None:
        self.start_feed()
        self.set_interval(FLUSH_S, self.flush)
        self.set_interval(TICK_S, self._tick)

    # --- the feed ----------------------------------------------------------------------

    def start_feed(self) -> None:
        """Watch the app's server, or every profile: a new model and feed (the old feed's
        worker is cancelled, closing its sockets and the clients it built)."""
        model = self.model = BoardModel(clock=time.monotonic)
        sources = board_sources(self.app, self.all_profiles)
        self.feed = BoardFeed(
            sources, model, self.options, now=self.app.clock, on_status=self._status_changed
        )
        self.query_one(BoardTable).empty_text = self._empty_text()
        self.run_worker(self.feed.run(), group="board-feed", exclusive=True, exit_on_error=False)
        self.flush(force=True)

    def _status_changed(self, row: BoardRow, old: str | None, new: str | None) -> None:
        self._changes.append((row, old, new))  # told at the next flush, a few at a time

    def _on_view(self) -> bool:
        """The board is what the user looks at (maybe under a question it asked)."""
        stack = self.app.screen_stack
        top = stack[-1] if stack else None
        return top is self or (
            isinstance(top, ModalScreen) and len(stack) > 1 and stack[-2] is self
        )

    def _tell(self) -> None:
        """Status changes to the app: in the status line while the board is shown (its rows
        say them), as a few toasts while another screen is (the app's notifier decides)."""
        changes, self._changes = self._changes, []
        several = self.feed is not None and len(self.feed.sources) > 1
        if self._on_view():
            self._tell_lately(changes, several)
            return
        passed, summary = self._gate.admit(changes)
        for row, old, new in passed:
            title = f"{row.source}: {row.title}" if several else row.title
            self.post_message(AgentStatusChanged(row.conversation_id, title, old, new))
        if summary:
            self.notify(summary, title="Board", timeout=6, markup=False)

    def _tell_lately(self, changes: list, several: bool) -> None:
        self._lately.add_counts(self._gate.held)  # held back while another screen was shown
        self._gate.held.clear()
        news = [
            (row.conversation_id, f"{row.source}: {row.title}" if several else row.title, old, new)
            for row, old, new in changes
        ]
        tell_in_status_line(self.app, self._lately, news, titled=False)  # the rows name them

    def flush(self, force: bool = False) -> None:
        """Draw what the feed changed (rows, order), a few times a second at most."""
        if not self.is_attached:
            return
        told = bool(self._changes or self._gate.held)
        if told:
            self._tell()
        if not (force or self.model.dirty):
            if told:
                self._status()  # what was just told (``_status`` reads the model: after)
            return
        model = self.model
        table = self.query_one(BoardTable)
        table.set_rows(
            model.shown(),
            marks=model.marks,
            servers=self.feed is not None and len(self.feed.sources) > 1,
            sort=model.sort,
            reverse=model.reverse,
        )
        table.border_title = self._title()
        self.server_known()
        self._status()

    def server_known(self) -> None:
        """The app learned what its server is: the mark under the board, as on the lists
        (watching several servers, the Server column says which is which)."""
        several = self.feed is not None and len(self.feed.sources) > 1
        self.query_one(BoardTable).border_subtitle = "" if several else self.app.server_mark

    def _tick(self) -> None:
        self.query_one(BoardTable).refresh_times()  # times in a status, elapsed, rates
        if self._lately:
            self._status()  # the news of the last seconds fades

    def _title(self) -> str:
        feed = self.feed
        if feed is None or len(feed.sources) == 1:
            name = feed.sources[0].name if feed else ""
            return f"Board · {one_line(name, 60)}" if name else "Board"
        return f"Board · {len(feed.sources)} servers"

    def _empty_text(self) -> str:
        statuses = ", ".join(FILTER_NAMES.get(s, s) for s in sorted(self.options.statuses, key=str))
        return f"No active conversations ({statuses}; ended ones from the last {self.options.recent_minutes:g} min)."

    def _status(self) -> None:
        model, feed = self.model, self.feed
        shown = model.shown()
        text = Text()
        if feed is not None and feed.loading:
            text.append(f"loading {', '.join(feed.loading)}… ", style="italic")
        rows = [row for row in shown if row.failure is None]
        text.append(f"{len(rows):,} agent{'s' if len(rows) != 1 else ''}")
        waiting = sum(1 for row in rows if row.needs_human)
        if waiting:
            text.append(f" · {waiting} need{'s' if waiting == 1 else ''} you", style="bold")
        lately = self._lately.summary()  # the news the rows show, counted (no toasts)
        if lately:
            text.append(f" · {lately}", style="italic")
        if feed is not None:
            live = sum(1 for row in rows if row.followed)
            text.append(f" · {live} live, {len(rows) - live} polled")
        label = BY_KEY[model.sort].label
        text.append(f" · sort {label}{' (reversed)' if model.reverse else ''}")
        if model.status_filter:
            name = FILTER_NAMES.get(model.status_filter, model.status_filter)
            text.append(f" · only {name}")
        if model.text:
            text.append(f" · filter “{one_line(model.text, 40)}”")
        marked = len(model.marked())
        if marked:
            text.append(f" · {marked} marked", style="bold")
        if self.app.readonly:
            text.append(" · read-only")
        self.query_one("#board-status", Static).update(text)

    # --- keys ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "filter" and self.query("#board-filter:focus"):
            return False  # a / typed in the filter is a /
        if action in STEERING and self.app.readonly:
            return False
        if action == "all_profiles":
            return bool(watched(getattr(self.app, "profiles", {})))
        return True

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str | None:
        """Why a key refused by :meth:`check_action` does nothing (``refusals.py``)."""
        if action in STEERING and self.app.readonly:
            return read_only_reason(self.app)
        if action == "all_profiles":
            return "No server profiles are configured: the board watches this server only."
        return None

    def action_open(self) -> None:
        row = self.query_one(BoardTable).current
        if row is None:
            return
        if row.failure is not None:
            self.notify(row.title, severity="error", markup=False)
            return
        feed = self.feed
        if feed is not None and row.source != feed.sources[0].name:
            # another profile's conversation: the app connects there, then opens it
            self.app.switch_profile(row.source)
            if self.app.profile == row.source:
                self.app.start_conversation = row.conversation_id
            return
        self.app.open_conversation(row.conversation_id, title=row.title)

    def action_copy_id(self) -> None:
        """The conversation id of the row under the cursor (as c on the conversations list)."""
        row = self.query_one(BoardTable).current
        if row is None or row.failure is not None:
            self.notify("No conversation is selected: there is no id to copy.", markup=False)
            return
        self.app.copy_to_clipboard(row.conversation_id)
        self.notify(f"Copied the id {one_line(row.conversation_id, 80)}.", markup=False)

    def action_mark(self) -> None:
        table = self.query_one(BoardTable)
        row = table.current
        if row is None:
            return
        self.model.toggle_mark(row)
        table.action_cursor_down()
        self.flush(force=True)

    def action_sort(self) -> None:
        self.model.next_sort()
        self.flush(force=True)

    def action_order(self) -> None:
        self.model.toggle_order()
        self.flush(force=True)

    def sort_by(self, column: str) -> None:
        self.model.sort_by(column)
        self.flush(force=True)

    @on(BoardTable.HeaderClicked)
    def _header_clicked(self, event: BoardTable.HeaderClicked) -> None:
        self.sort_by(event.column)

    def action_status_filter(self) -> None:
        self.model.next_status_filter()
        self.flush(force=True)

    def action_filter(self) -> None:
        self.query_one("#board-filter-row").add_class("-visible")
        self.set_focus(self.query_one("#board-filter", Input))  # at once (focus() waits)

    @on(Input.Changed, "#board-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.model.set_filter(event.value)
        self.flush(force=True)

    @on(Input.Submitted, "#board-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.set_focus(self.query_one(BoardTable))

    def action_clear(self) -> None:
        """Esc: the filter, then the marks and the status filter, then back to the list."""
        box = self.query_one("#board-filter", Input)
        row = self.query_one("#board-filter-row")
        model = self.model
        if box.has_focus or row.has_class("-visible") or model.text:
            box.value = ""
            row.remove_class("-visible")
            model.set_filter("")
            self.set_focus(self.query_one(BoardTable))
        elif model.marks or model.status_filter:
            model.marks.clear()
            model.status_filter = None
            model.touch()
        else:
            self.app.action_show_conversations()
            return
        self.flush(force=True)

    def action_all_profiles(self) -> None:
        self.all_profiles = not self.all_profiles
        self.start_feed()
        self.notify(
            "Board: every configured server." if self.all_profiles else "Board: this server.",
            markup=False,
        )

    def action_refresh(self) -> None:
        if self.feed is not None:
            self.feed.refresh_now()
