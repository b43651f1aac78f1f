"""Search every conversation at once: a local full-text index (no Textual).

One SQLite file with an FTS5 table per server or local folder root, in the user's cache
folder (:func:`.store.index_path`). Each event is stored as the words a person searches
(messages, thoughts, commands, outputs' heads, paths, tool names, errors), masked by the
screen's secrets policy before it is written (:mod:`.extract`), with its conversation,
id, kind, tool, source and time. :mod:`.fill` brings it up to date from a client (newest
conversations first, resumable, a few at a time, the client's one page walk and retry
rules), :mod:`.query` reads what a person types and groups the hits, :mod:`.store` keeps
the file (rebuilt with a word when unreadable, bounded in size: least recently used
conversations dropped first); :mod:`.live` adds events as they arrive.
"""

from __future__ import annotations

from .extract import IndexedEvent, extract
from .fill import FillProgress, IndexFiller, fill_index
from .live import add_arrived
from .query import Group, Hit, QueryError, Results, find_pattern, parse_query, search
from .store import (
    DEFAULT_MAX_BYTES,
    IndexStatus,
    IndexUnavailable,
    SearchIndex,
    fts5_problem,
    index_path,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FillProgress",
    "Group",
    "Hit",
    "IndexFiller",
    "IndexStatus",
    "IndexUnavailable",
    "IndexedEvent",
    "QueryError",
    "Results",
    "SearchIndex",
    "add_arrived",
    "extract",
    "fill_index",
    "find_pattern",
    "fts5_problem",
    "index_path",
    "parse_query",
    "search",
]
