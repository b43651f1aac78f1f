"""What a person types, read into an FTS5 match and filters, and the hits grouped.

``migration "failed to connect" pay* kind:action tool:terminal source:agent
in:"payments refactor" since:7d until:2026-11-30``: words must all be there (``-word``:
must not), a quoted phrase in that order, ``word*`` a prefix; the filters narrow by the
event's kind (``action`` means ``ActionEvent`` too), tool, source, words of the
conversation's title, and time (a date, or ``7d``/``12h``/``2w`` ago). Every word goes to
FTS5 quoted, so no text a person types is FTS5 syntax; a word made only of punctuation
matches nothing and is left out. An unknown ``name:`` is a word like any other.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from .store import IndexStatus, SearchIndex, time_rowid

HIGHLIGHT_ON, HIGHLIGHT_OFF = "\x01", "\x02"  # never in stored text (it is cleaned)
SNIPPET_TOKENS = 14
#: Matches up to which "best first" weighs them (see ``search``); past it, newest first.
RANKED = 2_000
FILTERS = ("kind", "tool", "source", "in", "since", "until")
_TOKEN = re.compile(r'(-?)(?:(\w+):"([^"]*)"?|(\w+):(\S+)|"([^"]*)"?|(\S+))')
_AGO = re.compile(r"(\d{1,5})([hdw])", re.IGNORECASE)
_HAS_WORD = re.compile(r"\w")


class QueryError(ValueError):
    """A filter that cannot be read (a date that is none), in words."""


@dataclass
class Query:
    terms: list[str] = field(default_factory=list)  # FTS5 terms, quoted
    excluded: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    since: float | None = None
    until: float | None = None

    @property
    def match(self) -> str:
        """The FTS5 expression ("" when only filters were given)."""
        if not self.terms:
            return ""
        return " ".join(self.terms + [f"NOT {term}" for term in self.excluded])

    @property
    def empty(self) -> bool:
        return not (self.terms or self.kinds or self.tools or self.sources or self.titles) and (
            self.since is None and self.until is None
        )


def _quoted(words: str, prefix: bool = False) -> str | None:
    if not _HAS_WORD.search(words):
        return None
    return '"' + words.replace('"', '""') + '"' + ("*" if prefix else "")


def _when(value: str, name: str, now: float) -> float:
    ago = _AGO.fullmatch(value)
    if ago:
        hours = {"h": 1, "d": 24, "w": 24 * 7}[ago.group(2).lower()]
        return now - int(ago.group(1)) * hours * 3600
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise QueryError(
            f"{name}:{value} is not a time: give a date (2026-11-01) or an age (7d, 12h, 2w)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    if name == "until" and len(value) <= 10:  # a whole day: up to its end
        when += timedelta(days=1)
    return when.timestamp()


def parse_query(text: str, now: float | None = None) -> Query:
    """``text`` read (see the module doc); :class:`QueryError` for a time that is none."""
    now = time.time() if now is None else now
    query = Query()
    for match in _TOKEN.finditer(text):
        negated, qname, qvalue, name, value, phrase, word = match.groups()
        name, value = (qname, qvalue) if qname is not None else (name, value)
        if name is not None and name.lower() in FILTERS:
            _filter(query, name.lower(), value, now)
            continue
        if name is not None:  # not a filter: the words it is made of
            word = f"{name}:{value}"
        if phrase is not None:
            term = _quoted(phrase)
        else:
            prefix = word.endswith("*")
            term = _quoted(word.rstrip("*"), prefix)
        if term is not None:
            (query.excluded if negated else query.terms).append(term)
    return query


def find_pattern(text: str) -> str | None:
    """The words ``text`` searches for as a regular expression for a conversation's find
    bar (each word, a phrase's words in a row, a prefix as a prefix; filters and excluded
    words left out), so the hit that opens a conversation shows its words; None: none."""
    try:
        terms = parse_query(text).terms
    except QueryError:
        return None
    pieces = []
    for term in terms:
        prefix = term.endswith("*")
        words = re.findall(r"\w+", term[1 : term.rindex('"')].replace('""', '"'))
        if words:
            piece = r"\W+".join(re.escape(word) for word in words)
            pieces.append(rf"\b{piece}" + ("" if prefix else r"\b"))  # words: \b is exact
    return "|".join(pieces) or None


def _filter(query: Query, name: str, value: str, now: float) -> None:
    value = value.strip()
    if not value:
        return
    if name == "since":
        query.since = _when(value, name, now)
    elif name == "until":
        query.until = _when(value, name, now)
    elif name == "in":
        query.titles.extend(value.lower().split())
    else:
        {"kind": query.kinds, "tool": query.tools, "source": query.sources}[name].append(
            value.lower()
        )


@dataclass(frozen=True)
class Hit:
    conversation: str
    title: str
    event_id: str
    kind: str
    tool: str
    source: str
    time: float | None
    snippet: tuple[tuple[str, bool], ...]  # (text, highlighted) pieces, cleaned, one line

    @property
    def snippet_text(self) -> str:
        return "".join(text for text, _ in self.snippet)


@dataclass
class Group:
    """A conversation's hits, best (or newest) first."""

    conversation: str
    title: str
    hits: list[Hit] = field(default_factory=list)


@dataclass
class Results:
    query: str
    groups: list[Group]
    hits: int
    limited: bool  # more hits than the limit
    status: IndexStatus
    newest_over: int | None = None  # more matches than this: newest first, not best


def snippet_pieces(marked: str) -> tuple[tuple[str, bool], ...]:
    """FTS5's snippet (highlights between the markers) as pieces on one line."""
    flat = " ".join(marked.split())
    pieces: list[tuple[str, bool]] = []
    for index, chunk in enumerate(re.split(f"[{HIGHLIGHT_ON}{HIGHLIGHT_OFF}]", flat)):
        if chunk:
            pieces.append((chunk, index % 2 == 1))
    return tuple(pieces)


def _where(query: Query) -> tuple[list[str], list[object]]:
    where: list[str] = []
    params: list[object] = []
    for column, wanted in (("e.kind", query.kinds), ("e.tool", query.tools)):
        if wanted:
            names = [n for value in wanted for n in (value, f"{value}event")]
            where.append(f"lower({column}) IN ({','.join('?' * len(names))})")
            params.extend(names)
    if query.sources:
        where.append(f"lower(e.source) IN ({','.join('?' * len(query.sources))})")
        params.extend(query.sources)
    for word in query.titles:
        escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where.append("lower(c.title) LIKE ? ESCAPE '\\'")
        params.append(f"%{escaped}%")
    if query.since is not None:  # the row id range first: the index skips to it
        where.append("e.rowid >= ? AND e.ts >= ?")
        params.extend((time_rowid(query.since), query.since))
    if query.until is not None:
        where.append("e.rowid < ? AND e.ts < ?")
        params.extend((time_rowid(query.until), query.until))
    return where, params


def search(
    index: SearchIndex,
    text: str,
    *,
    limit: int = 100,
    newest: bool = False,
    now: float | None = None,
) -> Results:
    """The hits of ``text`` (at most ``limit``), grouped by conversation in the order of
    their best hit: by relevance, or ``newest`` first (always so with filters alone).

    Relevance (bm25) reads every match to weigh a word's rarity: for a word in a third of a
    million events that is tens of milliseconds at every keystroke. So past :data:`RANKED`
    matches the hits are the newest, which is the index's own order (row ids are times,
    ``store.TIME_SHIFT``) and costs only the hits read (``Results.newest_over`` says so)."""
    query = parse_query(text, now)
    status = index.status()
    if query.empty:
        return Results(text, [], 0, False, status)
    where, params = _where(query)
    on = f"'{HIGHLIGHT_ON}'", f"'{HIGHLIGHT_OFF}'"
    columns = "c.id, c.title, e.event_id, e.kind, e.tool, e.source, e.ts"
    newest_over = None
    if query.match:
        body = (
            " FROM words JOIN events e ON e.rowid = words.rowid"
            " JOIN conversations c ON c.cid = e.conv WHERE words MATCH ?"
            + "".join(f" AND {each}" for each in where)
        )
        params.insert(0, query.match)
        order = "words.rowid DESC"
        if not newest:
            many = index.read(
                f"SELECT words.rowid{body} ORDER BY words.rowid DESC LIMIT 1 OFFSET ?",
                [*params, RANKED - 1],
            )
            if many:  # weighing reads every match: newest first (the index's own order)
                newest_over = RANKED
            else:
                order = "rank"
        sql = f"SELECT {columns}, snippet(words, 0, {on[0]}, {on[1]}, '…', {SNIPPET_TOKENS})"
        sql += body
    else:
        sql = (
            f"SELECT {columns}, substr(w.text, 1, 160) FROM events e"
            " JOIN conversations c ON c.cid = e.conv LEFT JOIN words w ON w.rowid = e.rowid"
            " WHERE 1" + "".join(f" AND {each}" for each in where)
        )
        order = "e.rowid DESC"
    rows = index.read(f"{sql} ORDER BY {order} LIMIT ?", [*params, limit + 1])
    limited = len(rows) > limit
    groups: dict[str, Group] = {}
    for cid, title, event_id, kind, tool, source, ts, snippet in rows[:limit]:
        group = groups.get(cid)
        if group is None:
            group = groups[cid] = Group(cid, title or "")
        hit = Hit(cid, title or "", event_id, kind, tool, source, ts, snippet_pieces(snippet or ""))
        group.hits.append(hit)
    hits = min(len(rows), limit)
    return Results(text, list(groups.values()), hits, limited, status, newest_over)
