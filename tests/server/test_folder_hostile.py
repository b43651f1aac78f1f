"""Hostile conversation folders: one bad file never hides the others, never a 500, never a
hang, never an unbounded read; cost and tokens come from base_state.json."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.folder_helpers import compact, write_folder
from tui.server import Store, generate_conversation
from tui.server.folder_files import LINK_OUT, MAX_DEPTH, MAX_EVENT_BYTES, metrics_from_state
from tui.server.folders import FolderStore

N = 12


def events_of(n: int = N, seed: int = 0) -> tuple[str, list[dict[str, Any]]]:
    sqlite = Store()
    cid = generate_conversation(sqlite, n, seed=seed)
    events = [json.loads(r.json) for r in sqlite.iter_events(cid)]
    sqlite.close()
    return cid, events


def name(index: int, event_id: str) -> str:
    return f"event-{index:05d}-{event_id}.json"


def make_old(path: Path) -> None:
    """Older than the newest file's grace period (the agent is not writing it)."""
    stamp = time.time() - 60
    os.utime(path, (stamp, stamp), follow_symlinks=False)


@pytest.fixture
def folder(tmp_path):
    cid, events = events_of()
    path = write_folder(tmp_path, cid, events)
    return tmp_path, path, cid, events


def page(server, cid: str, **params: Any) -> list[dict[str, Any]]:
    items, page_id = [], None
    while True:
        query = {"limit": 5, **params, **({"page_id": page_id} if page_id else {})}
        response = httpx.get(
            f"{server.base_url}/api/v1/conversation/{cid}/events/search", params=query, timeout=10
        )
        assert response.status_code == 200, response.text
        body = response.json()
        items += body["items"]
        if not (page_id := body["next_page_id"]):
            return items


def count(server, cid: str) -> int:
    return httpx.get(f"{server.base_url}/api/v1/conversation/{cid}/events/count").json()


def raw_rows(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in items if e.get("kind") == "UnreadableEventFile"]


# -- each kind of bad file: a raw row with its reason, the others served ----------------------

BAD_FILES: dict[str, tuple[bytes, str]] = {
    "nested 10,000 deep": (
        b'{"id":"x","kind":"MessageEvent","deep":' + b"[" * 10_000 + b"]" * 10_000 + b"}",
        f"nested deeper than {MAX_DEPTH} levels",
    ),
    "invalid UTF-8": (b'{"id":"x","kind":"MessageEvent","text":"caf\xe9 \xff"}', "invalid UTF-8"),
    "a number out of range": (b'{"id":"x","kind":"MessageEvent","n":1e400}', "out of range"),
    "NaN": (b'{"id":"x","kind":"MessageEvent","n":NaN}', "non-standard number NaN"),
    "a 5000-digit integer": (
        b'{"id":"x","kind":"MessageEvent","n":' + b"9" * 5000 + b"}",
        "invalid JSON",
    ),
    "not JSON": (b"{this is not json", "invalid JSON"),
    "empty": (b"", "invalid JSON"),
    "a JSON list": (b"[1, 2, 3]", "a JSON list, not an object"),
}


@pytest.mark.parametrize("what", list(BAD_FILES))
def test_a_bad_event_file_is_a_raw_row_and_hides_nothing(folder, make_server, what):
    root, path, cid, events = folder
    content, reason = BAD_FILES[what]
    bad = path / "events" / name(5, events[5]["id"])
    bad.write_bytes(content)
    server = make_server(FolderStore(root))
    for order in ("TIMESTAMP", "TIMESTAMP_DESC"):
        items = page(server, cid, sort_order=order)
        assert len(items) == N
        (row,) = raw_rows(items)
        assert reason in row["error"], row
        assert row["id"] == events[5]["id"] and row["file"] == bad.name
        good = {e["id"] for e in items if e is not row}
        assert good == {e["id"] for i, e in enumerate(events) if i != 5}
    assert count(server, cid) == N
    # and the list of conversations is unharmed
    listed = httpx.get(f"{server.base_url}/api/v1/app-conversations/search").json()["items"]
    assert [c["id"] for c in listed] == [cid]


def test_a_lone_surrogate_is_served_as_its_escaped_text(folder, make_server):
    root, path, cid, events = folder
    user = next(i for i, e in enumerate(events) if e.get("source") == "user")
    event = dict(events[user])
    event["llm_message"] = {
        **event["llm_message"],
        "content": [{"type": "text", "text": "half an emoji: \ud83d", "cache_prompt": False}],
    }
    # json.dumps writes the lone surrogate as the escape "\ud83d": valid JSON
    (path / "events" / name(user, event["id"])).write_text(json.dumps(event))
    (path / "meta.json").unlink()  # so the title comes from this very message
    server = make_server(FolderStore(root))
    raw = httpx.get(f"{server.base_url}/api/v1/conversation/{cid}/events/search").content
    assert b"\\ud83d" in raw  # the escape, as written: never a 500
    assert len(page(server, cid)) == N and not raw_rows(page(server, cid))
    listed = httpx.get(f"{server.base_url}/api/v1/app-conversations/search")
    assert listed.status_code == 200
    assert listed.json()["items"][0]["title"] == "half an emoji: \ufffd"
    fetched = httpx.get(
        f"{server.base_url}/api/v1/conversation/{cid}/events", params={"id": [event["id"]]}
    )
    assert fetched.status_code == 200 and b"\\ud83d" in fetched.content


async def test_a_lone_surrogate_reaches_a_websocket_follower(folder, make_server):
    root, path, cid, events = folder
    event = dict(events[3], summary="\ud800 lone")
    (path / "events" / name(3, event["id"])).write_text(json.dumps(event))
    store = FolderStore(root)
    server = make_server(store)
    key = store.get_sandbox("local")["session_api_key"]
    url = f"{server.ws_url}/sockets/events/{cid}?resend_mode=all&session_api_key={key}"
    async with websockets.connect(url) as ws:
        frames = [json.loads(await ws.recv()) for _ in range(N + 1)]
    assert frames[0]["key"] == "full_state"
    assert [f["id"] for f in frames[1:]] == [e["id"] for e in events]
    assert frames[4]["summary"] == "\ud800 lone"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_skipped_and_never_opened(folder, make_server):
    root, path, cid, events = folder
    fifo = path / "events" / name(4, events[4]["id"])
    fifo.unlink()
    os.mkfifo(fifo)
    newest = path / "events" / name(N, "f" * 8 + "-0000-4000-8000-" + "0" * 12)
    os.mkfifo(newest)  # the newest file too: not "being written", it is not a file at all
    server = make_server(FolderStore(root))
    items = page(server, cid)  # answers: nothing waited for a writer
    assert len(items) == N + 1
    rows = raw_rows(items)
    assert len(rows) == 2 and all("a FIFO, not a regular file" in r["error"] for r in rows)
    assert all("preview" not in r for r in rows)  # nothing was read


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_link_to_dev_zero_is_never_read(folder, make_server):
    root, path, cid, events = folder
    link = path / "events" / name(2, events[2]["id"])
    link.unlink()
    link.symlink_to("/dev/zero")
    server = make_server(FolderStore(root))
    (row,) = raw_rows(page(server, cid))
    assert row["error"] == LINK_OUT  # out of the folder: not even looked at


def test_a_file_over_the_size_cap_is_not_read(folder, make_server):
    root, path, cid, events = folder
    big = path / "events" / name(6, events[6]["id"])
    with open(big, "wb") as handle:  # sparse: costs no disk and no time
        handle.truncate(MAX_EVENT_BYTES + 1)
    server = make_server(FolderStore(root))
    (row,) = raw_rows(page(server, cid))
    assert "over the" in row["error"] and "limit" in row["error"]


def test_a_link_to_a_regular_file_is_read(folder, make_server):
    root, path, cid, events = folder
    target = root / "elsewhere.json"
    original = path / "events" / name(7, events[7]["id"])
    target.write_text(original.read_text())
    original.unlink()
    original.symlink_to(target)
    server = make_server(FolderStore(root))
    items = page(server, cid)
    assert not raw_rows(items) and items[7]["id"] == events[7]["id"]


# -- the newest file: a moment to be written, then shown; re-read when rewritten --------------


def test_a_corrupt_newest_file_shows_once_it_is_not_being_written(folder, make_server):
    root, path, cid, events = folder
    newest = path / "events" / name(N - 1, events[-1]["id"])
    newest.write_text(compact(events[-1])[:20])  # half written, just now
    store = FolderStore(root)
    server = make_server(store)
    assert count(server, cid) == N - 1  # may still be being written: not shown yet
    make_old(newest)  # nobody finished it
    items = page(server, cid)
    assert count(server, cid) == N and len(items) == N
    (row,) = raw_rows(items)
    assert row["id"] == events[-1]["id"] and "invalid JSON" in row["error"]
    assert row["size"] == 20 and "preview" not in row  # its name and size, never its bytes
    # rewritten valid (as a recovering tool would): re-read and served as the event it is
    newest.write_text(compact(events[-1]))
    items = page(server, cid)
    assert not raw_rows(items) and items[-1] == json.loads(compact(events[-1]))


def test_a_rewritten_bad_file_in_the_middle_is_re_read(folder, make_server):
    root, path, cid, events = folder
    middle = path / "events" / name(3, events[3]["id"])
    middle.write_text("{broken")
    server = make_server(FolderStore(root))
    assert len(raw_rows(page(server, cid))) == 1
    middle.write_text(compact(events[3]))
    assert not raw_rows(page(server, cid))


# -- duplicates ---------------------------------------------------------------------------------


def test_two_files_with_one_event_id_are_both_served(folder, make_server):
    root, path, cid, events = folder
    again = dict(events[4], timestamp=events[-1]["timestamp"] + "9")
    (path / "events" / name(N, events[4]["id"])).write_text(compact(again))
    make_old(path / "events" / name(N, events[4]["id"]))
    server = make_server(FolderStore(root))
    items = page(server, cid)
    assert len(items) == N + 1 and count(server, cid) == N + 1
    assert [e["id"] for e in items].count(events[4]["id"]) == 2


# -- side files: hostile or missing base_state.json / meta.json -------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b"[" * 10_000 + b"]" * 10_000,
        b"\xff\xfe",
        b'{"execution_status": 5, "stats": "lots", "agent": []}',
        b'{"stats": {"usage_to_metrics": {"agent": {"accumulated_cost": 1e400}}}}',
    ],
)
def test_hostile_side_files_leave_the_conversation_listed(folder, make_server, content):
    root, path, cid, _ = folder
    (path / "base_state.json").write_bytes(content)
    (path / "meta.json").write_bytes(b'{"title": ["no"], "created_at": "yesterday", "id": 5}')
    server = make_server(FolderStore(root))
    listed = httpx.get(f"{server.base_url}/api/v1/app-conversations/search")
    assert listed.status_code == 200
    assert [c["id"] for c in listed.json()["items"]] == [cid]
    assert len(page(server, cid)) == N


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_for_base_state_never_hangs(folder, make_server):
    root, path, cid, _ = folder
    os.mkfifo(path / "base_state.json")
    server = make_server(FolderStore(root))
    listed = httpx.get(f"{server.base_url}/api/v1/app-conversations/search", timeout=10)
    assert [c["id"] for c in listed.json()["items"]] == [cid]


# -- cost and tokens from base_state.json ------------------------------------------------------


def usage(cost: float, prompt: int, completion: int) -> dict[str, Any]:
    return {
        "model_name": "openai/gpt-5.5",
        "accumulated_cost": cost,
        "accumulated_token_usage": {
            "model": "openai/gpt-5.5",
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cache_read_tokens": 10,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
            "context_window": 0,
            "per_turn_token": 0,
            "response_id": "",
        },
    }


def test_cost_and_tokens_come_from_base_state_stats(tmp_path, make_server):
    cid, events = events_of()
    state = {
        "execution_status": "finished",
        "agent": {"llm": {"model": "openai/gpt-5.5"}},
        "stats": {
            "usage_to_metrics": {
                "agent": usage(0.25, 12_000, 800),
                "condenser": usage(0.05, 3_000, 200),
            }
        },
    }
    path = write_folder(tmp_path, cid, events, state=state)
    store = FolderStore(tmp_path)
    server = make_server(store)

    def record() -> dict[str, Any]:
        return httpx.get(
            f"{server.base_url}/api/v1/app-conversations", params={"ids": [cid]}
        ).json()[0]

    metrics = record()["metrics"]
    assert metrics["accumulated_cost"] == pytest.approx(0.30)
    tokens = metrics["accumulated_token_usage"]
    assert (tokens["prompt_tokens"], tokens["completion_tokens"]) == (15_000, 1_000)
    assert tokens["cache_read_tokens"] == 20
    listed = httpx.get(f"{server.base_url}/api/v1/app-conversations/search").json()["items"]
    assert listed[0]["metrics"] == metrics
    # the agent goes on: base_state.json is rewritten, the record follows
    state["stats"]["usage_to_metrics"]["agent"] = usage(0.75, 40_000, 2_000)
    (path / "base_state.json").write_text(json.dumps(state))
    stamp = time.time() + 5  # a different mtime whatever the clock's resolution
    os.utime(path / "base_state.json", (stamp, stamp))
    assert record()["metrics"]["accumulated_cost"] == pytest.approx(0.80)


def test_metrics_from_state_ignores_what_is_not_a_number():
    assert metrics_from_state({}) is None
    assert metrics_from_state({"stats": {"usage_to_metrics": {}}}) is None
    odd = {
        "stats": {
            "usage_to_metrics": {
                "agent": {
                    "accumulated_cost": "1.5",
                    "accumulated_token_usage": {"prompt_tokens": True, "completion_tokens": -5},
                },
                "x": [],
                "y": usage(float("inf"), 10**20, 7),
            }
        }
    }
    metrics = metrics_from_state(odd)
    assert metrics["accumulated_cost"] == 0.0
    assert metrics["accumulated_token_usage"]["completion_tokens"] == 7
    assert metrics["accumulated_token_usage"]["prompt_tokens"] == 0


# -- any bytes, any JSON: every file one row, no exception, nothing hidden ---------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
file_contents = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode("utf-8", "surrogatepass")),
    st.dictionaries(st.text(max_size=8), json_values, max_size=5).map(
        lambda d: json.dumps({**d, "kind": "MessageEvent"}).encode("utf-8", "surrogatepass")
    ),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(file_contents, min_size=1, max_size=4))
def test_any_bytes_as_event_files(tmp_path_factory, contents):
    root = tmp_path_factory.mktemp("hostile")
    cid, events = events_of(6)
    path = write_folder(root, cid, events)
    for offset, content in enumerate(contents):
        file = path / "events" / name(6 + offset, f"{offset:08x}-0000-4000-8000-000000000000")
        file.write_bytes(content)
        make_old(file)
    store = FolderStore(root)
    try:
        rows, more = store.search_events(cid, limit=100)
        assert not more and len(rows) == 6 + len(contents)
        served = [row.json for row in rows]
        for text in served:  # every row is JSON a response can carry
            assert isinstance(json.loads(text), dict)
            text.encode("utf-8")
        assert [json.loads(t).get("id") for t in served[:6]] == [e["id"] for e in events]
        assert store.count_events(cid) == len(rows)
        for kind in ("MessageEvent", "ActionEvent"):
            store.count_events(cid, kind=kind)
        store.search_events(cid, descending=True, limit=3)
    finally:
        store.close()


def test_reading_is_bounded_in_time_for_deep_wide_files(folder, make_server):
    """A file of 50,000 small arrays is parsed or refused, never recursed into; the guard is
    linear (what this measures is correctness, not speed: see bench/)."""
    root, path, cid, events = folder
    wide = b'{"id":"x","kind":"MessageEvent","v":[' + b"[1]," * 50_000 + b"1]}"
    (path / "events" / name(8, events[8]["id"])).write_bytes(wide)
    server = make_server(FolderStore(root))
    items = page(server, cid)
    assert len(items) == N and items[8]["v"][-1] == 1


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip("folder permissions and FIFOs differ on Windows")
