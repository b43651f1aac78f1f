"""Keeping the board's rows up to date, for any number of servers, with bounded work.

Per server, every ``poll_seconds``: one listing (newest first, up to ``scan``
conversations) finds the active conversations and refreshes their records (status, cost,
tokens); then the details (current step, steps, last error) of the polled rows whose
record changed, the rows on screen first, at most ``details_per_poll`` of them. The first
``sockets`` rows of the board that can change by themselves are followed over their
websocket instead, and change as their agent works. Everything runs in one task group in
the UI's event loop (a Textual worker starts it): rows change in place and the screen
repaints them a few times a second, never once per event.

A server that fails (cannot connect, refuses the key, answers nonsense) becomes one row
saying why (``tui.failures.explain``) and is tried again at the next poll; the others do
not wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from tui.app.board.fold import StatusChange, apply_record, apply_stream, apply_tail, detail_key
from tui.app.board.model import BoardModel
from tui.app.board.options import ENDED, FOLLOWED, BoardOptions
from tui.app.board.row import BoardRow
from tui.app.board.sources import Source
from tui.app.format import parse_time, status_value
from tui.client.paging import PageWalk
from tui.failures import Failure, explain
from tui.text import one_line

log = logging.getLogger("tui.app.board")

#: Events read per polled row (newest first): its current step, last error, status time.
TAIL = 25
#: Detail requests in flight per server.
DETAILS_IN_FLIGHT = 4
#: A row whose stream failed (gone, key refused) is polled for this long before retrying.
FOLLOW_RETRY_S = 60.0
#: Seconds the stream's items are gathered into one batch.
BATCH_S = 0.1

StatusCallback = Callable[[BoardRow, str | None, str | None], None]


class ProfileUnusable(Exception):
    """A profile's client could not be made (its config, its key file)."""

    def __init__(self, name: str, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.name, self.cause = name, cause

    def failure(self) -> Failure:
        found = explain(self.cause)
        if found.title != "failed":  # a client's own error (it probed the server): as it is
            return found
        return Failure(
            "cannot use this profile",
            one_line(str(self.cause) or type(self.cause).__name__, 600),
            f"check [profiles.{self.name}] of the config file (ohtui info -P {self.name})",
        )


class BoardFeed:
    """Runs (``await feed.run()``) until cancelled; rows live in ``model``."""

    def __init__(
        self,
        sources: list[Source],
        model: BoardModel,
        options: BoardOptions,
        *,
        now: Callable[[], datetime],
        clock: Callable[[], float] = time.monotonic,
        on_status: StatusCallback | None = None,
    ) -> None:
        self.sources = sources
        self.model = model
        self.options = options
        self.now = now  # wall clock (the app's): times in a status, what is recent
        self.clock = clock  # monotonic: rates, lingering
        self.on_status = on_status
        self.followers: dict[tuple[str, str], asyncio.Task[None]] = {}
        self.most_followed = 0
        self.scans = 0
        self._wakes = {source.name: asyncio.Event() for source in sources}
        self._slots = {source.name: asyncio.Semaphore(DETAILS_IN_FLIGHT) for source in sources}
        self._group: asyncio.TaskGroup | None = None

    @property
    def loading(self) -> list[str]:
        """Servers not listed yet."""
        return [source.name for source in self.sources if not source.scanned]

    def refresh_now(self) -> None:
        """Look at every server again now (ctrl+r; tests)."""
        for wake in self._wakes.values():
            wake.set()

    def source(self, name: str) -> Source | None:
        return next((source for source in self.sources if source.name == name), None)

    # --- lifetime ----------------------------------------------------------------------

    async def run(self) -> None:
        try:
            async with asyncio.TaskGroup() as group:
                self._group = group
                for source in self.sources:
                    group.create_task(self._watch(source), name=f"board-{source.name}")
        finally:
            self._group = None
            self.followers.clear()
            for source in self.sources:
                with contextlib.suppress(Exception):
                    await source.aclose()

    async def _watch(self, source: Source) -> None:
        while True:
            try:
                try:
                    await source.ready()
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    raise ProfileUnusable(source.name, exc) from exc
                await self._scan(source)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - said in the server's row, tried again
                self._failed(source, exc)
            else:
                self._recovered(source)
                await self._poll_details(source)
                self.balance()  # after the details: the order they give decides
            source.scanned = True
            self.scans += 1
            self.model.touch()
            wake = self._wakes[source.name]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), self.options.poll_seconds)
            wake.clear()

    # --- listing -----------------------------------------------------------------------

    def _active(self, status: str | None, updated: datetime | None, recent: datetime) -> bool:
        if status not in self.options.statuses:
            return False
        return status not in ENDED or (updated is not None and updated >= recent)

    async def _scan(self, source: Source) -> None:
        client = source.client
        assert client is not None
        found: dict[str, object] = {}
        walk = PageWalk()  # a server whose pages lead back is said in its row, not walked
        while len(found) < self.options.scan and not walk.done:
            page = await client.search_conversations(
                page_id=walk.page_id, limit=min(100, self.options.scan - len(found))
            )
            for conv in page.items:
                found.setdefault(conv.id, conv)
            if not page.items:
                break
            walk.moved(page.next_page_id or None, page.items)
        now, moment = self.now(), self.clock()
        recent = now - timedelta(minutes=self.options.recent_minutes)
        model = self.model
        for conv in found.values():
            key = (source.name, conv.id)
            row = model.rows.get(key)
            if row is None:
                status = status_value(conv.execution_status)
                if not self._active(status, parse_time(conv.updated_at), recent):
                    continue
                row = BoardRow(source.name, conv.id)
                row.readonly = source.readonly
                model.add(row)
            change = apply_record(row, conv, now, moment)
            if change is not None:
                self._status_changed(row, change)
        for row in model.of_source(source.name):
            if row.failure is not None:
                continue
            here = row.conversation_id in found
            active = here and self._active(row.status, parse_time(row.updated), recent)
            if active:
                if row.leaving_at is not None:  # back (run again): no longer dimmed
                    row.leaving_at = None
                    row.changed()
            elif row.leaving_at is None:
                row.leaving_at = moment
                row.changed()
            if row.leaving_at is not None and moment - row.leaving_at >= self.options.linger_s:
                self._stop_following(row.key)
                model.remove(row.key)

    def _status_changed(self, row: BoardRow, change: StatusChange) -> None:
        self.model.touch()
        if self.on_status is not None:
            self.on_status(row, *change)

    def _failed(self, source: Source, exc: BaseException) -> None:
        failure = exc.failure() if isinstance(exc, ProfileUnusable) else explain(exc)
        log.info("board: %s failed: %s", source.name, failure.title)
        source.failure = failure
        for row in self.model.of_source(source.name):  # its rows are not known any more
            self._stop_following(row.key)
            self.model.remove(row.key)
        self.model.add(BoardRow.failed(source.name, failure))

    def _recovered(self, source: Source) -> None:
        if source.failure is not None:
            source.failure = None
            self.model.remove((source.name, ""))

    # --- polled details ----------------------------------------------------------------

    async def _poll_details(self, source: Source) -> None:
        """Details of this server's polled rows that have none yet or whose record changed
        since (the shown rows first)."""
        shown = self.model.shown()
        keys = {row.key for row in shown}
        rest = [row for row in self.model.of_source(source.name) if row.key not in keys]
        stale = [
            row
            for row in [*shown, *rest]
            if row.source == source.name
            and row.failure is None
            and row.leaving_at is None
            and row.key not in self.followers
            and row.detail_key != detail_key(row)
        ]
        # rows never detailed all go (a board opening fills at once, a few requests in
        # flight at a time); rows that changed since, at most details_per_poll per look
        fresh = [row for row in stale if row.detail_key is None]
        changed = [row for row in stale if row.detail_key is not None]
        due = fresh + changed[: self.options.details_per_poll]
        if due:
            await asyncio.gather(*(self._details(source, row) for row in due))

    async def _details(self, source: Source, row: BoardRow) -> None:
        client = source.client
        assert client is not None
        try:
            async with self._slots[source.name]:
                page = await client.search_events(
                    row.conversation_id, sort_order="TIMESTAMP_DESC", limit=TAIL
                )
                steps = await client.count_events(row.conversation_id, kind="ActionEvent")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the row keeps what it had; next change retries
            log.info("board: details of %s: %s", row.conversation_id, exc)
            row.detail_key = detail_key(row)
            return
        apply_tail(row, page.items, steps, self.now())
        self.model.touch()

    # --- websockets --------------------------------------------------------------------

    def can_follow(self, row: BoardRow, moment: float) -> bool:
        conv = row.conversation
        return (
            row.failure is None
            and row.leaving_at is None
            and row.status in FOLLOWED
            and conv is not None
            and bool(conv.conversation_url)
            and status_value(conv.sandbox_status) == "RUNNING"
            and (row.follow_failed_at is None or moment - row.follow_failed_at >= FOLLOW_RETRY_S)
        )

    def balance(self) -> None:
        """Follow the first ``sockets`` followable rows of the board; stop the others.

        A row already followed keeps its socket while it stays within a few places of the
        first ``sockets`` (rows sorted by a live column swap places all the time: without
        this their sockets would close and open again at every look)."""
        group = self._group
        if group is None:
            return
        moment = self.clock()
        limit = self.options.sockets
        candidates = [row for row in self.model.shown() if self.can_follow(row, moment)]
        slack = limit + max(2, limit // 4)
        wanted = [row for row in candidates[:slack] if row.key in self.followers][:limit]
        for row in candidates:
            if len(wanted) >= limit:
                break
            if row not in wanted:
                wanted.append(row)
        keys = {row.key for row in wanted}
        for key in [key for key in self.followers if key not in keys]:
            self._stop_following(key)
        for row in wanted:
            if row.key not in self.followers:
                source = self.source(row.source)
                assert source is not None
                self.followers[row.key] = group.create_task(
                    self._follow(source, row), name=f"board-follow-{row.conversation_id[:8]}"
                )
        self.most_followed = max(self.most_followed, len(self.followers))

    def _stop_following(self, key: tuple[str, str]) -> None:
        task = self.followers.pop(key, None)
        if task is not None:
            task.cancel()

    async def _follow(self, source: Source, row: BoardRow) -> None:
        from tui.client import EventStream, StreamEvent, StreamState, agent_endpoint

        me = asyncio.current_task()
        state = StreamState()
        try:
            if row.detail_key is None:  # where it stands first: step, steps, last error
                await self._details(source, row)
            assert source.client is not None and row.conversation is not None
            endpoint = agent_endpoint(source.client.base_url, row.conversation)
            # what the agent logged beyond the events read comes by identity, never by time
            known = lambda event: event.id in row.tail_ids
            stream = EventStream(endpoint, known=known, offline_after=3)
            async with stream:
                async for batch in stream.batches(BATCH_S):
                    changed, change = apply_stream(row, state, batch, self.now(), self.clock())
                    if change is not None:
                        self._status_changed(row, change)
                    elif changed:
                        self.model.touch()
                    if any(type(item) is StreamEvent and item.filled for item in batch):
                        await self._details(source, row)  # step, error and count, read again
            if stream.failure is not None:  # gone or refused: polled for a while
                row.follow_failed_at = self.clock()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the row is polled instead
            log.info("board: following %s: %s", row.conversation_id, exc)
            row.follow_failed_at = self.clock()
        finally:
            if self.followers.get(row.key) is me:
                del self.followers[row.key]
            if row.key not in self.followers:
                row.link = None
                row.changed()
                self.model.touch()
