"""SQLite persistence for the reference server: event logs and control-plane records.

Why SQLite: a single dependency-free file (or ``:memory:``) that can answer any page of a
100,000-event log through an index, so a deep page costs what the first one does. The
store knows shapes and queries only; time-driven behaviour lives in ``lifecycle.py`` and
the HTTP mapping in the ``routes_*`` modules.

Threading: uvicorn runs sync endpoints on worker threads, so one connection is shared
(``check_same_thread=False``) and every statement runs under one re-entrant lock. SQLite
calls are short (index lookups), so the lock is never held for long.

Events are kept as JSON text exactly as they will be served (see :meth:`Store.append_events`)
so a page is served by splicing stored strings, never by re-parsing them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from tui.models import NON_VIEWABLE_KINDS, RawEvent, parse_event

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


class Store:
    """All persistent state of one reference server.

    ``path`` is a file name or ``":memory:"``. Profiles and created directories are kept in
    memory only (``profiles``, ``directories``): they never touch the real file system.
    """

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
        #: Directories "created" through ``/api/file/create_directory``.
        self.directories: set[str] = set()

    # -- plumbing ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

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

    def _one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        with self._lock:
            return self._db.execute(sql, params).fetchone()

    def explain(self, sql: str, params: Sequence[Any] = ()) -> list[str]:
        """``EXPLAIN QUERY PLAN`` details, for tests that pin index use."""
        return [row[3] for row in self._all("EXPLAIN QUERY PLAN " + sql, params)]

    # -- events -----------------------------------------------------------------------------

    def append_events(
        self,
        conversation_id: str,
        events: Iterable[dict[str, Any]],
        *,
        normalize: bool = True,
        strict: bool = False,
    ) -> int:
        """Append events to a conversation's log in one transaction; returns how many.

        ``normalize=True`` (default) validates each event with :func:`tui.models.parse_event`
        and stores its full dump, nulls included, the way the real app server serves them.
        An event that does not validate is stored as given (so odd data can be served on
        purpose) unless ``strict`` is set, which raises ``ValueError`` instead.
        ``normalize=False`` stores each dict verbatim (compact JSON): the fast path for
        generated logs whose dicts are already full dumps.
        """
        rows = []
        for event in events:
            text = None
            if normalize:
                parsed = parse_event(event)
                if isinstance(parsed, RawEvent):
                    if strict:
                        raise ValueError(f"event does not validate: {parsed.error}")
                else:
                    text = parsed.model_dump_json()
            if text is None:
                text = dumps(event)
            rows.append(_event_columns(event, text))
        return self._insert_event_rows(conversation_id, rows)

    def append_event_texts(self, conversation_id: str, texts: Iterable[str]) -> int:
        """Append events given as JSON text, stored verbatim (columns are read from the text)."""
        rows = []
        for text in texts:
            event = json.loads(text)
            rows.append(_event_columns(event if isinstance(event, dict) else {}, text))
        return self._insert_event_rows(conversation_id, rows)

    def append_serialized(
        self, conversation_id: str, items: Iterable[tuple[dict[str, Any], str]]
    ) -> int:
        """Append events already serialised by the caller: ``(event dict, JSON text)`` pairs.

        The live simulator validates each event once and keeps both forms; the columns come
        from the dict and the text is stored verbatim (no second parse)."""
        return self._insert_event_rows(
            conversation_id, [_event_columns(event, text) for event, text in items]
        )

    def _insert_event_rows(self, conversation_id: str, rows: list[tuple]) -> int:
        if not rows:
            return 0
        with self.transaction() as db:
            (start,) = db.execute(
                "SELECT coalesce(max(seq) + 1, 0) FROM events WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            db.executemany(
                "INSERT INTO events (conversation_id, seq, id, timestamp, kind, viewable,"
                " parent_id, source, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ((conversation_id, start + i, *row) for i, row in enumerate(rows)),
            )
        return len(rows)

    def _event_filters(
        self,
        conversation_id: str,
        kind: str | None,
        timestamp_gte: str | None,
        timestamp_lt: str | None,
        viewable_only: bool,
    ) -> tuple[list[str], list[Any]]:
        where, params = ["conversation_id = ?"], [conversation_id]
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        elif viewable_only:
            where.append("viewable = 1")
        if timestamp_gte is not None:
            where.append("timestamp >= ?")
            params.append(timestamp_gte)
        if timestamp_lt is not None:
            where.append("timestamp < ?")
            params.append(timestamp_lt)
        return where, params

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
    ) -> tuple[list[EventRow], bool]:
        """One page in ``(timestamp, seq)`` order, starting after the keyset ``after``.

        Returns the rows and whether more rows follow. The keyset condition and the ORDER BY
        match an index, so the cost does not depend on how deep the page is.
        ``viewable_only`` drops NON_VIEWABLE_KINDS inside the query: every page is full
        except the last, which is what the service's refill loop achieves.
        """
        if viewable_only and kind in NON_VIEWABLE_KINDS:
            return [], False
        if after is not None:
            # The keyset and the timestamp bound on the same side overlap; keep only the
            # stricter one so SQLite seeks straight to it instead of filtering a range.
            if not descending and timestamp_gte is not None:
                if after[0] >= timestamp_gte:
                    timestamp_gte = None
                else:
                    after = None
            elif descending and timestamp_lt is not None:
                if after[0] < timestamp_lt:
                    timestamp_lt = None
                else:
                    after = None
        where, params = self._event_filters(
            conversation_id, kind, timestamp_gte, timestamp_lt, viewable_only
        )
        if after is not None:
            where.append("(timestamp, seq) < (?, ?)" if descending else "(timestamp, seq) > (?, ?)")
            params.extend(after)
        order = "timestamp DESC, seq DESC" if descending else "timestamp, seq"
        sql = (
            f"SELECT timestamp, seq, json FROM events WHERE {' AND '.join(where)}"
            f" ORDER BY {order} LIMIT ?"
        )
        rows = self._all(sql, (*params, limit + 1))
        more = len(rows) > limit
        return [EventRow(r) for r in rows[:limit]], more

    def count_events(
        self,
        conversation_id: str,
        *,
        kind: str | None = None,
        timestamp_gte: str | None = None,
        timestamp_lt: str | None = None,
        viewable_only: bool = False,
    ) -> int:
        if viewable_only and kind in NON_VIEWABLE_KINDS:
            return 0
        where, params = self._event_filters(
            conversation_id, kind, timestamp_gte, timestamp_lt, viewable_only
        )
        row = self._one(f"SELECT count(*) FROM events WHERE {' AND '.join(where)}", params)
        return row[0] if row else 0

    def get_events(
        self, conversation_id: str, ids: Sequence[str], *, viewable_only: bool = False
    ) -> list[str | None]:
        """JSON text of each requested event id (``None`` where missing), in request order."""
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        marks = ",".join("?" * len(unique))
        view = " AND viewable = 1" if viewable_only else ""
        rows = self._all(
            f"SELECT id, json FROM events WHERE conversation_id = ? AND id IN ({marks}){view}",
            (conversation_id, *unique),
        )
        found = dict(rows)
        return [found.get(event_id) for event_id in ids]

    def event_position(self, conversation_id: str, event_id: str) -> tuple[str, int] | None:
        """``(timestamp, seq)`` of one event (the agent server's event-id page ids), or None."""
        row = self._one(
            "SELECT timestamp, seq FROM events WHERE conversation_id = ? AND id = ?",
            (conversation_id, event_id),
        )
        return (row[0], row[1]) if row else None

    def iter_events(self, conversation_id: str, *, batch: int = 1000) -> Iterator[EventRow]:
        """Every event in log order, fetched in batches (for tests and tools)."""
        seq = -1
        while True:
            rows = self._all(
                "SELECT timestamp, seq, json FROM events WHERE conversation_id = ? AND seq > ?"
                " ORDER BY seq LIMIT ?",
                (conversation_id, seq, batch),
            )
            if not rows:
                return
            for row in rows:
                yield EventRow(row)
            seq = rows[-1][1]

    def head_event_id(self, conversation_id: str) -> str | None:
        """Id of the newest viewable event in log order: where a new message hangs."""
        row = self._one(
            "SELECT id FROM events WHERE conversation_id = ? AND viewable = 1"
            " ORDER BY seq DESC LIMIT 1",
            (conversation_id,),
        )
        return row[0] if row else None

    def last_seq(self, conversation_id: str) -> int:
        """Log position of the newest event (``-1`` for an empty log); an index lookup."""
        row = self._one("SELECT max(seq) FROM events WHERE conversation_id = ?", (conversation_id,))
        return row[0] if row and row[0] is not None else -1

    def first_seq_since(self, conversation_id: str, timestamp_gte: str) -> int | None:
        """Smallest log position of an event with ``timestamp >= timestamp_gte`` (or None)."""
        row = self._one(
            "SELECT min(seq) FROM events WHERE conversation_id = ? AND timestamp >= ?",
            (conversation_id, timestamp_gte),
        )
        return row[0] if row else None

    def log_rows(
        self,
        conversation_id: str,
        *,
        after_seq: int = -1,
        upto_seq: int | None = None,
        timestamp_gte: str | None = None,
        limit: int = 500,
    ) -> list[EventRow]:
        """Events in log (``seq``) order after ``after_seq`` and up to ``upto_seq`` inclusive,
        optionally only those with ``timestamp >= timestamp_gte``: one replay batch."""
        where = ["conversation_id = ?", "seq > ?"]
        params: list[Any] = [conversation_id, after_seq]
        if upto_seq is not None:
            where.append("seq <= ?")
            params.append(upto_seq)
        if timestamp_gte is not None:
            where.append("timestamp >= ?")
            params.append(timestamp_gte)
        rows = self._all(
            f"SELECT timestamp, seq, json FROM events WHERE {' AND '.join(where)}"
            " ORDER BY seq LIMIT ?",
            (*params, limit),
        )
        return [EventRow(r) for r in rows]

    def last_event_of(
        self, conversation_id: str, kind: str, source: str | None = None
    ) -> str | None:
        """JSON of the newest event (log order) of ``kind`` (and ``source``), or None."""
        where, params = ["conversation_id = ?", "kind = ?"], [conversation_id, kind]
        if source is not None:
            where.append("source = ?")
            params.append(source)
        row = self._one(
            f"SELECT json FROM events WHERE {' AND '.join(where)} ORDER BY seq DESC LIMIT 1",
            params,
        )
        return row[0] if row else None

    def last_event_timestamp(self, conversation_id: str) -> str | None:
        row = self._one(
            "SELECT max(timestamp) FROM events WHERE conversation_id = ?", (conversation_id,)
        )
        return row[0] if row else None

    # -- app conversations ------------------------------------------------------------------

    def put_conversation(self, info: dict[str, Any]) -> None:
        """Insert or replace one AppConversationInfo record (``id``, ``created_at``, … as served)."""
        from .records import sort_key  # local: records imports nothing from here

        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO conversations (id, created_key, updated_key, title,"
                " sandbox_id, parent_conversation_id, execution_status, public, record)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    info["id"],
                    sort_key(info["created_at"]),
                    sort_key(info.get("updated_at") or info["created_at"]),
                    info.get("title"),
                    info.get("sandbox_id"),
                    info.get("parent_conversation_id"),
                    info.get("execution_status"),
                    None if info.get("public") is None else int(bool(info["public"])),
                    dumps(info),
                ),
            )

    def get_conversation(self, conversation_id: str) -> dict[str, Any] | None:
        row = self._one("SELECT record FROM conversations WHERE id = ?", (conversation_id,))
        return json.loads(row[0]) if row else None

    def get_conversations(self, ids: Sequence[str]) -> list[dict[str, Any] | None]:
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        marks = ",".join("?" * len(unique))
        rows = self._all(f"SELECT id, record FROM conversations WHERE id IN ({marks})", unique)
        found = {cid: json.loads(record) for cid, record in rows}
        return [found.get(cid) for cid in ids]

    def delete_conversation(self, conversation_id: str) -> bool:
        with self.transaction() as db:
            gone = db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            db.execute("DELETE FROM events WHERE conversation_id = ?", (conversation_id,))
            return gone.rowcount > 0

    def _conversation_filters(
        self,
        title_contains: str | None,
        created_gte: str | None,
        created_lt: str | None,
        updated_gte: str | None,
        updated_lt: str | None,
        sandbox_id: str | None,
        include_sub_conversations: bool,
    ) -> tuple[list[str], list[Any]]:
        where: list[str] = []
        params: list[Any] = []
        if title_contains and "\x00" in title_contains:
            # SQLite's LIKE stops reading its pattern at a NUL, matching everything; instr doesn't
            where.append("instr(lower(title), lower(?)) > 0")
            params.append(title_contains)
        elif title_contains:
            where.append("title LIKE ? ESCAPE '\\'")
            params.append(like_pattern(title_contains))
        for column, op, value in (
            ("created_key", ">=", created_gte),
            ("created_key", "<", created_lt),
            ("updated_key", ">=", updated_gte),
            ("updated_key", "<", updated_lt),
        ):
            if value is not None:
                where.append(f"{column} {op} ?")
                params.append(value)
        if sandbox_id is not None:
            where.append("sandbox_id = ?")
            params.append(sandbox_id)
        if not include_sub_conversations:
            where.append("parent_conversation_id IS NULL")
        return where, params

    def search_conversations(
        self,
        *,
        title_contains: str | None = None,
        created_gte: str | None = None,
        created_lt: str | None = None,
        updated_gte: str | None = None,
        updated_lt: str | None = None,
        sandbox_id: str | None = None,
        include_sub_conversations: bool = False,
        after: tuple[str, str] | None = None,
        limit: int = 100,
    ) -> tuple[list[tuple[str, str, dict[str, Any]]], bool]:
        """Newest first (CREATED_AT_DESC, ties by id); rows are ``(created_key, id, info)``."""
        where, params = self._conversation_filters(
            title_contains,
            created_gte,
            created_lt,
            updated_gte,
            updated_lt,
            sandbox_id,
            include_sub_conversations,
        )
        if after is not None:
            where.append("(created_key, id) < (?, ?)")
            params.extend(after)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._all(
            f"SELECT created_key, id, record FROM conversations {clause}"
            " ORDER BY created_key DESC, id DESC LIMIT ?",
            (*params, limit + 1),
        )
        out = [(key, cid, json.loads(record)) for key, cid, record in rows[:limit]]
        return out, len(rows) > limit

    def count_conversations(self, **filters: Any) -> int:
        where, params = self._conversation_filters(
            filters.get("title_contains"),
            filters.get("created_gte"),
            filters.get("created_lt"),
            filters.get("updated_gte"),
            filters.get("updated_lt"),
            filters.get("sandbox_id"),
            filters.get("include_sub_conversations", False),
        )
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        row = self._one(f"SELECT count(*) FROM conversations {clause}", params)
        return row[0] if row else 0

    def sub_conversation_ids(self, parent_ids: Sequence[str]) -> dict[str, list[str]]:
        if not parent_ids:
            return {}
        unique = list(dict.fromkeys(parent_ids))
        marks = ",".join("?" * len(unique))
        rows = self._all(
            "SELECT parent_conversation_id, id FROM conversations"
            f" WHERE parent_conversation_id IN ({marks}) ORDER BY created_key, id",
            unique,
        )
        out: dict[str, list[str]] = {}
        for parent, child in rows:
            out.setdefault(parent, []).append(child)
        return out

    def conversation_ids(self) -> list[str]:
        """Every conversation id, oldest first."""
        return [r[0] for r in self._all("SELECT id FROM conversations ORDER BY created_key, id")]

    # -- sandboxes --------------------------------------------------------------------------

    _SANDBOX_COLUMNS = (
        "id",
        "created_key",
        "created_at",
        "created_by_user_id",
        "sandbox_spec_id",
        "status",
        "session_api_key",
        "status_detail",
        "port",
        "due_status",
        "due_at",
    )

    def put_sandbox(self, sandbox: dict[str, Any]) -> None:
        """Insert or replace a sandbox row (keys: the ``sandboxes`` columns but ``created_key``)."""
        from .records import sort_key

        row = dict(sandbox, created_key=sort_key(sandbox["created_at"]))
        cols = self._SANDBOX_COLUMNS
        with self.transaction() as db:
            db.execute(
                f"INSERT OR REPLACE INTO sandboxes ({', '.join(cols)})"
                f" VALUES ({', '.join('?' * len(cols))})",
                [row.get(c) for c in cols],
            )

    def update_sandbox(self, sandbox_id: str, **changes: Any) -> bool:
        allowed = set(self._SANDBOX_COLUMNS) - {"id", "created_key", "created_at"}
        bad = set(changes) - allowed
        if bad:
            raise ValueError(f"not sandbox columns: {sorted(bad)}")
        if not changes:
            return self.get_sandbox(sandbox_id) is not None
        sets = ", ".join(f"{c} = ?" for c in changes)
        with self.transaction() as db:
            cur = db.execute(
                f"UPDATE sandboxes SET {sets} WHERE id = ?", (*changes.values(), sandbox_id)
            )
            return cur.rowcount > 0

    def _sandbox_dicts(self, rows: list[tuple]) -> list[dict[str, Any]]:
        return [dict(zip(self._SANDBOX_COLUMNS, row)) for row in rows]

    def get_sandbox(self, sandbox_id: str) -> dict[str, Any] | None:
        found = self.get_sandboxes([sandbox_id])
        return found[0] if found else None

    def get_sandboxes(self, ids: Sequence[str]) -> list[dict[str, Any] | None]:
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        marks = ",".join("?" * len(unique))
        rows = self._all(
            f"SELECT {', '.join(self._SANDBOX_COLUMNS)} FROM sandboxes WHERE id IN ({marks})",
            unique,
        )
        found = {row["id"]: row for row in self._sandbox_dicts(rows)}
        return [found.get(sid) for sid in ids]

    def search_sandboxes(
        self, *, after: tuple[str, str] | None = None, limit: int = 100
    ) -> tuple[list[dict[str, Any]], bool]:
        """Newest first, ties by id."""
        where, params = "", []
        if after is not None:
            where, params = "WHERE (created_key, id) < (?, ?)", list(after)
        rows = self._all(
            f"SELECT {', '.join(self._SANDBOX_COLUMNS)} FROM sandboxes {where}"
            " ORDER BY created_key DESC, id DESC LIMIT ?",
            (*params, limit + 1),
        )
        return self._sandbox_dicts(rows[:limit]), len(rows) > limit

    def delete_sandbox(self, sandbox_id: str) -> bool:
        with self.transaction() as db:
            return db.execute("DELETE FROM sandboxes WHERE id = ?", (sandbox_id,)).rowcount > 0

    def due_sandboxes(self, now: float) -> list[dict[str, Any]]:
        rows = self._all(
            f"SELECT {', '.join(self._SANDBOX_COLUMNS)} FROM sandboxes"
            " WHERE due_at IS NOT NULL AND due_at <= ?",
            (now,),
        )
        return self._sandbox_dicts(rows)

    def has_pending(self, now: float) -> bool:
        """Is a sandbox transition due, or a start task unfinished? (cheap pre-check)"""
        row = self._one(
            "SELECT EXISTS (SELECT 1 FROM sandboxes WHERE due_at IS NOT NULL AND due_at <= ?)"
            " OR EXISTS (SELECT 1 FROM start_tasks WHERE status NOT IN ('READY', 'ERROR'))",
            (now,),
        )
        return bool(row and row[0])

    def next_sandbox_port(self) -> int:
        row = self._one("SELECT max(port) FROM sandboxes")
        return (row[0] + 10) if row and row[0] else 34010

    # -- sandbox specs ----------------------------------------------------------------------

    def put_spec(self, spec: dict[str, Any]) -> None:
        with self.transaction() as db:
            (position,) = db.execute(
                "SELECT coalesce((SELECT position FROM sandbox_specs WHERE id = ?),"
                " (SELECT coalesce(max(position) + 1, 0) FROM sandbox_specs))",
                (spec["id"],),
            ).fetchone()
            db.execute(
                "INSERT OR REPLACE INTO sandbox_specs (id, position, record) VALUES (?, ?, ?)",
                (spec["id"], position, dumps(spec)),
            )

    def get_specs(self, ids: Sequence[str]) -> list[dict[str, Any] | None]:
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        marks = ",".join("?" * len(unique))
        rows = self._all(f"SELECT id, record FROM sandbox_specs WHERE id IN ({marks})", unique)
        found = {sid: json.loads(record) for sid, record in rows}
        return [found.get(sid) for sid in ids]

    def search_specs(
        self, *, after: int | None = None, limit: int = 100
    ) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
        """In insertion order; rows are ``(position, spec)``."""
        rows = self._all(
            "SELECT position, record FROM sandbox_specs WHERE position > ?"
            " ORDER BY position LIMIT ?",
            (-1 if after is None else after, limit + 1),
        )
        return [(pos, json.loads(rec)) for pos, rec in rows[:limit]], len(rows) > limit

    def default_spec_id(self) -> str | None:
        row = self._one("SELECT id FROM sandbox_specs ORDER BY position LIMIT 1")
        return row[0] if row else None

    # -- start tasks ------------------------------------------------------------------------

    def put_task(self, task: dict[str, Any], *, created_clock: float) -> None:
        """Insert or replace one AppConversationStartTask record (as served)."""
        from .records import sort_key

        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO start_tasks (id, created_key, updated_key, created_clock,"
                " status, app_conversation_id, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    task["id"],
                    sort_key(task["created_at"]),
                    sort_key(task.get("updated_at") or task["created_at"]),
                    created_clock,
                    task["status"],
                    task.get("app_conversation_id"),
                    dumps(task),
                ),
            )

    def get_tasks(self, ids: Sequence[str]) -> list[dict[str, Any] | None]:
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        marks = ",".join("?" * len(unique))
        rows = self._all(f"SELECT id, record FROM start_tasks WHERE id IN ({marks})", unique)
        found = {tid: json.loads(record) for tid, record in rows}
        return [found.get(tid) for tid in ids]

    def pending_tasks(self) -> list[tuple[dict[str, Any], float]]:
        """Tasks not yet READY or ERROR, with their creation clock, oldest first."""
        rows = self._all(
            "SELECT record, created_clock FROM start_tasks"
            " WHERE status NOT IN ('READY', 'ERROR') ORDER BY created_key, id"
        )
        return [(json.loads(record), clock) for record, clock in rows]

    def _task_filters(
        self, conversation_id: str | None, created_gte: str | None
    ) -> tuple[list[str], list[Any]]:
        where: list[str] = []
        params: list[Any] = []
        if conversation_id is not None:
            where.append("app_conversation_id = ?")
            params.append(conversation_id)
        if created_gte is not None:
            where.append("created_key >= ?")
            params.append(created_gte)
        return where, params

    def search_tasks(
        self,
        *,
        conversation_id: str | None = None,
        created_gte: str | None = None,
        order_by: str = "created_key",
        descending: bool = True,
        after: tuple[str, str] | None = None,
        limit: int = 100,
    ) -> tuple[list[tuple[str, str, dict[str, Any]]], bool]:
        """Rows are ``(sort key, id, task)``; ``order_by`` is created_key or updated_key."""
        if order_by not in ("created_key", "updated_key"):
            raise ValueError(order_by)
        where, params = self._task_filters(conversation_id, created_gte)
        if after is not None:
            where.append(f"({order_by}, id) {'<' if descending else '>'} (?, ?)")
            params.extend(after)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        direction = "DESC" if descending else "ASC"
        rows = self._all(
            f"SELECT {order_by}, id, record FROM start_tasks {clause}"
            f" ORDER BY {order_by} {direction}, id {direction} LIMIT ?",
            (*params, limit + 1),
        )
        out = [(key, tid, json.loads(record)) for key, tid, record in rows[:limit]]
        return out, len(rows) > limit

    def count_tasks(
        self, *, conversation_id: str | None = None, created_gte: str | None = None
    ) -> int:
        where, params = self._task_filters(conversation_id, created_gte)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        row = self._one(f"SELECT count(*) FROM start_tasks {clause}", params)
        return row[0] if row else 0


def _event_columns(event: dict[str, Any], text: str) -> tuple:
    """``(id, timestamp, kind, viewable, parent_id, source, json)`` for one event row."""
    kind = event.get("kind")
    kind = kind if isinstance(kind, str) else ""

    def text_field(name: str) -> str | None:
        value = event.get(name)
        return value if isinstance(value, str) else None

    return (
        text_field("id"),
        text_field("timestamp") or "",
        kind,
        0 if kind in NON_VIEWABLE_KINDS else 1,
        text_field("parent_id"),
        text_field("source"),
        text,
    )
