"""Live events joining the store: by identity, never by clock.

Part of :class:`~tui.app.store.conversation_events.ConversationEvents` (which provides what is
declared here). A live event is matched to the rows by its id and, where an id is reused,
its timestamp and kind (``rows.row_identity``): the copy of an event already listed takes
its row's place (a persisted copy that gained its ``parent_id``, the overlap of a gap
fill with the history); another event reusing the id becomes a row of its own, marked as
history marks it (``duplicate_rows.py``). The stream asks :meth:`LiveRows.holds` which
events the store has, so a gap fill leaves those out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tui.app.store.duplicate_rows import row_key
from tui.app.store.rows import EventRow, row_identity
from tui.client.stream import is_oversize
from tui.client.stream_items import ReadEvent

if TYPE_CHECKING:
    from tui.app.store.event_cache import EventCache
    from tui.app.store.row_windows import PagedWindow
    from tui.models import AnyEvent


class LiveRows:
    """Taking live events in (see the module docstring)."""

    base: PagedWindow
    _cache: EventCache
    _tree_size: int
    _tree_cut: int | None

    if TYPE_CHECKING:  # provided by FullEvents and ConversationEvents

        def _row(self, event: AnyEvent) -> EventRow: ...
        def _made_row(self, args: tuple[Any, ...], pickled: bytes | None) -> EventRow: ...
        def _index_live(self, rows: list[EventRow]) -> None: ...

    def add_live(
        self,
        events: Sequence[AnyEvent | ReadEvent],
        windows: Sequence[PagedWindow] = (),
        frames: dict[str, str | bytes | None] | None = None,
    ) -> int:
        """Fold live events into the base window (and other open windows of the same
        query): a copy of an event already here takes its row's place; another event that
        reuses a known id is a row of its own, marked as history marks it
        (``duplicate_rows.py``). Returns how many rows were new.
        ``frames``: the texts they were read from, by id: the cache keeps those (read
        again when asked for), so a fast stream's last events are not held as objects the
        collector scans again and again."""
        frames = frames or {}
        fresh: list[EventRow] = []
        kept: list[tuple[AnyEvent | None, str | bytes | None]] = []  # what each fresh row caches
        replaced = False
        for event in events:
            if type(event) is ReadEvent:  # read in the helper (live_worker.py): its row too
                row = self._made_row(event.made, None)
                source, frame = None, event.frame  # UTF-8 holds it: checked there
            elif is_oversize(event) and self.holds(event):
                continue  # the stream's placeholder for an event the list has whole
            else:
                row = self._row(event)
                source, frame = event, frames.get(event.id) if event.id is not None else None
            old = self.base.replace(row) if row.id is not None else None
            if old is not None:
                replaced |= old.parent_id != row.parent_id
                self._keep(row_key(old), source, frame)
            else:
                fresh.append(row)
                kept.append((source, frame))
        placed = self.base.take_live(fresh)  # in the history's order (live_placing.py)
        taken = dict(placed)
        for index, row in enumerate(fresh):  # a duplicate's event under its own key
            self._keep(row_key(taken.get(index, row)), *kept[index])
        if self.base.complete:
            self._index_live([row for _, row in placed])
            moved = self.base.inserted_at
            if moved is not None and self._tree_size > moved:  # rows moved under the tree
                cut = self._tree_cut
                self._tree_cut = moved if cut is None else min(cut, moved)
        for window in windows:  # a view without a server-side filter takes them too
            if window is not self.base and window.query.takes_live:
                window.append_live(fresh)
                self._catch_up(window)
        if replaced:
            self._tree_size = -1  # a parent changed: the tree must be rebuilt
        return len(taken)

    def _catch_up(self, window: PagedWindow) -> None:
        """A view walked whole from an earlier copy of the history than the index (a
        conversation opened while its run is stored, late, by the app server) lacks the
        events stored in between, which the stream does not send again (the index holds
        them): it takes them from the index, each in its place. The event counts tell
        (O(1)); the index is read only when they differ, and once."""
        base = self.base
        if not (base.complete and window.complete) or window.raw_total == base.raw_total:
            return
        missing = [row for row in base.head if row.id is not None and row.id not in window.ids]
        if missing:
            window.append_live(missing)
        window.raw_total = base.raw_total

    def _keep(self, key: str | None, event: AnyEvent | None, frame: str | bytes | None) -> None:
        """Cache a live event under its row's key: the frame's text where UTF-8 holds it."""
        if key is None or (event is not None and is_oversize(event)):
            return  # an id-less event is not asked for; a placeholder is fetched by id
        if frame is not None and self._cache.keep_text(key, frame):
            return
        if event is not None:
            self._cache.set(key, event)

    def holds(self, event: AnyEvent) -> bool:
        """The store has this event (this copy of its id) among its loaded rows: a stream's
        gap fill need not bring it again (``EventStream(known=…)``)."""
        event_id = event.id
        if not event_id or event_id not in self.base.ids:
            return False
        return self.base.find_copy(event_id, *row_identity(event)) is not None
