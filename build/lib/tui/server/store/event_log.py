"""Event logs: append, page by keyset, count, fetch by id, replay in log order.

Events are kept as JSON text exactly as they will be served (see :meth:`EventLog.append_events`)
so a page is served by splicing stored strings, never by re-parsing them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tui.models import NON_VIEWABLE_KINDS, RawEvent, parse_event

from .base import EventRow, StoreBase, dumps


class EventLog(StoreBase):
    """The ``events`` table: one row per event, ``seq`` its log position."""

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
        upto_seq: int | None = None,
    ) -> tuple[list[str], list[Any]]:
        where, params = ["conversation_id = ?"], [conversation_id]
        if upto_seq is not None:
            where.append("seq <= ?")
            params.append(upto_seq)
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
        log_order: bool = False,
        upto_seq: int | None = None,
        max_bytes: int | None = None,
    ) -> tuple[list[EventRow], EventRow | None]:
        """One page in ``(timestamp, seq)`` order, starting after the keyset ``after``.

        Returns the rows and the row after them (None: none follows). ``max_bytes``: the
        page ends before a row that would take its texts past it (``base.take_page``; rows
        are read one at a time, so the rest are never read). The keyset condition and the
        ORDER BY match an index, so the cost does not depend on how deep the page is.
        ``viewable_only`` drops NON_VIEWABLE_KINDS inside the query: every page is full
        except the last, which is what the service's refill loop achieves. ``log_order``:
        by ``seq`` alone (the agent server's order, whatever the timestamps say; ``after``'s
        seq is the keyset). ``upto_seq``: only the log up to there (an app server's stored
        copy that lags, ``live/webhook.py``).
        """
        if viewable_only and kind in NON_VIEWABLE_KINDS:
            return [], None
        if log_order:
            where, params = self._event_filters(
                conversation_id, kind, timestamp_gte, timestamp_lt, viewable_only, upto_seq
            )
            if after is not None:
                where.append("seq < ?" if descending else "seq > ?")
                params.append(after[1])
            sql = (
                f"SELECT timestamp, seq, json FROM events WHERE {' AND '.join(where)}"
                f" ORDER BY seq{' DESC' if descending else ''} LIMIT ?"
            )
            return self._page(sql, params, limit, max_bytes)
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
            conversation_id, kind, timestamp_gte, timestamp_lt, viewable_only, upto_seq
        )
        if after is not None:
            where.append("(timestamp, seq) < (?, ?)" if descending else "(timestamp, seq) > (?, ?)")
            params.extend(after)
        order = "timestamp DESC, seq DESC" if descending else "timestamp, seq"
        sql = (
            f"SELECT timestamp, seq, json FROM events WHERE {' AND '.join(where)}"
            f" ORDER BY {order} LIMIT ?"
        )
        return self._page(sql, params, limit, max_bytes)

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
        if viewable_only and kind in NON_VIEWABLE_KINDS:
            return 0
        where, params = self._event_filters(
            conversation_id, kind, timestamp_gte, timestamp_lt, viewable_only, upto_seq
        )
        row = self._one(f"SELECT count(*) FROM events WHERE {' AND '.join(where)}", params)
        return row[0] if row else 0

    def get_events(
        self,
        conversation_id: str,
        ids: Sequence[str],
        *,
        viewable_only: bool = False,
        upto_seq: int | None = None,
    ) -> list[str | None]:
        """JSON text of each requested event id (``None`` where missing), in request order."""
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        marks = ",".join("?" * len(unique))
        view = " AND viewable = 1" if viewable_only else ""
        upto = "" if upto_seq is None else f" AND seq <= {int(upto_seq)}"
        rows = self._all(
            f"SELECT id, json FROM events WHERE conversation_id = ? AND id IN ({marks})"
            f"{view}{upto}",
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

    def event_id_at(self, conversation_id: str, seq: int) -> str | None:
        """The id the event at log position ``seq`` is found by (:meth:`event_position`'s),
        without reading its text: the agent server's next page id."""
        row = self._one(
            "SELECT id FROM events WHERE conversation_id = ? AND seq = ?", (conversation_id, seq)
        )
        return row[0] if row else None

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
            " AND kind != 'StreamingDeltaEvent' ORDER BY seq DESC LIMIT 1",
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
        max_bytes: int | None = None,
    ) -> list[EventRow]:
        """Events in log (``seq``) order after ``after_seq`` and up to ``upto_seq`` inclusive,
        optionally only those with ``timestamp >= timestamp_gte``: one replay batch, of at
        most ``max_bytes`` of texts (its first row whatever it weighs)."""
        where = ["conversation_id = ?", "seq > ?"]
        params: list[Any] = [conversation_id, after_seq]
        if upto_seq is not None:
            where.append("seq <= ?")
            params.append(upto_seq)
        if timestamp_gte is not None:
            where.append("timestamp >= ?")
            params.append(timestamp_gte)
        sql = f"SELECT timestamp, seq, json FROM events WHERE {' AND '.join(where)} ORDER BY seq LIMIT ?"
        return self._page(sql, params, limit, max_bytes, following=False)[0]

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
