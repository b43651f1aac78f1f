"""Control-plane records: app conversations, sandboxes, sandbox specs and start tasks.

Each is kept as served JSON (``record``) beside the few columns its listings filter and
sort on, so a listing is one indexed query and a record is served without reshaping.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..times import sort_key
from .base import StoreBase, dumps, like_pattern


class ControlPlane(StoreBase):
    """The ``conversations``, ``sandboxes``, ``sandbox_specs`` and ``start_tasks`` tables."""

    # -- app conversations ------------------------------------------------------------------

    def put_conversation(self, info: dict[str, Any]) -> None:
        """Insert or replace one AppConversationInfo record (``id``, ``created_at``, … as served)."""
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
