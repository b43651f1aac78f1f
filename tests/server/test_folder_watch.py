"""Following a conversation folder while an agent writes it: new event files reach websocket
followers once and in order, woken by the file watcher, or by polling where there is none."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from tests.helpers.app_helpers import wait_for
from tests.helpers.folder_helpers import compact, event_file, write_folder
from tui.server import Store
from tui.server.demo import generate_conversation
from tui.server.folder_watch import FolderWatcher, start_following
from tui.server.folders import FolderStore

NEVER = 3600.0  # a poll interval no test waits for: only the watcher can deliver


def agent_events(n: int, seed: int) -> tuple[str, list[dict]]:
    sqlite = Store()
    cid = generate_conversation(sqlite, n, seed=seed)
    events = [json.loads(row.json) for row in sqlite.iter_events(cid)]
    sqlite.close()
    return cid, events


async def collect(ws, ids: list[str], want: int, timeout: float = 15.0) -> None:
    """Event ids of the frames received (full_state snapshots left out) until ``want`` came."""

    async def run() -> None:
        while len(ids) < want:
            frame = json.loads(await ws.recv())
            if (
                frame.get("kind") == "ConversationStateUpdateEvent"
                and frame.get("key") == "full_state"
            ):
                continue
            ids.append(frame["id"])

    await asyncio.wait_for(run(), timeout)


async def write_steadily(
    folder, events: list[dict], start: int, *, half_at: int | None = None
) -> None:
    """Write ``events[start:]`` one file every 20 ms, as the agent does; the file at ``half_at``
    is first written half, then completed 300 ms later (while nothing else is written)."""
    for index in range(start, len(events)):
        path, text = event_file(folder, index, events[index]), compact(events[index])
        if index == half_at:
            path.write_text(text[: len(text) // 2])
            await asyncio.sleep(0.3)
        path.write_text(text)
        await asyncio.sleep(0.02)


async def subscribe(server, store: FolderStore, cid: str):
    info = store.get_conversation(cid)
    key = store.get_sandbox(info["sandbox_id"])["session_api_key"]
    ws = await websockets.connect(f"{server.ws_url}/sockets/events/{cid}?resend_mode=all")
    await ws.send(json.dumps({"type": "auth", "session_api_key": key}))
    return ws


async def wait_ready(watcher: FolderWatcher) -> None:
    await wait_for(lambda: watcher.ready or watcher.error, timeout=30)
    assert watcher.ready, watcher.error


@pytest.mark.parametrize("mode", ["watcher", "polling"])
async def test_new_event_files_reach_followers_once_and_in_order(mode, make_server, tmp_path):
    cid, events = agent_events(81, seed=7)  # the last one written after the rest, alone
    folder = write_folder(tmp_path, cid, events[:10])
    store = FolderStore(tmp_path)
    server = make_server(store)
    if mode == "watcher":  # polling so rare that only the watcher's wake-ups can deliver
        watcher = start_following(server, store, poll_s=NEVER, sweep_s=NEVER)
        await wait_ready(watcher)
    else:
        assert start_following(server, store, watch=False, poll_s=0.1) is None
    ws = await subscribe(server, store, cid)
    ids: list[str] = []
    try:
        await collect(ws, ids, 10)  # the replay of what was there
        await asyncio.gather(
            write_steadily(folder, events[:-1], 10, half_at=40), collect(ws, ids, len(events) - 1)
        )
        # no file is sent twice: one more file, and the next frame is that one (a file sent
        # again before it would come first; the socket keeps the order)
        event_file(folder, len(events) - 1, events[-1]).write_text(compact(events[-1]))
        await collect(ws, ids, len(events))
    finally:
        await ws.close()
    assert ids == [e["id"] for e in events]


async def test_a_status_change_in_base_state_reaches_followers(make_server, tmp_path):
    cid, events = agent_events(6, seed=3)
    folder = write_folder(tmp_path, cid, events, state={"id": cid, "execution_status": "running"})
    store = FolderStore(tmp_path)
    server = make_server(store)
    await wait_ready(start_following(server, store, poll_s=NEVER, sweep_s=NEVER))
    ws = await subscribe(server, store, cid)
    try:
        first = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert first["key"] == "full_state" and first["value"]["execution_status"] == "running"
        (folder / "base_state.json").write_text(
            json.dumps({"id": cid, "execution_status": "finished"})
        )

        async def next_state() -> dict:
            while True:
                frame = json.loads(await ws.recv())
                if frame.get("key") == "full_state":
                    return frame["value"]

        assert (await asyncio.wait_for(next_state(), 10))["execution_status"] == "finished"
    finally:
        await ws.close()


async def test_without_watchfiles_the_watcher_says_so(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "watchfiles", None)  # as if it were not installed
    watcher = FolderWatcher(tmp_path).start()
    await wait_for(lambda: watcher.error, timeout=30)
    watcher.stop()
    assert (
        watcher.error == "watchfiles is not installed" and not watcher.ready
    )  # the follower polls
