"""Local folders are named and timed by what they hold: a title from meta.json, the first
user message or the folder; a folder someone named says that name; Created, Updated and
the list's Duration from the first and last events (not from when the files were copied),
read in the zone their writer ran in; each with a bounded number of file reads."""

from __future__ import annotations

import json
import os
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.helpers.folder_helpers import write_folder
from tests.helpers.samples import SAMPLES
from tui.app.tables.conversation_sort import conversation_duration
from tui.client import OpenHandsClient
from tui.server import folder_events
from tui.server.folder_names import first_line, folder_label, folder_title
from tui.server.folders import FolderStore
from tui.server.times import local_zone, record_time, sort_key, zone_between

PERSISTED = SAMPLES / "agent-server-capture" / "persisted"
CLI = SAMPLES / "cli-trajectories"
HEX = "697ecf519eef41b2bdca3fa62e1da900"


def _events(folder: Path) -> list[dict]:
    where = folder / "events" if (folder / "events").is_dir() else folder
    return [json.loads(p.read_text()) for p in sorted(where.glob("event-*.json"))]


def _copy(src: Path, root: Path, name: str | None = None) -> Path:
    """A copy made now: every file's time says today, whatever the events say."""
    target = root / (name or src.name)
    shutil.copytree(src, target)
    return target


def _utc(event_time: str, zone: timedelta = timedelta(0)) -> str:
    return record_time(datetime.fromisoformat(event_time), zone)


@pytest.fixture
def in_zone(monkeypatch):
    """Run with this machine's clock in another zone (``TZ``), put back afterwards."""

    def use(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield use
    monkeypatch.undo()
    time.tzset()


# --- names ------------------------------------------------------------------------------------


def test_sample_folders_are_told_apart_by_their_names_and_first_messages():
    titles = {r[2]["title"] for r in FolderStore(PERSISTED).search_conversations()[0]}
    # every capture's meta.json says "Demo conversation": the folders' own names tell them apart
    assert titles == {
        f"{n} · Demo conversation" for n in ("demo", "fail", "slow", "stream", "confirm")
    }
    cli = {r[1]: r[2]["title"] for r in FolderStore(CLI).search_conversations()[0]}
    assert cli["confirmation_mode"] == "confirmation_mode · echo hello world"  # no meta.json
    assert cli["cli447_hi_followup_iterative_case_a"] == "cli447_hi_followup_iterative_case_a · hi"


def test_a_folder_the_agent_named_goes_by_its_title_or_first_message(tmp_path):
    src = PERSISTED / f"demo-{HEX}"
    folder = _copy(src, tmp_path, HEX)  # as the agent server names it: the id alone
    meta = json.loads((folder / "meta.json").read_text())
    store = FolderStore(tmp_path)
    assert store.get_conversation(HEX)["title"] == "Demo conversation"
    del meta["title"]
    (folder / "meta.json").write_text(json.dumps(meta))
    store = FolderStore(tmp_path)
    assert (
        store.get_conversation(HEX)["title"]
        == "[demo] Please say hello, write hello.py and run it."
    )


def test_a_long_first_message_is_its_first_line_cut_at_a_word():
    text = "\n\n  Port   the CLI to asyncio: " + "every command, " * 20 + "\nsecond line"
    title = first_line(text)
    assert title.startswith("Port the CLI to asyncio: every command,")
    assert "\n" not in title and "second" not in title and "  " not in title
    assert len(title) <= 100 and title.endswith("…")
    said = " ".join(text.split())
    assert said.startswith(title[:-1]) and said[len(title) - 1] == " "  # cut between words
    assert first_line(" \n\t ") is None
    assert first_line("a" * 300).endswith("…") and len(first_line("a" * 300)) == 100


@pytest.mark.parametrize(
    ("name", "label"),
    [
        (HEX, None),
        ("697ecf51-9eef-41b2-bdca-3fa62e1da900", None),
        (f"fail-{HEX}", "fail"),
        (f"{HEX}~2", None),
        ("confirmation_mode", "confirmation_mode"),
        ("2026-11-21", None),
    ],
)
def test_a_folder_name_is_said_only_where_a_person_chose_it(name, label):
    assert folder_label(name) == label
    assert folder_title(name, "Fix the bug") == (
        f"{label} · Fix the bug" if label else "Fix the bug"
    )
    assert folder_title(name, None) == name  # nothing else to go by


def test_a_conversation_without_title_or_message_is_named_by_its_folder(tmp_path):
    events = _events(CLI / "simple_echo_hello_world")
    user = next(i for i, e in enumerate(events) if e.get("source") == "user")
    before_user = events[:user]
    folder = tmp_path / "my-experiment"
    folder.mkdir()
    for index, event in enumerate(before_user):
        (folder / f"event-{index:05d}-{event['id']}.json").write_text(json.dumps(event))
    store = FolderStore(folder)
    (found,) = store.get_conversations(["my-experiment"])
    assert found["title"] == "my-experiment"


# --- times ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in CLI.iterdir()))
def test_times_come_from_the_events_not_the_files(tmp_path, in_zone, name):
    """The CLI keeps no meta.json: the events' times, read as this machine's (UTC here)."""
    in_zone("UTC")
    _copy(CLI / name, tmp_path)  # the files say "now"
    events = _events(CLI / name)
    found = FolderStore(tmp_path).get_conversation(name)
    assert found["created_at"] == _utc(events[0]["timestamp"])
    assert found["updated_at"] == _utc(events[-1]["timestamp"])
    assert sort_key(found["updated_at"]) > sort_key(found["created_at"])


def test_a_folder_without_meta_is_read_in_this_machines_zone(tmp_path, in_zone):
    in_zone("Asia/Kolkata")  # +05:30
    _copy(CLI / "confirmation_mode", tmp_path)
    events = _events(CLI / "confirmation_mode")
    found = FolderStore(tmp_path).get_conversation("confirmation_mode")
    half = timedelta(hours=5, minutes=30)
    assert found["created_at"] == _utc(events[0]["timestamp"], half)
    assert found["updated_at"] == _utc(events[-1]["timestamp"], half)


@pytest.mark.parametrize("shift", [timedelta(0), timedelta(hours=2), timedelta(hours=-7)])
def test_an_agent_server_in_another_zone_still_gives_true_times(tmp_path, in_zone, shift):
    """meta.json is UTC; the events are the writer's wall clock (a container in UTC, a
    laptop in UTC-7): the zone is worked out from the two, whatever this machine's is."""
    in_zone("Europe/Berlin")
    folder = _copy(PERSISTED / f"slow-{'e96e79803ce94d9c8efcd74c55988b51'}", tmp_path)
    events = _events(folder)
    for path in sorted((folder / "events").glob("event-*.json")):
        event = json.loads(path.read_text())
        moment = datetime.fromisoformat(event["timestamp"]) + shift
        path.write_text(json.dumps({**event, "timestamp": moment.isoformat()}))
    meta = json.loads((folder / "meta.json").read_text())
    found = FolderStore(tmp_path).get_conversation("e96e79803ce94d9c8efcd74c55988b51")
    assert found["created_at"] == meta["created_at"]
    assert found["updated_at"] == _utc(events[-1]["timestamp"])  # the unshifted, true time
    conv_seconds = (
        datetime.fromisoformat(sort_key(found["updated_at"]))
        - datetime.fromisoformat(sort_key(found["created_at"]))
    ).total_seconds()
    assert 14 < conv_seconds < 15  # the run took 14.6 s


def test_zone_arithmetic():
    event = datetime(2026, 11, 21, 23, 53, 2)
    assert zone_between(event, "2026-11-21T22:53:01.399022Z") == timedelta(hours=1)
    assert zone_between(event, "2026-11-21T22:53:01Z", slack=timedelta(minutes=2)) == timedelta(
        hours=1
    )
    assert zone_between(event, "2026-11-21T22:46:00Z", slack=timedelta(minutes=2)) is None
    assert zone_between(event, "2026-11-22T05:23:00+00:00") == timedelta(hours=-5, minutes=-30)
    assert record_time(event, timedelta(hours=1)) == "2026-11-21T22:53:02.000000Z"
    assert record_time(datetime(1, 1, 1), timedelta(hours=1)) is None  # no such time: not a 500
    assert isinstance(local_zone(event), timedelta)


async def test_the_list_gets_real_durations_over_the_routes(make_server, tmp_path):
    for name in ("confirmation_mode", "simple_echo_hello_world"):
        _copy(CLI / name, tmp_path)
    server = make_server(FolderStore(tmp_path))
    async with OpenHandsClient(server.base_url) as client:
        page = await client.search_conversations(limit=10)
    durations = {c.id: conversation_duration(c) for c in page.items}
    assert 50 < durations["confirmation_mode"] < 52  # 14:33:09.8 → 14:34:00.8
    assert 7 < durations["simple_echo_hello_world"] < 8


async def test_a_conversation_named_by_its_folder_opens_with_its_record(make_server, tmp_path):
    """A CLI folder has no id in it: its name is its id, and asking for its record by that
    name answers (it was a 400 "Invalid UUID", so the conversation opened without one)."""
    _copy(CLI / "confirmation_mode", tmp_path)
    server = make_server(FolderStore(tmp_path))
    async with OpenHandsClient(server.base_url) as client:
        (found,) = await client.get_conversations(["confirmation_mode"])
    assert found is not None and found.title == "confirmation_mode · echo hello world"


def test_updated_moves_on_as_the_agent_writes(tmp_path):
    src = _events(PERSISTED / f"demo-{HEX}")
    folder = write_folder(tmp_path, HEX, src[:10], state={"execution_status": "running"})
    store = FolderStore(tmp_path)
    assert store.get_conversation(HEX)["updated_at"] == _utc(src[9]["timestamp"])
    for index in range(10, len(src)):
        (folder / "events" / f"event-{index:05d}-{src[index]['id']}.json").write_text(
            json.dumps(src[index])
        )
    state = folder / "base_state.json"
    state.write_text(json.dumps({"execution_status": "finished"}))
    stamp = time.time_ns() - 10**10  # not "too recent to trust"
    os.utime(state, ns=(stamp, stamp))
    (found,) = store.get_conversations([HEX])
    assert found["updated_at"] == _utc(src[-1]["timestamp"])
    assert store.search_conversations()[0][0][2]["updated_at"] == found["updated_at"]


# --- cheap at any size ------------------------------------------------------------------------


@pytest.mark.parametrize("titled", [True, False], ids=["meta-title", "cli"])
def test_naming_and_timing_read_a_bounded_number_of_files(tmp_path, monkeypatch, titled):
    """A 2,000-event conversation is named and timed from at most a score of its files
    (the first ones until a user message, and the newest), never all of them."""
    src = _events(PERSISTED / f"demo-{HEX}")
    first, rest = src[:6], src[6:]
    events = first + [
        {**rest[i % len(rest)], "id": f"{i:08x}-0000-4000-8000-000000000000"} for i in range(2_000)
    ]
    folder = write_folder(tmp_path, HEX, events)
    meta = json.loads((PERSISTED / f"demo-{HEX}" / "meta.json").read_text())
    if not titled:
        meta.pop("title")
    (folder / "meta.json").write_text(json.dumps(meta))
    read: list[str] = []
    real = folder_events.read_event_file

    def counted(path, **kwargs):
        read.append(str(path))
        return real(path, **kwargs)

    monkeypatch.setattr(folder_events, "read_event_file", counted)
    store = FolderStore(tmp_path)
    found = store.get_conversation(HEX)
    assert found["title"] == (
        "Demo conversation" if titled else src[2]["llm_message"]["content"][0]["text"]
    )
    assert found["updated_at"] == _utc(events[-1]["timestamp"])
    assert len(read) <= (2 if titled else 21)
    read.clear()
    store.search_conversations()
    assert read == []  # listing again reads nothing: the times are kept
    assert datetime.fromisoformat(sort_key(found["updated_at"])).replace(tzinfo=UTC) < datetime.now(
        UTC
    )
