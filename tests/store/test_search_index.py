"""The local search index filled from a real loopback server: every event findable, a
restart resumes where the last fill stopped (no event twice, nothing refetched), a changed
conversation is brought up to date, an unreadable file is made again with a word, the size
bound drops least recently used conversations, and the query syntax narrows as documented."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest

from tui.client import OpenHandsClient
from tui.search_index import (
    IndexFiller,
    IndexUnavailable,
    SearchIndex,
    fill_index,
    parse_query,
    search,
)
from tui.search_index.extract import IndexedEvent
from tui.search_index.query import QueryError
from tui.server import Store, load_demo
from tui.server.demo.generated import BASE_TIME, generate_conversation


@pytest.fixture
def demo(make_server):
    store = Store()
    names = load_demo(store)
    return make_server(store), store, names


def _count(store: Store, cid: str) -> int:
    return sum(1 for _ in store.iter_events(cid))


async def test_every_conversation_is_indexed_and_searchable(demo, tmp_path):
    server, store, names = demo
    index = SearchIndex(tmp_path / "i.sqlite3")
    async with OpenHandsClient(server.base_url) as client:
        progress = await fill_index(client, index)
    total = len(store.conversation_ids())
    assert progress.words() == f"indexed {total} of {total} conversations"
    held = dict(
        index.read(
            "SELECT c.id, count(*) FROM events e JOIN conversations c ON c.cid=e.conv GROUP BY c.id"
        )
    )
    assert held == {
        cid: _count(store, cid) for cid in store.conversation_ids() if _count(store, cid)
    }
    found = search(index, "hello.py")
    assert names["hello"] in [group.conversation for group in found.groups]
    hit = found.groups[0].hits[0]
    assert any(lit for _, lit in hit.snippet) and "hello" in hit.snippet_text.lower()
    assert found.status.words().startswith(f"indexed {total} of {total} conversations")


async def test_a_restart_resumes_where_the_fill_stopped(demo, tmp_path):
    server, store, names = demo
    cid = names["hello"]
    path = tmp_path / "i.sqlite3"

    class Crash(Exception):
        pass

    class CrashingClient:
        """The process ends after two pages (a crash, not a server fault)."""

        def __init__(self, client, pages):
            self._client, self.pages, self.asked = client, pages, []

        def __getattr__(self, name):
            return getattr(self._client, name)

        async def search_events_raw(self, conversation_id, **search):
            self.asked.append((conversation_id, search.get("timestamp_gte")))
            if len(self.asked) > self.pages:
                raise Crash
            return await self._client.search_events_raw(conversation_id, **search)

    updated = store.get_conversation(cid)["updated_at"]
    async with OpenHandsClient(server.base_url) as client:
        first = CrashingClient(client, pages=2)
        with pytest.raises(Crash):
            await IndexFiller(first, SearchIndex(path), page=3).conversation(cid, updated)
        index = SearchIndex(path)  # the next run
        state = index.conversations()[cid]
        assert state.events == 6 and not state.complete and state.last_stamp
        again = CrashingClient(client, pages=10**6)
        await IndexFiller(again, index, page=3).conversation(cid, updated, state.last_stamp)
        assert again.asked[0] == (cid, state.last_stamp)  # from where it stopped, not the start
        assert index.conversations()[cid].events == _count(store, cid)
        # a conversation indexed to its end is not read again; the others are, once
        again.asked.clear()
        progress = await IndexFiller(again, index).run()
        assert progress.current == progress.total and not progress.failed
        assert cid not in {asked for asked, _ in again.asked} and again.asked
        again.asked.clear()
        await IndexFiller(again, index).run()
        assert again.asked == []


async def test_a_changed_conversation_is_brought_up_to_date(demo, tmp_path):
    server, store, names = demo
    cid = names["hello"]
    index = SearchIndex(tmp_path / "i.sqlite3")
    async with OpenHandsClient(server.base_url) as client:
        await fill_index(client, index)
        last = list(store.iter_events(cid))[-1]
        store.append_events(
            cid,
            [
                {
                    "id": "late-word",
                    "timestamp": "2099-01-01T00:00:00",
                    "source": "user",
                    "kind": "MessageEvent",
                    "llm_message": {
                        "role": "user",
                        "content": [{"type": "text", "text": "zanzibar quokka"}],
                    },
                    "parent_id": None,
                }
            ],
        )
        info = store.get_conversation(cid)
        store.put_conversation({**info, "updated_at": "2099-01-01T00:00:01"})
        assert not search(index, "quokka").groups
        progress = await fill_index(client, index)
    assert progress.events == 1 and last is not None
    hit = search(index, "quokka").groups[0].hits[0]
    assert (hit.conversation, hit.event_id, hit.kind) == (cid, "late-word", "MessageEvent")


def test_an_unreadable_index_is_made_again_with_a_word(tmp_path):
    path = tmp_path / "i.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    index = SearchIndex(path)
    assert index.notice is not None and "could not be read" in index.notice
    assert index.status().events == 0
    assert (tmp_path / "i.sqlite3.broken").exists()
    # found broken while in use: made again, the search answers (empty), never raises
    index.close()
    path.write_bytes(b"\0" * 4096 + b"garbage" * 1000)
    index._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    assert search(index, "anything").groups == []
    assert "could not be read" in (index.notice or "")


async def test_the_size_bound_drops_least_recently_used_first(make_server, tmp_path):
    store = Store()
    ids = [
        generate_conversation(store, 300, seed=n, start=BASE_TIME + timedelta(days=n))
        for n in range(6)
    ]  # ids[0] the least recently used (the oldest)
    server = make_server(store)
    async with OpenHandsClient(server.base_url) as client:
        whole = SearchIndex(tmp_path / "whole.sqlite3")
        await fill_index(client, whole)
        bound = whole.size() * 6 // 10
        index = SearchIndex(tmp_path / "i.sqlite3", max_bytes=bound)
        progress = await fill_index(client, index)
        assert progress.dropped >= 1
        assert index.size() <= bound
        # over the bound, the least recently used of those held go first
        whole.max_bytes = bound
        dropped = whole.keep_bound()
        assert dropped and dropped == ids[: len(dropped)]
        assert whole.size() <= bound
        whole.touch(ids[len(dropped)])  # opened from a result: now the most recently used
        whole.max_bytes = whole.size() - 1
        assert ids[len(dropped)] not in whole.keep_bound()
        status = index.status()
        assert status.dropped == progress.dropped and "size bound" in status.words()
        again = await fill_index(client, index)  # not fetched again until they change
    assert again.events == 0 and again.dropped == progress.dropped


def test_the_query_syntax():
    query = parse_query(
        'pay* "failed to connect" -flaky kind:action tool:Terminal in:"big refactor"'
    )
    assert query.match == '"pay"* "failed to connect" NOT "flaky"'
    assert (query.kinds, query.tools, query.titles) == (
        ["action"],
        ["terminal"],
        ["big", "refactor"],
    )
    assert parse_query("since:7d", now=10 * 86400).since == 3 * 86400
    assert parse_query("until:1970-01-02").until == 2 * 86400
    assert parse_query('foo:bar "x" AND OR NEAR(').match == '"foo:bar" "x" "AND" "OR" "NEAR("'
    assert parse_query("*** ---").empty
    with pytest.raises(QueryError, match="not a time"):
        parse_query("since:yesterday")


async def test_filters_narrow_the_hits(demo, tmp_path):
    server, _, _ = demo
    index = SearchIndex(tmp_path / "i.sqlite3")
    async with OpenHandsClient(server.base_url) as client:
        await fill_index(client, index)
    for text, check in (
        ("pytest kind:action", lambda h: h.kind == "ActionEvent"),
        ("pytest tool:terminal", lambda h: h.tool == "terminal"),
        ("kind:observation source:environment", lambda h: h.kind == "ObservationEvent"),
        ('test in:"config loader"', lambda h: "config loader" in h.title.lower()),
    ):
        found = search(index, text)
        hits = [hit for group in found.groups for hit in group.hits]
        assert hits and all(check(hit) for hit in hits), text


def test_a_querys_words_as_a_find_pattern():
    """What the conversation's find bar marks after a hit opens it: the words, a phrase's
    words in a row, a prefix as a prefix; filters and excluded words left out."""
    import re

    from tui.search_index import find_pattern

    pattern = re.compile(find_pattern('"step 128" deploy* kind:action -nope'), re.IGNORECASE)
    assert pattern.search("Step  128. echo") and pattern.search("redeploy, deployed")
    assert [m.group() for m in pattern.finditer("deployed step 1280 nope")] == ["deploy"]
    assert find_pattern("since:7d kind:action") is None and find_pattern("") is None


def test_a_locked_index_is_said_never_waited_on_for_ever(tmp_path, monkeypatch):
    """Another ohtui holds the file in a write: writing to it says so in words
    (IndexUnavailable) after a short wait, never a traceback or a hang; reading goes on."""
    from tui.search_index import store as index_store

    monkeypatch.setattr(index_store, "LOCK_WAIT", 0.05)
    path = tmp_path / "i.sqlite3"
    index = SearchIndex(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another ohtui, mid-write
    try:
        word = IndexedEvent("e1", "MessageEvent", "", "user", 1.0, "2026-01-01", "quokka")
        with pytest.raises(IndexUnavailable, match="is locked"):
            index.add_events("c1", [word], None)
        reader = SearchIndex(path)  # opened meanwhile: it reads (WAL), it is not made again
        assert reader.status().events == 0 and search(reader, "quokka").groups == []
        reader.close()
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert index.status().events == 0  # free again: it answers
    assert not (tmp_path / "i.sqlite3.broken").exists()  # a lock is no damage
