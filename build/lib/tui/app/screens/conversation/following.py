"""Following a live conversation: its stream's batches folded into the screen.

A conversation whose sandbox runs is followed over the websocket (``live_session.py``).
Each ~50 ms batch is folded into the stream state once, then only what changed is
redrawn: the header (status, cost, connection), the stream preview, the run-error
banner, the confirmation bar; new events join the store and the list in one go. Rows are
held until the index is complete, so ids decide what is new and nothing is counted twice.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import work

from tui.app.format import status_value, title_of
from tui.app.messages import AgentStatusChanged
from tui.app.store.live_session import LiveSession, can_follow
from tui.app.widgets.conversation.event_list import EventList
from tui.app.widgets.conversation.event_tree import EventTreeView
from tui.client.stream import is_oversize
from tui.client.stream_items import ReadEvent
from tui.memory import FREEZE_EVERY, freeze_long_lived
from tui.text import clean

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.app.store.conversation_events import ConversationEvents
    from tui.app.store.row_windows import PagedWindow, RowWindow
    from tui.app.store.rows import EventRow
    from tui.client import StreamEvent, StreamStatus
    from tui.models import AnyEvent, AppConversation


#: Seconds between reads of the open conversation's record (its sandbox's status shows
#: within 5 s of a change made elsewhere; one small request each).
RECORD_POLL_S = 2.5
#: A batch of at least this many rows means a fast stream: the tree pane then grows at
#: most every :data:`TREE_GROW_S` seconds (growing walks the whole last run, so once per
#: 50 ms batch cost more with every event), not with each batch as the list does.
FAST_BATCH = 50
TREE_GROW_S = 0.25


class FollowMixin:
    """Part of :class:`~.screen.ConversationScreen`, which provides what is declared here."""

    conversation_id: str
    events: ConversationEvents
    window: RowWindow
    query_window: PagedWindow
    conversation: AppConversation | None
    live: LiveSession | None
    new_below: int  # live rows below a cursor that does not follow them
    frozen_rows: int  # rows when long-lived objects were last frozen (tui/memory.py)
    _tree_grown_at = 0.0  # perf_counter time the tree pane last grew with a batch
    _tree_due: Timer | None = None  # the pane's deferred growth while the stream is fast

    def follow_live(self) -> None:
        """Follow the conversation's agent over its stream (its sandbox runs)."""
        assert self.conversation is not None
        try:
            live = LiveSession(self.app.client.base_url, self.conversation)
        except Exception as exc:  # noqa: BLE001 - an address it cannot use: said, not raised
            self.failed("Cannot follow this conversation live", exc)
            return
        self.live = live
        self.refresh_bindings()
        self._stream_live(live)

    @work(exclusive=True, group="live")
    async def _stream_live(self, live: LiveSession) -> None:
        try:
            if not self.events.base.complete:
                # the newest page: where the agent's log meets the history (by identity)
                await self.events.fill(self.events.base, "tail")
        except Exception as exc:  # noqa: BLE001
            self.failed("Cannot follow this conversation live", exc)
            return
        stream = live.open_stream(self.events.holds)
        async with stream:
            async for items in stream.batches(0.05):
                batch = await live.read(items)  # in a helper while the stream is fast
                if self.closing or live is not self.live:  # closed, or stopped meanwhile
                    return
                self.apply_live(batch)

    def poll_record(self) -> None:
        """Timer: read the record again while this screen is shown, so a sandbox paused,
        resumed or deleted elsewhere shows in the header (and the stream stops or starts)
        within :data:`RECORD_POLL_S` seconds, whatever the stream noticed."""
        # not while the record is on its way, nor while the screen loads (it reads it then)
        busy = any(w.group in ("record", "load") and not w.is_finished for w in self.workers)
        shown = self.app.screen is self  # not under another screen (or a dialog)
        if not busy and shown and not self.closing and not self.events.shared:
            self.refresh_record()  # (a slow answer is waited for, not asked for again)

    def sync_live(self) -> None:
        """Follow live exactly while the record says the agent can be followed: stop when
        its sandbox stopped, start when it runs again (at its new address, if it moved)."""
        record = self.conversation
        if record is None or self.closing:
            return
        followable = can_follow(record)
        if self.live is not None and (not followable or self.live.url != record.conversation_url):
            self.stop_following()
        if self.live is None and followable:
            self.follow_live()

    def stop_following(self) -> None:
        """The agent cannot be followed now: close the stream, clear what it showed."""
        live, self.live = self.live, None
        self.workers.cancel_group(self, "live")
        if live is not None:
            self._close_live(live)
        self.new_below = 0
        self.refresh_bindings()
        self.stream_preview.set_class(False, "-visible")
        self.error_banner.set_class(False, "-visible")
        self.render_confirm()
        self.render_header()

    @work(group="live-close")
    async def _close_live(self, live: LiveSession) -> None:
        await live.aclose()

    def apply_live(self, batch: list[StreamEvent | ReadEvent | StreamStatus]) -> None:
        """Fold one batch and redraw what it changed."""
        live = self.live
        assert live is not None
        before = live.state.execution_status
        held = len(live.held)
        changed = live.fold(batch)
        if len(live.held) > held:
            self._index_arrived(live.held[held:], live.frames)
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
            self.flush_live_rows()
        if changed & {"status", "stats", "connection", "policy"}:
            self.render_header()
        connection = live.state.connection if "connection" in changed else None
        if connection is not None and connection.state in ("live", "reconnecting", "offline"):
            self.refresh_record()  # a drop often means the sandbox changed: show it
        if "streaming" in changed:
            self.stream_preview.show(live.state)
        if changed & {"status", "events"}:
            self.render_confirm()
        if changed & {"error", "status"}:
            self.error_banner.show(live.state)
        if "notice" in changed and live.state.server_notice is not None:
            notice = live.state.server_notice
            self.notify(
                f"Server: {clean(notice.code)}: {clean(notice.detail)[:200]}",
                severity="warning",
                markup=False,
            )

    def _index_arrived(
        self, arrived: list[AnyEvent | ReadEvent], frames: dict[str, str | bytes | None]
    ) -> None:
        """The new events to the search index (``search_fill.py``: in a thread, where the
        user has one), each as the frame it came in where there is one (as a page brings
        it); a placeholder for an oversize event is left to the next fill."""
        pairs: list[tuple[str, object]] = []
        for event in arrived:
            event_id = event.id
            if not event_id:
                continue
            if type(event) is ReadEvent:
                pairs.append((event_id, event.frame))
            elif not is_oversize(event):
                pairs.append((event_id, frames.get(event_id) or event))
        record = self.conversation  # its title as the fill stores it, where none is yet
        title = clean(record.title or "") if record is not None else ""
        self.app.search.add_live(self.conversation_id, title, pairs)

    def flush_live_rows(self) -> None:
        """Hand the held live events to the store; the list follows the tail if it was there."""
        live = self.live
        assert live is not None
        events, frames = live.take_held()
        event_list = self.query_one(EventList)
        shows_live = self.window is self.events.base or (
            self.window is self.query_window and self.query_window.query.takes_live
        )
        descending = self.window.query.descending
        follow = shows_live and event_list.at_end and not descending
        # the row read: live rows may go in above it (by time), and the cursor stays on it
        # (not on the newest first's top row: that one follows what comes)
        cursor = event_list.cursor
        reading = shows_live and not follow and not (descending and cursor == 0)
        kept = self.window.row(cursor) if reading else None
        before = len(self.window)
        added = self.events.add_live(events, [self.query_window], frames)
        # the rows the list gained: a steps view may gain none (a result joins its action,
        # plumbing is counted on its step) though its rows changed
        grown = len(self.window) - before
        self._grow_tree(added)
        self.note_live_rows(added)  # an open Changes view reads the workspace again
        if not added:
            return
        if self.frozen_rows and len(self.events.base.head) - self.frozen_rows >= FREEZE_EVERY:
            freeze_long_lived()  # a long stream's rows, out of the collector's way too
            self.frozen_rows = len(self.events.base.head)
        if shows_live:
            if kept is not None and self.window.row(cursor) is not kept:
                event_list.cursor = self._moved_to(kept, cursor, grown)
            event_list.rows_appended(grown, follow=follow)
            if not follow and not descending:
                self.new_below += grown
        self.update_list_title()

    def _moved_to(self, row: EventRow | None, was: int, grown: int) -> int:
        """Where ``row`` (at ``was`` before ``grown`` rows came) is now: at most that many
        rows down (only rows above it move it)."""
        window = self.window
        for at in range(was + 1, min(len(window), was + grown + 1)):
            if window.row(at) is row:
                return at
        return was

    def _grow_tree(self, added: int) -> None:
        """Rows that continue the last run join the tree pane now, with the list; while
        the stream is fast, at most every :data:`TREE_GROW_S` seconds (a timer takes the
        rest, so the pane is never more than that behind)."""
        if added < FAST_BATCH or time.perf_counter() - self._tree_grown_at >= TREE_GROW_S:
            self._tree_catches_up()
        elif self._tree_due is None:
            self._tree_due = self.set_timer(TREE_GROW_S, self._grow_tree_due)

    def _grow_tree_due(self) -> None:
        """The pane learns of the rows (its footer count) only now: marking it stale with
        each batch redrew the whole pane 20 times a second for a figure nobody can read."""
        self._tree_due = None
        self._tree_catches_up()

    def _tree_catches_up(self) -> None:
        self._tree_grown_at = time.perf_counter()
        tree = self.query_one(EventTreeView)
        tree.mark_stale()
        tree.rebuild()
