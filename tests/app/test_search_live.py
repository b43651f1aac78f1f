"""A followed run's events are found by the search index while it runs (issue 34): added as
they arrive, masked as the fill masks them, where the user has an index for the server; a
watched local folder's new files the same way; no index is made by following alone."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.helpers.app_helpers import (
    conversations_shown,
    make_app,
    push_conversation,
    screen_ready,
    wait_for,
)
from tests.helpers.folder_helpers import compact, event_file, write_folder
from tui.app.screens.search import SearchScreen
from tui.app.search_fill import source_of
from tui.search_index import extract, index_path, search
from tui.server.demo import generate_conversation
from tui.server.folder_watch import start_following
from tui.server.folders import FolderStore

SECRET = "sk-SENTINEL-5ec2e7-key"
LATE = "deadbeef-0000-4000-8000-00000000beef"  # a folder names its files by hex ids


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _following(screen) -> bool:
    """The screen follows its conversation: the history read, the stream connected."""
    live = screen.live
    return (
        live is not None
        and getattr(live.state.connection, "state", "") == "live"
        and screen.events.base.complete
    )


async def _filled_once(pilot) -> None:
    """S, the first fill to its end, back to the list: the user has an index of the server."""
    app = pilot.app
    await wait_for(lambda: conversations_shown(app), pilot=pilot)
    await pilot.press("S")
    await wait_for(lambda: screen_ready(app, SearchScreen), pilot=pilot)
    await wait_for(
        lambda: app.search.progress is not None and app.search.progress.done, pilot=pilot
    )
    await pilot.press("escape")
    await wait_for(lambda: conversations_shown(app), pilot=pilot)


def _found(app, words: str) -> list[tuple[str, str]]:
    index = app.search.index
    if index is None:
        return []
    return [(hit.conversation, hit.event_id) for g in search(index, words).groups for hit in g.hits]


def _stored_text(app, event_id: str) -> str:
    rows = app.search.index.read(
        "SELECT w.text FROM words w JOIN events e ON e.rowid = w.rowid WHERE e.event_id = ?",
        (event_id,),
    )
    return rows[0][0]


async def test_a_followed_runs_events_are_found_while_it_runs(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=(120, 36)) as pilot:
        await _filled_once(pilot)
        assert not _found(app, "quokkaland")
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: _following(screen), pilot=pilot)
        await asyncio.to_thread(
            server.live.send_message_sync, cid, f"ship it to quokkaland with {SECRET}"
        )
        await asyncio.to_thread(server.live.step_sync, cid, 2)
        # the fill is held while the conversation is shown: only the live path can find it
        await wait_for(lambda: _found(app, "quokkaland"), pilot=pilot)
        ((conversation, event_id),) = _found(app, "quokkaland")
        assert conversation == cid
        stored = {e["id"]: e for e in (json.loads(r.json) for r in server.store.iter_events(cid))}
        assert event_id in stored
        # masked exactly as a fill masks the page's copy of the event
        text = _stored_text(app, event_id)
        assert text == extract(stored[event_id]).text and "5ec2e7" not in text
        # a later fill walks on from where its walk stopped: the live event stays one hit
        await pilot.press("escape")
        rounds = app.search.rounds
        app.search.fill()
        await wait_for(lambda: app.search.rounds > rounds, pilot=pilot)
        assert _found(app, "quokkaland") == [(cid, event_id)]


async def test_following_a_run_makes_no_index_for_someone_who_never_searched(live_server):
    server, names = live_server()
    cid = names["live"]
    app = make_app(server.base_url)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: _following(screen), pilot=pilot)
        before = server.store.count_events(cid)
        await asyncio.to_thread(server.live.send_message_sync, cid, "no index please")
        await wait_for(lambda: screen.events.base.raw_total > before, pilot=pilot)
        # the new events were offered to the index, which found no file to add them to
        await wait_for(lambda: app.search._live_worker is not None, pilot=pilot)
        await app.search._live_worker.wait()
        assert app.search.index is None
        assert not index_path(source_of(app)).exists()


async def test_a_watched_folders_new_events_are_found(make_server, tmp_path):
    from tui.server import Store

    sqlite = Store()
    cid = generate_conversation(sqlite, 6, seed=4)
    events = [json.loads(row.json) for row in sqlite.iter_events(cid)]
    sqlite.close()
    folder = write_folder(tmp_path / "folders", cid, events[:5])
    store = FolderStore(tmp_path / "folders")
    server = make_server(store)
    start_following(server, store, watch=False)  # as ``ohtui PATH`` does (polling here)
    app = make_app(server.base_url, readonly=True, local=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await _filled_once(pilot)
        screen = await push_conversation(pilot, cid)
        await wait_for(lambda: _following(screen), pilot=pilot)
        late = {
            "id": LATE,
            "timestamp": events[5]["timestamp"],
            "source": "agent",
            "kind": "MessageEvent",
            "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "wombatix"}]},
            "parent_id": None,
        }
        event_file(folder, 5, late).write_text(compact(late))
        await wait_for(lambda: _found(app, "wombatix") == [(cid, LATE)], pilot=pilot)
