"""Local conversation folders through the reference server's routes: real samples, paging
equal to the SQLite store, lazy reading, bad and half-written files, and the app on top."""

from __future__ import annotations

import json

import pytest

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    push_conversation,
    settled,
    tree_ready,
    wait_for,
)
from tests.helpers.folder_helpers import write_folder
from tests.helpers.samples import SAMPLES
from tui.app.notices import status_value
from tui.app.screens.conversation import ConversationScreen
from tui.client import OpenHandsClient
from tui.models import RawEvent
from tui.server import Store
from tui.server.demo import generate_conversation
from tui.server.folders import FolderStore, conversation_folders

PERSISTED = SAMPLES / "agent-server-capture" / "persisted"
CLI = SAMPLES / "cli-trajectories"


@pytest.mark.parametrize("root", [PERSISTED, CLI], ids=["agent-server", "cli"])
async def test_real_sample_folders_are_served_in_file_order(root, make_server):
    store = FolderStore(root)
    assert len(store.logs) == len(conversation_folders(root)) >= 5
    server = make_server(store)
    async with OpenHandsClient(server.base_url) as client:
        page = await client.search_conversations(limit=100)
        assert {c.id for c in page.items} == set(store.logs)
        for conv in page.items:
            log = store.logs[conv.id]
            assert conv.title
            assert await client.count_events(conv.id) == len(log)
            events = [e async for e in client.iter_events(conv.id)]
            assert [e.id for e in events] == log.ids  # the index in the file name is the order
            assert not [e for e in events if isinstance(e, RawEvent)]


async def test_paging_and_filters_equal_the_sqlite_store(make_server, tmp_path):
    sqlite = Store()
    cid = generate_conversation(sqlite, 2_000, seed=9)
    rows = sorted(
        sqlite.iter_events(cid), key=lambda r: (r.timestamp, r.seq)
    )  # write files in that order
    write_folder(tmp_path, cid, [json.loads(r.json) for r in rows])
    folder_server, sqlite_server = make_server(FolderStore(tmp_path)), make_server(sqlite)
    some = json.loads(rows[700].json)["timestamp"]
    queries = [
        {},
        {"sort_order": "TIMESTAMP_DESC"},
        {"kind": "ActionEvent"},
        {"kind": "ObservationEvent", "sort_order": "TIMESTAMP_DESC"},
        {"timestamp_gte": some},
        {"timestamp_lt": some, "kind": "MessageEvent"},
    ]
    async with (
        OpenHandsClient(folder_server.base_url) as local,
        OpenHandsClient(sqlite_server.base_url) as db,
    ):
        for query in queries:
            got = [e.id async for e in local.iter_events(cid, **query)]
            want = [e.id async for e in db.iter_events(cid, **query)]
            assert got == want and got, query
            filters = {k: v for k, v in query.items() if k != "sort_order"}
            assert await local.count_events(cid, **filters) == await db.count_events(cid, **filters)


async def test_a_large_folder_is_read_lazily(make_server, tmp_path):
    events = [
        {
            "id": f"00000000-0000-4000-8000-{n:012d}",
            "timestamp": f"2026-01-01T00:{n // 6000:02d}:{n // 100 % 60:02d}.{n:06d}",
            "source": "agent",
            "parent_id": None,
            "kind": "MessageEvent",
            "llm_message": {
                "role": "assistant",
                "content": [{"type": "text", "text": f"step {n}"}],
            },
        }
        for n in range(5_000)
    ]
    cid = "ab" * 16
    write_folder(tmp_path, cid, events)
    store = FolderStore(tmp_path)
    server = make_server(store)
    async with OpenHandsClient(server.base_url) as client:
        assert await client.count_events(cid) == 5_000
        page = await client.search_events(cid, limit=100)
        assert [e.id for e in page.items] == [e["id"] for e in events[:100]]
    assert len(store._bodies) <= 150  # a page, the newest file and a title: not the 5,000 files


async def test_bad_files_and_unknown_kinds_are_raw_and_a_half_written_newest_file_waits(
    make_server, tmp_path
):
    sqlite = Store()
    cid = generate_conversation(sqlite, 10, seed=2)
    events = [json.loads(r.json) for r in sqlite.iter_events(cid)]
    folder = write_folder(tmp_path, cid, events[:9])
    (folder / "events" / f"event-00004-{events[4]['id']}.json").write_text(
        '{"id": "broken", '
    )  # corrupt, mid-log
    future = {**events[6], "kind": "EventFromTheFuture"}  # a kind this version does not know
    (folder / "events" / f"event-00006-{events[6]['id']}.json").write_text(json.dumps(future))
    half = folder / "events" / f"event-00009-{events[9]['id']}.json"
    half.write_text(json.dumps(events[9])[:40])  # the agent is still writing it
    server = make_server(FolderStore(tmp_path))
    async with OpenHandsClient(server.base_url) as client:
        got = [e async for e in client.iter_events(cid)]
        assert len(got) == 9 and events[9]["id"] not in [e.id for e in got]
        raw = [e for e in got if isinstance(e, RawEvent)]
        assert [e.id for e in raw] == [events[4]["id"], events[6]["id"]]
        assert "UnreadableEventFile" in raw[0].error + json.dumps(raw[0].raw)
        assert raw[1].raw == future  # kept as it was written
        half.write_text(json.dumps(events[9], separators=(",", ":")))  # now complete
        got = [e async for e in client.iter_events(cid)]
        assert len(got) == 10 and got[-1].id == events[9]["id"]
        new_id = "11111111-2222-4333-8444-555555555555"
        (folder / "events" / f"event-00010-{new_id}.json").write_text(
            json.dumps({**events[9], "id": new_id})
        )
        assert await client.count_events(cid) == 11  # new files are picked up


async def test_the_app_browses_real_folders(make_server):
    store = FolderStore(PERSISTED)
    server = make_server(store)
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == len(store.logs), pilot=pilot)
        cid = max(store.logs, key=lambda c: len(store.logs[c]))
        app.open_conversation(cid)
        await wait_for(lambda: isinstance(app.screen, ConversationScreen), pilot=pilot)
        screen = app.screen
        await wait_for(lambda: list_ready(screen) and tree_ready(screen), pilot=pilot)
        assert [row.id for row in screen.events.base.head] == store.logs[cid].ids
        assert screen.window.events == len(store.logs[cid].ids)  # its steps stand for all


def test_ohtui_path_refuses_a_folder_without_conversations(tmp_path, capsys):
    from tui.cli import main

    assert main([str(tmp_path)]) == 2
    assert "no OpenHands conversation folders" in capsys.readouterr().err


async def test_a_folder_being_written_shows_up_live_once_and_in_order(make_server, tmp_path):
    import asyncio

    from tui.server.folder_watch import start_following

    sqlite = Store()
    cid = generate_conversation(sqlite, 60, seed=5)
    events = [json.loads(r.json) for r in sqlite.iter_events(cid)]
    folder = write_folder(tmp_path, cid, events[:20])
    store = FolderStore(tmp_path)
    server = make_server(store)
    start_following(server, store)
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, cid)
        await wait_for(
            lambda: (
                list_ready(screen)
                and screen.events.base.complete
                and screen.live is not None
                and screen.live.state.connection is not None
                and screen.live.state.connection.state == "live"
            ),
            pilot=pilot,
        )
        directory = folder / "events"
        for index in range(20, 60):  # the agent writes one file every 20 ms
            path = directory / f"event-{index:05d}-{events[index]['id']}.json"
            text = json.dumps(events[index], separators=(",", ":"))
            if index == 45:  # half written now, completed later
                path.write_text(text[: len(text) // 2])
                await asyncio.sleep(0.6)
            path.write_text(text)
            await asyncio.sleep(0.02)
        want = [e["id"] for e in events]
        await wait_for(lambda: [r.id for r in screen.events.base.head] == want, pilot=pilot)


def test_snapshot_of_a_real_conversation_folder(snap_compare, make_server):
    store = FolderStore(PERSISTED)
    server = make_server(store)
    cid = max(store.logs, key=lambda c: len(store.logs[c]))

    async def run_before(pilot):
        screen = await push_conversation(pilot, cid)
        await wait_for(
            lambda: (
                list_ready(screen)
                and tree_ready(screen)
                and screen.query_one("#event-detail")._event is not None
            ),
            pilot=pilot,
        )
        screen.query_one("#event-tree").focus()
        await settled(pilot)

    assert snap_compare(
        make_app(server.base_url, readonly=True, local=True),
        run_before=run_before,
        terminal_size=SIZE,
    )


async def test_new_folders_and_status_changes_are_picked_up(make_server, tmp_path):
    from tui.server.folder_watch import start_following

    sqlite = Store()
    first = generate_conversation(sqlite, 5, seed=1)
    folder = write_folder(tmp_path, first, [json.loads(r.json) for r in sqlite.iter_events(first)])
    (folder / "base_state.json").write_text(
        json.dumps({"id": first, "execution_status": "running"})
    )
    store = FolderStore(tmp_path)
    server = make_server(store)
    start_following(server, store)
    async with OpenHandsClient(server.base_url) as client:
        page = await client.search_conversations(limit=10)
        assert [c.id for c in page.items] == [first]
        assert status_value(page.items[0].execution_status) == "running"
        second = generate_conversation(sqlite, 3, seed=2)
        write_folder(tmp_path, second, [json.loads(r.json) for r in sqlite.iter_events(second)])
        page = await client.search_conversations(limit=10)
        assert {c.id for c in page.items} == {first, second}  # a new conversation appears
        (folder / "base_state.json").write_text(
            json.dumps({"id": first, "execution_status": "finished"})
        )
        (found,) = await client.get_conversations([first])
        assert status_value(found.execution_status) == "finished"
    app = make_app(server.base_url, readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, first)
        await wait_for(
            lambda: screen.live is not None and screen.live.state.execution_status is not None,
            pilot=pilot,
        )
        (folder / "base_state.json").write_text(
            json.dumps({"id": first, "execution_status": "error"})
        )
        await wait_for(
            lambda: status_value(screen.live.state.execution_status) == "error", pilot=pilot
        )


def test_a_folder_made_before_its_first_event_file_is_found_and_titled_later(tmp_path):
    """The agent makes ``<id>/events/`` first and writes into it after; the CLI keeps no
    meta.json, so the title waits for the first user message."""
    sqlite = Store()
    first = generate_conversation(sqlite, 3, seed=1)
    write_folder(tmp_path, first, [json.loads(r.json) for r in sqlite.iter_events(first)])
    store = FolderStore(tmp_path)
    second = generate_conversation(sqlite, 6, seed=2)
    events = [json.loads(r.json) for r in sqlite.iter_events(second)]
    user = next(
        i for i, e in enumerate(events) if e["kind"] == "MessageEvent" and e["source"] == "user"
    )
    folder = tmp_path / second
    (folder / "events").mkdir(parents=True)
    assert store.rescan() == []  # a folder, no event yet: not a conversation yet
    for index in range(user):  # everything before the user's message
        (folder / "events" / f"event-{index:05d}-{events[index]['id']}.json").write_text(
            json.dumps(events[index])
        )
    assert store.rescan() == [second]
    assert store.get_conversation(second)["title"] == second  # the folder's name, for now
    for index in range(user, len(events)):
        (folder / "events" / f"event-{index:05d}-{events[index]['id']}.json").write_text(
            json.dumps(events[index])
        )
    (found,) = store.get_conversations([second])
    text = events[user]["llm_message"]["content"][0]["text"]
    assert found["title"] == text.splitlines()[0][:120]
    sqlite.close()


def test_a_conversation_started_with_no_message_is_listed_and_its_events_come_later(tmp_path):
    """The SDK writes meta.json and base_state.json when a conversation starts; events/ comes
    with the first event. Such a folder is a conversation at once (0 events, not invisible to
    ``ohtui PATH`` and ``ohtui export FOLDER``) and its events are read once they exist."""
    sqlite = Store()
    cid = generate_conversation(sqlite, 4, seed=5)
    events = [json.loads(r.json) for r in sqlite.iter_events(cid)]
    folder = tmp_path / cid
    folder.mkdir()
    (folder / "meta.json").write_text(json.dumps({"id": cid, "title": "No message yet"}))
    (folder / "base_state.json").write_text(json.dumps({"execution_status": "idle"}))
    assert conversation_folders(tmp_path) == [folder]
    assert conversation_folders(folder) == [folder]
    store = FolderStore(tmp_path)
    (found,) = store.get_conversations([cid])
    assert found is not None and found["title"] == "No message yet"
    assert store.count_events(cid) == 0
    (folder / "events").mkdir()
    for index, event in enumerate(events):
        (folder / "events" / f"event-{index:05d}-{event['id']}.json").write_text(json.dumps(event))
    assert store.count_events(cid) == len(events)
    rows, more = store.search_events(cid)
    assert [json.loads(r.json)["id"] for r in rows] == [e["id"] for e in events] and not more
    sqlite.close()
