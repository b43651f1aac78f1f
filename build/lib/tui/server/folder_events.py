"""The events half of a folder store: bodies read from event files on demand, and the
queries the routes and the websocket ask of a log (see ``folders.py`` for the whole).

A good file is served as its own text and cached (bounded by count and by the bytes the
texts hold); a page stops at ``PAGE_BYTES`` of them (``store.base.take_page``). A bad
one (``folder_files.py``) as an ``UnreadableEventFile`` row with its file name, size and
reason (never its bytes), looked at again when the file changes. One lock serialises everything: routes run in a thread pool and the
follower (``folder_watch.py``) reads new files from another thread.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tui.lru import LRU
from tui.models import NON_VIEWABLE_KINDS

from .folder_files import Unreadable, clean_text, read_event_file
from .folder_log import FolderLog, file_time
from .store import EventRow, Store
from .store.base import take_page, text_bytes

BODY_CACHE = 4_000  # event bodies kept per store ...
#: ... and the bytes they hold. By bytes, not characters: one character of a text that is
#: not all Latin-1 takes 2 or 4 (64 M characters held up to 256 MB); a 4,000th of it
#: (8 KiB) is well above a usual event's 1-2 KB, so the count still binds first for them.
BODY_CACHE_BYTES = 32 * 1024 * 1024
COUNT_SLICE = 200  # files a filtered count reads per turn of the lock ...
COUNT_SLICE_BYTES = 4 * 1024 * 1024  # ... or bytes of them: a page waits for one 20 MB file
NEWEST_GRACE_S = 2.0  # an unparseable newest file counts as being written this long
F = TypeVar("F", bound=Callable[..., Any])


def locked(method: F) -> F:
    """One thread at a time in the folder state: routes run in a thread pool and the follower
    (``folder_watch.py``) reads new files from another thread."""

    @functools.wraps(method)
    def run(self: FolderEvents, *args: Any, **kwargs: Any) -> Any:
        with self._folder_lock:
            return method(self, *args, **kwargs)

    return run  # type: ignore[return-value]


def _stamp(path: str | Path) -> tuple[int, int] | None:
    """What tells a rewritten file from the one looked at before: (mtime, size)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _recent(stamp: tuple[int, int] | None) -> bool:
    return stamp is not None and time.time_ns() - stamp[0] < NEWEST_GRACE_S * 1e9


class FolderEvents(Store):
    """Event logs read from conversation folders (``logs``: conversation id → its files)."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self._folder_lock = threading.RLock()
        self.logs: dict[str, FolderLog] = {}
        self._bodies: LRU[tuple[str, int], str] = LRU(
            BODY_CACHE, max_weight=BODY_CACHE_BYTES, weigh=text_bytes
        )
        #: unreadable files: the file's (mtime, size) when looked at, and the row served
        self._bad: dict[tuple[str, int], tuple[tuple[int, int] | None, str]] = {}
        #: per conversation, the last log position sent to websocket followers
        self.announced: dict[str, int] = {}
        #: bytes of event files read so far (what a filtered count's slices are sized by)
        self.bytes_read = 0

    def _complete_len(self, cid: str) -> int:
        """Events that can be served: all files but a newest one still being written."""
        log = self.logs[cid]
        return len(log) - (1 if len(log) and self._body(cid, len(log) - 1) is None else 0)

    # --- event bodies ----------------------------------------------------------------------

    def _body(self, cid: str, seq: int) -> str | None:
        """The event's JSON text, or None for a newest file that may still be being written.

        A good file is served as its own text (never re-encoded: a ``"\\ud800"`` escape stays
        an escape) and cached, bounded by count and bytes. A bad one (``folder_files.py``)
        is served as an ``UnreadableEventFile`` row naming the reason; it is looked at again
        whenever the file changes, so a file rewritten valid is served as the event it is.
        The newest file is given ``NEWEST_GRACE_S`` after its last change to become valid
        (the agent may be writing it); after that it is shown as bad like any other."""
        key = (cid, seq)
        text = self._bodies.get(key)
        if text is not None:
            return text
        log = self.logs[cid]
        path = log.file_name(seq)
        stamp = _stamp(path)
        bad = self._bad.get(key)
        if bad is not None and bad[0] == stamp:
            return bad[1]
        try:
            text, event = read_event_file(path, root=log.root)
        except Unreadable as exc:
            if seq == len(log) - 1 and exc.read and _recent(stamp):
                return None  # the agent may still be writing it: not corrupt yet
            event = {
                "id": log.ids[seq],
                "timestamp": file_time(Path(path), follow=False),
                "kind": "UnreadableEventFile",
                "file": clean_text(log.files[seq]),
                "error": exc.reason,
            }
            if exc.size is not None:  # its name and size, never its bytes (folder_files.py)
                event["size"] = exc.size
            text = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
            self._bad[key] = (stamp, text)
        else:
            self._bad.pop(key, None)
            self._bodies.set(key, text)
            self.bytes_read += len(text)
        timestamp = event.get("timestamp")
        timestamp = clean_text(timestamp[:64]) if isinstance(timestamp, str) else ""
        kind = event.get("kind")
        log.info[seq] = (timestamp, kind[:200] if isinstance(kind, str) else "")
        return text

    def _info(self, cid: str, seq: int) -> tuple[str, str] | None:
        info = self.logs[cid].info[seq]
        if info is None and self._body(cid, seq) is not None:
            info = self.logs[cid].info[seq]
        return info

    def _matches(self, cid: str, seq: int, kind, gte, lt, viewable_only) -> bool:
        if kind is None and gte is None and lt is None and not viewable_only:
            return self._body(cid, seq) is not None
        info = self._info(cid, seq)
        if info is None:
            return False
        timestamp, event_kind = info
        if kind is not None and event_kind != kind:
            return False
        if viewable_only and event_kind in NON_VIEWABLE_KINDS:
            return False
        if gte is not None and timestamp < gte:
            return False
        return not (lt is not None and timestamp >= lt)

    # --- the event queries the routes use ----------------------------------------------------

    @locked
    def search_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: str | None = None,
        timestamp_lt: str | None = None,
        descending: bool = False,
        after: tuple[str, int] | None = None,
        limit: int = 100,
        viewable_only: bool = False,
        log_order: bool = False,
        upto_seq: int | None = None,
        max_bytes: int | None = None,
    ) -> tuple[list[EventRow], EventRow | None]:
        """A page in log order (the file index, whatever ``log_order`` says), and the row
        after it; ``after`` is the keyset of the last row sent. Files are read one at a
        time as the page takes them (``take_page``: it ends at ``limit`` rows or
        ``max_bytes`` of texts). A folder has no webhook: ``upto_seq`` is for the
        database's conversations."""
        log = self.logs.get(conversation_id)
        if log is None:
            return super().search_events(
                conversation_id,
                kind=kind,
                timestamp_gte=timestamp_gte,
                timestamp_lt=timestamp_lt,
                descending=descending,
                after=after,
                limit=limit,
                viewable_only=viewable_only,
                log_order=log_order,
                upto_seq=upto_seq,
                max_bytes=max_bytes,
            )
        log.refresh()
        count = len(log)
        if after is not None:
            start = after[1] - 1 if descending else after[1] + 1
        else:
            start = count - 1 if descending else 0
        step = -1 if descending else 1
        matching = (
            self._row(conversation_id, seq)
            for seq in range(start, -1 if descending else count, step)
            if self._matches(conversation_id, seq, kind, timestamp_gte, timestamp_lt, viewable_only)
        )
        return take_page((row for row in matching if row is not None), limit, max_bytes)

    def count_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: str | None = None,
        timestamp_lt: str | None = None,
        viewable_only: bool = False,
        upto_seq: int | None = None,
    ) -> int:
        """A filtered count reads every file not read before (kinds and times are inside
        them: ~1 s for 50,000 files), so it takes the lock a slice of files at a time (200,
        or fewer that hold ``COUNT_SLICE_BYTES``): a page asked for meanwhile (End, the first
        page beside the count) is served between two slices instead of after the walk."""
        with self._folder_lock:
            log = self.logs.get(conversation_id)
            if log is None:
                return super().count_events(
                    conversation_id,
                    kind=kind,
                    timestamp_gte=timestamp_gte,
                    timestamp_lt=timestamp_lt,
                    viewable_only=viewable_only,
                    upto_seq=upto_seq,
                )
            log.refresh()
            count = len(log)
            if (
                kind is None
                and timestamp_gte is None
                and timestamp_lt is None
                and not viewable_only
            ):
                # every file but a newest one still being written
                return count - (
                    1 if count and self._body(conversation_id, count - 1) is None else 0
                )
        found = seq = 0
        while seq < count:  # positions only grow: what was counted stays counted
            with self._folder_lock:
                end, read = min(count, seq + COUNT_SLICE), self.bytes_read
                while seq < end and self.bytes_read - read < COUNT_SLICE_BYTES:
                    found += self._matches(
                        conversation_id, seq, kind, timestamp_gte, timestamp_lt, viewable_only
                    )
                    seq += 1
        return found

    @locked
    def get_events(
        self,
        conversation_id: str,
        ids: Sequence[str],
        *,
        viewable_only: bool = False,
        upto_seq: int | None = None,
    ) -> list[str | None]:
        log = self.logs.get(conversation_id)
        if log is None:
            return super().get_events(
                conversation_id, ids, viewable_only=viewable_only, upto_seq=upto_seq
            )
        out: list[str | None] = []
        for event_id in ids:
            seq = log.index.get(event_id)
            text = self._body(conversation_id, seq) if seq is not None else None
            if (
                text is not None
                and viewable_only
                and (log.info[seq] or ("", ""))[1] in NON_VIEWABLE_KINDS
            ):
                text = None
            out.append(text)
        return out

    @locked
    def event_position(self, conversation_id: str, event_id: str) -> tuple[str, int] | None:
        log = self.logs.get(conversation_id)
        if log is None:
            return super().event_position(conversation_id, event_id)
        seq = log.index.get(event_id)
        info = self._info(conversation_id, seq) if seq is not None else None
        return (info[0], seq) if info is not None and seq is not None else None

    @locked
    def event_id_at(self, conversation_id: str, seq: int) -> str | None:
        log = self.logs.get(conversation_id)
        if log is None:
            return super().event_id_at(conversation_id, seq)
        return log.ids[seq] if 0 <= seq < len(log) else None  # the file's name: its index

    def iter_events(self, conversation_id: str, *, batch: int = 1000) -> Iterator[EventRow]:
        log = self.logs.get(conversation_id)
        if log is None:
            yield from super().iter_events(conversation_id, batch=batch)
            return
        for seq in range(len(log)):
            with self._folder_lock:
                row = self._row(conversation_id, seq)
            if row is not None:
                yield row

    # --- what the live route asks of the log -------------------------------------------------

    def _row(self, cid: str, seq: int) -> EventRow | None:
        text = self._body(cid, seq)
        return EventRow((self.logs[cid].info[seq][0], seq, text)) if text is not None else None

    @locked
    def last_seq(self, conversation_id: str) -> int:
        if conversation_id not in self.logs:
            return super().last_seq(conversation_id)
        return self.announced[conversation_id]  # what followers have (the subscription point)

    @locked
    def head_event_id(self, conversation_id: str) -> str | None:
        log = self.logs.get(conversation_id)
        if log is None:
            return super().head_event_id(conversation_id)
        last = self.announced[conversation_id]
        return log.ids[last] if last >= 0 else None

    @locked
    def last_event_of(
        self, conversation_id: str, kind: str, source: str | None = None
    ) -> str | None:
        if conversation_id not in self.logs:
            return super().last_event_of(conversation_id, kind, source)
        for seq in range(
            self.announced[conversation_id], max(-1, self.announced[conversation_id] - 500), -1
        ):
            text = self._body(conversation_id, seq)
            if (
                text is not None
                and self.logs[conversation_id].info[seq][1] == kind
                and (source is None or json.loads(text).get("source") == source)
            ):
                return text
        return None

    @locked
    def first_seq_since(self, conversation_id: str, timestamp_gte: str) -> int | None:
        if conversation_id not in self.logs:
            return super().first_seq_since(conversation_id, timestamp_gte)
        found = None
        for seq in range(
            self.announced[conversation_id], -1, -1
        ):  # recent ones first: "since" is recent
            info = self._info(conversation_id, seq)
            if info is not None and info[0] >= timestamp_gte:
                found = seq
            elif info is not None:
                break
        return found

    @locked
    def log_rows(
        self,
        conversation_id: str,
        *,
        after_seq: int = -1,
        upto_seq: int | None = None,
        timestamp_gte: str | None = None,
        limit: int = 500,
        max_bytes: int | None = None,
    ) -> list[EventRow]:
        if conversation_id not in self.logs:
            return super().log_rows(
                conversation_id,
                after_seq=after_seq,
                upto_seq=upto_seq,
                timestamp_gte=timestamp_gte,
                limit=limit,
                max_bytes=max_bytes,
            )
        last = (
            self.announced[conversation_id]
            if upto_seq is None
            else min(upto_seq, self.announced[conversation_id])
        )
        rows = (self._row(conversation_id, seq) for seq in range(after_seq + 1, last + 1))
        wanted = (
            row
            for row in rows
            if row is not None and (timestamp_gte is None or row.timestamp >= timestamp_gte)
        )
        return take_page(itertools.islice(wanted, limit), limit, max_bytes)[0]

    @locked
    def take_new(self, conversation_id: str, max_bytes: int | None = None) -> list[str]:
        """JSON texts of events written since the last call, in order, at most ``max_bytes``
        of them (the first whatever it weighs: call again for the rest); moves the announced
        point past them."""
        log = self.logs[conversation_id]
        log.refresh()
        end = self._complete_len(conversation_id)
        seq = self.announced[conversation_id] + 1
        texts: list[str] = []
        weight = 0
        while seq < end:
            text = self._body(conversation_id, seq)
            if text is not None:
                weight += text_bytes(text)
                if texts and max_bytes is not None and weight > max_bytes:
                    break  # the next call starts here (its text is cached)
                texts.append(text)
            seq += 1
        self.announced[conversation_id] = seq - 1
        return texts
