"""The SQLite connection every store table shares: schema, lock, transactions.

Threading: uvicorn runs sync endpoints on worker threads, so one connection is shared
(``check_same_thread=False``) and every statement runs under one re-entrant lock. SQLite
calls are short (index lookups), so the lock is never held for long.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,              -- log position, 0-based per conversation
    id TEXT,
    timestamp TEXT NOT NULL,           -- naive ISO string, compared as a string
    kind TEXT NOT NULL,
    viewable INTEGER NOT NULL,         -- 0 for NON_VIEWABLE_KINDS
    parent_id TEXT,
    source TEXT,
    json TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS ix_events_seq ON events (conversation_id, seq);
CREATE INDEX IF NOT EXISTS ix_events_ts ON events (conversation_id, timestamp, seq);
CREATE INDEX IF NOT EXISTS ix_events_view ON events (conversation_id, viewable, timestamp, seq);
CREATE INDEX IF NOT EXISTS ix_events_kind ON events (conversation_id, kind, timestamp, seq);
CREATE INDEX IF NOT EXISTS ix_events_id ON events (conversation_id, id);

CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    created_key TEXT NOT NULL,         -- sortable UTC 'YYYY-MM-DDTHH:MM:SS.ffffff'
    updated_key TEXT NOT NULL,
    title TEXT,
    sandbox_id TEXT,
    parent_conversation_id TEXT,
    execution_status TEXT,
    public INTEGER,
    record TEXT NOT NULL               -- AppConversationInfo fields as JSON
);
CREATE INDEX IF NOT EXISTS ix_conv_created ON conversations (created_key, id);
CREATE INDEX IF NOT EXISTS ix_conv_sandbox ON conversations (sandbox_id);
CREATE INDEX IF NOT EXISTS ix_conv_parent ON conversations (parent_conversation_id);

CREATE TABLE IF NOT EXISTS sandboxes (
    id TEXT PRIMARY KEY,
    created_key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    created_by_user_id TEXT,
    sandbox_spec_id TEXT NOT NULL,
    status TEXT NOT NULL,
    session_api_key TEXT,              -- kept while paused, exposed only while RUNNING
    status_detail TEXT,
    port INTEGER NOT NULL,             -- first of the fake exposed ports
    due_status TEXT,                   -- pending transition (lifecycle.py) ...
    due_at REAL                        -- ... and when it happens (clock seconds)
);
CREATE INDEX IF NOT EXISTS ix_sandbox_created ON sandboxes (created_key, id);

CREATE TABLE IF NOT EXISTS sandbox_specs (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    record TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS start_tasks (
    id TEXT PRIMARY KEY,
    created_key TEXT NOT NULL,
    updated_key TEXT NOT NULL,
    created_clock REAL NOT NULL,
    status TEXT NOT NULL,
    app_conversation_id TEXT,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_task_created ON start_tasks (created_key, id);
CREATE INDEX IF NOT EXISTS ix_task_updated ON start_tasks (updated_key, id);
CREATE INDEX IF NOT EXISTS ix_task_conv ON start_tasks (app_conversation_id);
"""

_COMPACT = {"separators": (",", ":"), "ensure_ascii": False}


def dumps(value: Any) -> str:
    """Compact JSON, UTF-8 kept as is (the form every stored record uses)."""
    return json.dumps(value, **_COMPACT)


def like_pattern(text: str) -> str:
    """A LIKE pattern matching ``text`` literally anywhere (``%``, ``_`` and ``\\`` escaped)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class EventRow(tuple):
    """``(timestamp, seq, json)`` of one stored event."""

    __slots__ = ()

    @property
    def timestamp(self) -> str:
        return self[0]

    @property
    def seq(self) -> int:
        return self[1]

    @property
    def json(self) -> str:
        return self[2]


#: What one page of events may hold: a page ends before the event that would take its texts
#: past this (its first event is sent whatever it weighs). Why: a page of a hundred outputs
#: of 20 MB was built whole (the texts, the joined body, its bytes: ~2 GB in the folder
#: server) for a client that reads at most 64 MB of an answer; fewer events on a page is
#: what paging is for (the page id says where the next one starts).
PAGE_BYTES = 16 * 1024 * 1024


def text_bytes(text: str) -> int:
    """What a stored text holds in memory (CPython keeps 1, 2 or 4 bytes a character)."""
    return sys.getsizeof(text)


def take_page(
    rows: Iterable[EventRow], limit: int, max_bytes: int | None = None
) -> tuple[list[EventRow], EventRow | None]:
    """The first ``limit`` of ``rows`` whose texts weigh at most ``max_bytes`` together (the
    first row always), and the row after them (None: there is none). ``rows`` is read
    lazily: one row past the page at most, so a page never reads more than it sends and the
    next page's first event."""
    page: list[EventRow] = []
    weight = 0
    for row in rows:
        if len(page) >= limit:
            return page, row
        if max_bytes is not None:
            weight += text_bytes(row.json)
            if page and weight > max_bytes:
                return page, row
        page.append(row)
    return page, None


class StoreBase:
    """One SQLite connection (``path``: a file name or ``":memory:"``) and its lock."""

    def __init__(self, path: str = ":memory:") -> None:
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        #: LLM profiles by name: ``{"model", "base_url", "api_key"}`` (the key is never served).
        self.profiles: dict[str, dict[str, Any]] = {}
        #: the active profile's name, and each conversation's switched-to profile by hex id
        self.active_profile: str | None = None
        self.conversation_profiles: dict[str, str] = {}
        #: Directories "created" through ``/api/file/create_directory``.
        self.directories: set[str] = set()
        #: The conversations' workspace (``workspace_demo.DemoWorkspace``): the demo sets one;
        #: None serves a workspace that holds nothing.
        self.workspace: Any = None

    # -- plumbing ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()
        if self.workspace is not None:
            self.workspace.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write (re-entrant: a nested call joins the outer transaction)."""
        with self._lock:
            if self._db.in_transaction:
                yield self._db
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def _page(
        self,
        sql: str,
        params: Sequence[Any],
        limit: int,
        max_bytes: int | None,
        *,
        following: bool = True,
    ) -> tuple[list[EventRow], EventRow | None]:
        """:func:`take_page` over ``sql``'s rows (``(timestamp, seq, json)``, its last
        parameter the row limit, given here), read one at a time; ``following``: read the
        row after a full page too (else only one that ends the page by its weight)."""
        with self._lock:
            cursor = self._db.execute(sql, (*params, limit + 1 if following else limit))
            try:
                return take_page(map(EventRow, cursor), limit, max_bytes)
            finally:
                cursor.close()

    def _one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        with self._lock:
            return self._db.execute(sql, params).fetchone()

    def explain(self, sql: str, params: Sequence[Any] = ()) -> list[str]:
        """``EXPLAIN QUERY PLAN`` details, for tests that pin index use."""
        return [row[3] for row in self._all("EXPLAIN QUERY PLAN " + sql, params)]
