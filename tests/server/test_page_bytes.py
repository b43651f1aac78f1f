"""Pages, batches and replays are bounded by bytes, not only by count (issue 32, finding 9).

A page of a hundred outputs of 20 MB was built whole in the server (~2 GB in the folder
server) for a client that reads at most 64 MB of an answer. A page now ends before the
event that would take it past ``PAGE_BYTES`` (its first event goes whatever it weighs), and
the rows after it are never read; a batch by id is sent as each event is read; a replay
reads at most ``PAGE_BYTES`` at a time. Every event still comes, in order, once. Sizes
here are scaled down: the bound is set to a few hundred KB and the outputs to 120 KB.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.helpers.folder_helpers import write_folder
from tui.server import Store, folder_events, routes_agent_server, routes_events, routes_live
from tui.server.folders import FolderStore
from tui.server.responses import STREAM_PIECE, json_array
from tui.server.store.base import EventRow, take_page, text_bytes
from tui.server.views import conversation_info

CID = "b16b" * 8
BOUND = 300_000  # the scaled page bound: two of the outputs below, not three
OUTPUT = 120_000  # characters of each big output (over the JSON view's 100,000: cut there)


def event_id(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-00000000b16b"


def events(count: int) -> list[dict]:
    """A small event, then ``count`` outputs of OUTPUT characters, each with a small action."""
    out = [
        {
            "id": event_id(999),
            "timestamp": "2026-11-20T10:00:00.000000",
            "source": "user",
            "kind": "MessageEvent",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "go"}]},
        }
    ]
    for i in range(count):
        out.append(
            {
                "id": event_id(2 * i),
                "timestamp": f"2026-11-20T10:{i:02d}:01.000000",
                "source": "agent",
                "kind": "ActionEvent",
                "thought": [],
                "tool_name": "terminal",
                "tool_call_id": f"c{i}",
                "tool_call": {
                    "id": f"c{i}",
                    "name": "terminal",
                    "arguments": "{}",
                    "origin": "completion",
                },
                "llm_response_id": "r",
                "action": {"kind": "TerminalAction", "command": f"make {i}"},
            }
        )
        out.append(
            {
                "id": event_id(2 * i + 1),
                "timestamp": f"2026-11-20T10:{i:02d}:02.000000",
                "source": "environment",
                "kind": "ObservationEvent",
                "tool_name": "terminal",
                "tool_call_id": f"c{i}",
                "action_id": event_id(2 * i),
                "observation": {
                    "kind": "TerminalObservation",
                    "command": f"make {i}",
                    "content": [{"type": "text", "text": f"{i % 10}" * OUTPUT}],
                    "exit_code": 0,
                },
            }
        )
    return out


def sqlite_store(count: int) -> Store:
    store = Store()
    store.put_conversation(
        conversation_info(id=CID, sandbox_id="sb", title="big", created_at="2026-11-20T10:00:00Z")
    )
    store.append_events(CID, events(count), normalize=False)
    return store


@pytest.fixture
def small_pages(monkeypatch):
    """The page bound scaled to BOUND where every route reads it."""
    for module in (routes_events, routes_agent_server, routes_live):
        monkeypatch.setattr(module, "PAGE_BYTES", BOUND)


# --- the one rule ------------------------------------------------------------------------------


def rows(sizes: list[int]) -> list[EventRow]:
    return [EventRow(("t", n, "x" * size)) for n, size in enumerate(sizes)]


def test_a_page_ends_before_the_row_that_would_pass_the_bound():
    weigh = text_bytes("x" * 100)
    page, following = take_page(iter(rows([100, 100, 100])), 10, 2 * weigh)
    assert [r.seq for r in page] == [0, 1] and following.seq == 2
    page, following = take_page(iter(rows([100, 100])), 10, 2 * weigh)
    assert len(page) == 2 and following is None  # exactly at the bound: all of it, the end
    page, following = take_page(iter(rows([5_000, 10])), 10, 100)
    assert [r.seq for r in page] == [
        0
    ] and following.seq == 1  # a first row goes whatever it weighs
    page, following = take_page(iter(rows([10] * 5)), 3, None)
    assert [r.seq for r in page] == [0, 1, 2] and following.seq == 3  # by count as ever


def test_rows_past_the_page_are_never_read():
    read = []

    def lazily():
        for row in rows([100] * 50):
            read.append(row.seq)
            yield row

    take_page(lazily(), 100, 3 * text_bytes("x" * 100))
    assert read == [0, 1, 2, 3]  # the page, and the one row that ended it


# --- through the routes ------------------------------------------------------------------------


def walk(client: httpx.Client, path: str, **query) -> list[list[dict]]:
    pages, page_id = [], None
    while True:
        answer = client.get(path, params={**query, **({"page_id": page_id} if page_id else {})})
        answer.raise_for_status()
        body = answer.json()
        pages.append(body["items"])
        page_id = body["next_page_id"]
        if not page_id:
            return pages


def assert_bounded(pages: list[list[dict]], expected: list[str]) -> None:
    assert [e["id"] for page in pages for e in page] == expected  # all, in order, once
    for page in pages:
        weights = [text_bytes(json.dumps(e, separators=(",", ":"))) for e in page]
        assert len(page) == 1 or sum(weights) <= BOUND + 1024  # compact text ± key order


@pytest.mark.parametrize("descending", [False, True])
def test_the_app_route_pages_a_big_log_by_bytes(make_server, small_pages, descending):
    store = sqlite_store(6)
    server = make_server(store)
    expected = [e["id"] for e in events(6)]
    order = "TIMESTAMP_DESC" if descending else "TIMESTAMP"
    with httpx.Client(base_url=server.base_url) as client:
        pages = walk(client, f"/api/v1/conversation/{CID}/events/search", sort_order=order)
    assert_bounded(pages, expected[::-1] if descending else expected)
    assert len(pages) >= 3  # two or three outputs a page (was one page of all 13 events)
    store.close()


def test_the_agent_route_pages_by_bytes_with_event_id_page_ids(make_server, small_pages):
    store = sqlite_store(6)
    server = make_server(store, kind="agent")
    cid = f"{CID[:8]}-{CID[8:12]}-{CID[12:16]}-{CID[16:20]}-{CID[20:]}"
    with httpx.Client(base_url=server.base_url) as client:
        pages = walk(client, f"/api/conversations/{cid}/events/search", limit=100)
    assert [e["id"] for page in pages for e in page] == [e["id"] for e in events(6)]
    assert len(pages) >= 3
    store.close()


def test_the_folder_store_reads_a_page_and_one_file_more(tmp_path, monkeypatch):
    write_folder(tmp_path, CID, events(6))
    store = FolderStore(tmp_path)
    store._bodies.clear()  # the first and the newest file were read to list the folder
    read = []
    reader = folder_events.read_event_file
    monkeypatch.setattr(
        folder_events,
        "read_event_file",
        lambda path, **kw: (read.append(path), reader(path, **kw))[1],
    )
    page, following = store.search_events(CID, limit=100, max_bytes=BOUND)
    assert 1 < len(page) < 13 and following is not None
    assert len(read) == len(page) + 1  # the files of the page, and the one that ended it
    after = (page[-1].timestamp, page[-1].seq)
    nxt, _ = store.search_events(CID, after=after, limit=100, max_bytes=BOUND)
    assert nxt[0].seq == following.seq and len(read) == len(page) + len(nxt) + 1  # cached
    store.close()


def test_a_batch_by_id_is_sent_as_it_is_read(make_server):
    store = sqlite_store(4)
    ids = [e["id"] for e in events(4)]
    server = make_server(store)
    with httpx.Client(base_url=server.base_url) as client:
        answer = client.get(f"/api/v1/conversation/{CID}/events", params={"id": ids + ["nope"]})
        found = answer.json()
    assert [e["id"] for e in found[:-1]] == ids and found[-1] is None
    assert "content-length" not in answer.headers  # streamed
    store.close()


async def test_a_json_array_reads_each_text_as_it_sends_it():
    read = []

    def texts():
        for n in range(6):
            read.append(n)
            yield None if n == 3 else json.dumps({"n": n, "text": "y" * (STREAM_PIECE // 2)})

    pieces = []
    async for piece in json_array(texts()).body_iterator:
        pieces.append((piece, len(read)))
    assert pieces[0][1] <= 3  # the first piece went before the rest was read
    body = b"".join(piece for piece, _ in pieces)
    assert [None if e is None else e["n"] for e in json.loads(body)] == [0, 1, 2, None, 4, 5]
    assert json.loads(b"".join([p async for p in json_array([]).body_iterator])) == []


def test_a_replay_is_read_a_few_big_events_at_a_time(tmp_path):
    write_folder(tmp_path, CID, events(6))
    stores = [sqlite_store(6), FolderStore(tmp_path)]
    for store in stores:
        if isinstance(store, FolderStore):
            store.announced[CID] = 12
        batch = store.log_rows(CID, limit=200, max_bytes=BOUND)
        assert 1 < len(batch) < 13
        assert sum(text_bytes(row.json) for row in batch) <= BOUND
        store.close()


def test_new_files_go_to_followers_a_few_big_ones_at_a_time(tmp_path):
    """What the folder follower sends its websockets (``folder_watch.sweep``): the files
    written since the last look, at most BOUND of them a turn, the next turn from there."""
    everything = events(6)
    folder = write_folder(tmp_path, CID, everything[:1])
    store = FolderStore(tmp_path)
    for index, event in enumerate(everything[1:], start=1):
        name = f"event-{index:05d}-{event['id']}.json"
        (folder / "events" / name).write_text(json.dumps(event, separators=(",", ":")))
    turns = []
    while texts := store.take_new(CID, BOUND):
        turns.append([json.loads(text)["id"] for text in texts])
    assert [i for turn in turns for i in turn] == [e["id"] for e in everything[1:]]
    assert len(turns) >= 3 and store.announced[CID] == 12
    store.close()
