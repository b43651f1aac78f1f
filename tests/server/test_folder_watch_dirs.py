"""The folder watcher watches directories, not trees (``folder_watch.watched_dirs``): a
conversation folder made after it started is watched too, so its new event files reach
followers with no polling at all."""

from __future__ import annotations

import json

from tests.helpers.app_helpers import wait_for
from tests.helpers.folder_helpers import compact, event_file, write_folder
from tests.server.test_folder_watch import NEVER, agent_events, collect, subscribe, wait_ready
from tui.server.folder_watch import start_following, watched_dirs
from tui.server.folders import FolderStore


def test_the_watched_dirs_are_the_folders_and_their_events(tmp_path):
    cid, events = agent_events(3, seed=1)
    folder = write_folder(tmp_path / "root", cid, events)
    (tmp_path / "root" / "waiting").mkdir()  # no events yet: watched for its events/
    (tmp_path / "root" / "notes.txt").write_text("not a folder")
    assert set(watched_dirs(tmp_path / "root")) == {
        tmp_path / "root",
        folder,
        folder / "events",
        tmp_path / "root" / "waiting",
    }
    assert watched_dirs(folder) == [folder, folder / "events"]  # PATH is one conversation


async def test_a_conversation_folder_made_later_is_watched_too(make_server, tmp_path):
    first, first_events = agent_events(4, seed=2)
    write_folder(tmp_path, first, first_events)
    store = FolderStore(tmp_path)
    server = make_server(store)
    watcher = start_following(server, store, poll_s=NEVER, sweep_s=NEVER)
    await wait_ready(watcher)
    cid, events = agent_events(12, seed=5)
    folder = write_folder(tmp_path, cid, events[:4])  # a new conversation, while watched
    await wait_for(lambda: cid in store.logs and folder / "events" in watcher.dirs, timeout=30)
    ws = await subscribe(server, store, cid)
    ids: list[str] = []
    try:
        await collect(ws, ids, 4)
        for index in range(4, len(events)):  # only the watcher can wake the follower
            event_file(folder, index, events[index]).write_text(compact(events[index]))
        await collect(ws, ids, len(events))
    finally:
        await ws.close()
    assert ids == [e["id"] for e in events]


def test_a_listing_shows_what_a_conversation_became_since_it_was_found(tmp_path):
    """Found before its first message (only base_state.json), listed again once the agent
    wrote its events and finished: the listing has its title and status, not the first ones."""
    cid, events = agent_events(6, seed=4)
    folder = tmp_path / cid
    folder.mkdir()
    (folder / "base_state.json").write_text(json.dumps({"id": cid, "execution_status": "idle"}))
    store = FolderStore(tmp_path)
    [(_, _, found)] = store.search_conversations()[0]
    assert found["title"] == cid and found["execution_status"] == "idle"
    write_folder(tmp_path, cid, events, state={"id": cid, "execution_status": "finished"})
    [(_, _, listed)] = store.search_conversations()[0]
    assert listed["execution_status"] == "finished" and listed["title"] != cid
