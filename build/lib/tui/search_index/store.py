"""The index on disk: one SQLite file per server (or local folder root) with an FTS5 table.

``events`` holds what identifies a hit (conversation, event id, kind, tool, source, time),
``words`` (FTS5) its masked text under the same rowid, ``conversations`` what the filling
needs to resume and to keep the size bound: the last event indexed (its timestamp: a walk
resumes from it, events already held are ignored by their id), whether the walk reached
the end for the conversation's ``updated_at`` then, and when it was last used (least
recently used conversations are dropped first when the file outgrows its bound).

A file that is not a readable index (corrupt, another version) is moved aside and made
again, and :attr:`SearchIndex.notice` says so in words; a file another process holds
locked is :class:`IndexUnavailable`, said, never waited on for ever. One connection, used
under a lock: the app searches from a thread while its filling writes from another.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tui.paths import cache_dir

from .extract import IndexedEvent

VERSION = "1"
#: The default bound of one index file (bytes in use); least recently used conversations go.
DEFAULT_MAX_BYTES = 1 << 30
LOCK_WAIT = 5.0  # seconds a write waits for another process's transaction
T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conversations(
    cid INTEGER PRIMARY KEY,
    id TEXT UNIQUE NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    updated TEXT NOT NULL DEFAULT '',
    indexed_for TEXT,
    last_stamp TEXT,
    events INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    complete INTEGER NOT NULL DEFAULT 0,
    dropped INTEGER NOT NULL DEFAULT 0,
    used REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events(
    rowid INTEGER PRIMARY KEY,
    conv INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    tool TEXT NOT NULL,
    source TEXT NOT NULL,
    ts REAL,
    UNIQUE(conv, event_id)
);
CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(text, tokenize='unicode61 remove_diacritics 2');
"""


class IndexUnavailable(Exception):
    """The index cannot be used now (SQLite without FTS5, a file another process holds
    locked, a folder that cannot be written): the message says which, in words."""


def fts5_problem() -> str | None:
    """Why this Python's SQLite cannot hold the index (None: it can)."""
    try:
        probe = sqlite3.connect(":memory:")
        try:
            probe.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
        finally:
            probe.close()
    except sqlite3.Error as exc:
        return (
            f"this Python's SQLite ({sqlite3.sqlite_version}) has no full-text search (FTS5:"
            f" {exc}); search needs a Python built with an SQLite that has it"
        )
    return None


def index_path(source: str, root: Path | None = None) -> Path:
    """The file of the index of ``source`` (a server's URL, ``demo``, ``folder:/path``):
    a readable name and a hash, so two sources never share a file."""
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9]+", "-", source).strip("-")[:40] or "index"
    return (root or cache_dir() / "search") / f"{name}-{digest}.sqlite3"


@dataclass(frozen=True)
class Conversation:
    """What the index knows of one conversation."""

    id: str
    title: str
    updated: str
    indexed_for: str | None  # the ``updated`` its last whole walk was for
    last_stamp: str | None
    events: int
    complete: bool
    dropped: bool

    @property
    def current(self) -> bool:
        """Indexed to its end as it is now (nothing to fetch)."""
        return self.complete and self.indexed_for == self.updated


@dataclass(frozen=True)
class IndexStatus:
    path: Path
    conversations: int  # known to the index (listed by the server)
    current: int  # indexed to their end as they are now
    dropped: int  # left out by the size bound
    events: int
    bytes: int
    max_bytes: int

    def words(self, *, size: bool = True) -> str:
        """The index in words: "indexed 312 of 1,040 conversations (48,210 events, 12.3 MB)"."""
        held = f", {self.bytes / 1e6:,.1f} MB" if size else ""
        dropped = (
            f"; {self.dropped:,} left out to stay under its size bound" if self.dropped else ""
        )
        return (
            f"indexed {self.current:,} of {self.conversations:,} conversations"
            f" ({self.events:,} events{held}){dropped}"
        )


#: A row's id is its event's time in milliseconds shifted by this (and a count within the
#: millisecond): rows in id order are in time order, so the newest hits of a word come
#: first from the full-text index itself and times filter as ranges of ids.
TIME_SHIFT = 12
_NO_TIME_END = 1 << 32  # events without a time: ids below this, in the order indexed


def time_rowid(ts: float) -> int:
    """The first row id of the millisecond ``ts`` falls in."""
    return int(ts * 1000) << TIME_SHIFT


def _free_rowid(db: sqlite3.Connection, ts: float | None) -> int:
    if ts is None or ts * 1000 < _NO_TIME_END >> TIME_SHIFT:
        low, high = 1, _NO_TIME_END - 1
    else:
        low = time_rowid(ts)
        high = low + (1 << TIME_SHIFT) - 1
    last = db.execute(
        "SELECT max(rowid) FROM events WHERE rowid BETWEEN ? AND ?", (low, high)
    ).fetchone()[0]
    if last is None:
        return low
    if last < high:
        return last + 1
    return db.execute("SELECT max(rowid) + 1 FROM events").fetchone()[0]  # a full millisecond


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (the connection is in autocommit mode otherwise)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _is_lock(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc).lower()


class SearchIndex:
    """One index file (see the module doc). ``max_bytes`` bounds it."""

    def __init__(self, path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        problem = fts5_problem()
        if problem is not None:
            raise IndexUnavailable(problem)
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.notice: str | None = None  # said once: the file was unreadable and made again
        self._lock = threading.RLock()
        self._db = self._open()

    # --- opening, rebuilding -------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IndexUnavailable(f"cannot make the index's folder {self.path.parent}: {exc}")
        db = sqlite3.connect(
            self.path, timeout=LOCK_WAIT, check_same_thread=False, isolation_level=None
        )
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(SCHEMA)
        found = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
        if found is None:
            db.execute("INSERT INTO meta VALUES ('version', ?)", (VERSION,))
        elif found[0] != VERSION:
            db.close()
            raise sqlite3.DatabaseError(f"made by another version of ohtui ({found[0]})")
        return db

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except sqlite3.Error as exc:
            if _is_lock(exc):
                raise IndexUnavailable(
                    f"the search index {self.path} is locked by another ohtui; try again when it"
                    " is done"
                ) from exc
            return self._remake(exc)

    def _remake(self, why: BaseException) -> sqlite3.Connection:
        """Move the unreadable file aside (kept as ``.broken`` for a look) and start again."""
        for suffix in ("-wal", "-shm"):
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        if self.path.exists():
            self.path.replace(self.path.with_name(self.path.name + ".broken"))
        self.notice = (
            f"The search index could not be read ({why}); it was started again and fills anew."
        )
        return self._connect()

    def rebuild(self, why: str = "rebuilt on request") -> None:
        """Empty the index (``ohtui index --rebuild``, or a file found unreadable in use)."""
        with self._lock:
            self._db.close()
            for suffix in ("", "-wal", "-shm"):
                self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
            self._db = self._connect()
            self.notice = None if why == "rebuilt on request" else why

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def guarded(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(connection)`` under the lock; a file found unreadable on the way is made
        again (said in :attr:`notice`) and the work done on the new one."""
        with self._lock:
            try:
                return work(self._db)
            except sqlite3.DatabaseError as exc:
                if _is_lock(exc):
                    raise IndexUnavailable(
                        f"the search index {self.path} is locked: {exc}"
                    ) from exc
                self._db.close()
                self._db = self._remake(exc)
                return work(self._db)

    # --- conversations -------------------------------------------------------------------

    def conversations(self) -> dict[str, Conversation]:
        rows = self.guarded(
            lambda db: db.execute(
                "SELECT id, title, updated, indexed_for, last_stamp, events, complete, dropped"
                " FROM conversations"
            ).fetchall()
        )
        return {
            row[0]: Conversation(*row[:6], complete=bool(row[6]), dropped=bool(row[7]))
            for row in rows
        }

    def note_conversations(self, listed: Iterable[tuple[str, str, str, float]]) -> None:
        """The server lists these ``(id, title, updated, used)``: kept, titles refreshed."""

        def work(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.executemany(
                    "INSERT INTO conversations(id, title, updated, used) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT(id) DO UPDATE SET title=excluded.title,"
                    " updated=excluded.updated, used=max(used, excluded.used),"
                    " dropped=CASE WHEN updated=excluded.updated THEN dropped ELSE 0 END",
                    list(listed),
                )

        self.guarded(work)

    def add_events(
        self,
        conversation: str,
        events: list[IndexedEvent],
        last_stamp: str | None,
        *,
        live: bool = False,
    ) -> int:
        """Store a page's events (those already held, by id, are left); returns how many
        were new. The page and the resume point are written in one transaction.
        ``live``: events that arrived over a stream, not a walk: the resume point is left
        where the last walk put it (the stream's events are not all the history since),
        and the conversation counts as used now."""

        def work(db: sqlite3.Connection) -> int:
            with _transaction(db):
                cid = self._cid(db, conversation)
                added = size = 0
                for event in events:
                    if db.execute(
                        "SELECT 1 FROM events WHERE conv=? AND event_id=?", (cid, event.event_id)
                    ).fetchone():
                        continue  # held already (a walk resumed from its last event's time)
                    rowid = _free_rowid(db, event.time)
                    db.execute(
                        "INSERT INTO events(rowid, conv, event_id, kind, tool, source, ts)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (
                            rowid,
                            cid,
                            event.event_id,
                            event.kind,
                            event.tool,
                            event.source,
                            event.time,
                        ),
                    )
                    db.execute("INSERT INTO words(rowid, text) VALUES (?, ?)", (rowid, event.text))
                    added += 1
                    size += len(event.text) + 64
                if live:
                    db.execute(
                        "UPDATE conversations SET events=events+?, bytes=bytes+?, complete=0,"
                        " used=? WHERE cid=?",
                        (added, size, time.time(), cid),
                    )
                    return added
                db.execute(
                    "UPDATE conversations SET last_stamp=?, events=events+?, bytes=bytes+?,"
                    " complete=0 WHERE cid=?",
                    (last_stamp, added, size, cid),
                )
                return added

        return self.guarded(work)

    def _cid(self, db: sqlite3.Connection, conversation: str) -> int:
        found = db.execute("SELECT cid FROM conversations WHERE id=?", (conversation,)).fetchone()
        if found is not None:
            return found[0]
        return db.execute(
            "INSERT INTO conversations(id, used) VALUES (?, ?)", (conversation, time.time())
        ).lastrowid

    def finished(self, conversation: str, updated: str) -> None:
        """The walk reached the conversation's end as it was at ``updated``."""
        self.guarded(
            lambda db: db.execute(
                "UPDATE conversations SET complete=1, indexed_for=? WHERE id=?",
                (updated, conversation),
            )
        )

    def touch(self, conversation: str) -> None:
        """Used now (opened from a result): the last to be dropped by the size bound."""
        self.guarded(
            lambda db: db.execute(
                "UPDATE conversations SET used=? WHERE id=?", (time.time(), conversation)
            )
        )

    # --- size ----------------------------------------------------------------------------

    def size(self) -> int:
        """Bytes the file's pages in use hold (free pages not counted: they are reused)."""

        def work(db: sqlite3.Connection) -> int:
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            free = db.execute("PRAGMA freelist_count").fetchone()[0]
            return (pages - free) * db.execute("PRAGMA page_size").fetchone()[0]

        return self.guarded(work)

    def keep_bound(self, keep: Collection[str] = ()) -> list[str]:
        """Drop least recently used conversations (never those in ``keep``: being filled)
        until the file is back under its bound; returns the ids dropped (left out until
        they change). Enough are dropped at once to free the excess by their recorded
        size (scaled to the file's), then the full-text table is merged so their pages are really free."""
        dropped: list[str] = []
        while (excess := self.size() - self.max_bytes) > 0:
            rows = self.read(
                "SELECT cid, id, bytes FROM conversations WHERE events>0 ORDER BY used"
            )
            recorded = sum(size for _, _, size in rows) or 1
            scale = (excess + self.max_bytes) / recorded  # the file's bytes per recorded byte
            chosen, freed = [], 0.0
            for cid, conversation, size in rows:
                if conversation in keep:
                    continue
                chosen.append((cid, conversation))
                freed += size * scale
                if freed >= excess:
                    break
            if not chosen:
                break
            for cid, conversation in chosen:
                self.guarded(lambda db, cid=cid: self._drop(db, cid))
                dropped.append(conversation)
            self.guarded(lambda db: db.execute("INSERT INTO words(words) VALUES('optimize')"))
        return dropped

    @staticmethod
    def _drop(db: sqlite3.Connection, cid: int) -> None:
        with _transaction(db):
            db.execute(
                "DELETE FROM words WHERE rowid IN (SELECT rowid FROM events WHERE conv=?)", (cid,)
            )
            db.execute("DELETE FROM events WHERE conv=?", (cid,))
            db.execute(
                "UPDATE conversations SET dropped=1, complete=0, events=0, bytes=0,"
                " last_stamp=NULL, indexed_for=NULL WHERE cid=?",
                (cid,),
            )

    # --- status, reading -----------------------------------------------------------------

    def status(self) -> IndexStatus:
        def work(db: sqlite3.Connection) -> tuple[Any, ...]:
            return db.execute(
                "SELECT count(*), coalesce(sum(complete AND indexed_for=updated), 0),"
                " coalesce(sum(dropped), 0), coalesce(sum(events), 0) FROM conversations"
            ).fetchone()

        known, current, dropped, events = self.guarded(work)
        return IndexStatus(self.path, known, current, dropped, events, self.size(), self.max_bytes)

    def read(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a query (the searches of :mod:`.query`)."""
        return self.guarded(lambda db: db.execute(sql, params).fetchall())
