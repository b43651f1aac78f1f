"""Folder mode never reads through a link out of the conversations folder (issue 32).

An event file linking into the home folder was served as an "unreadable event" with a
2,000-character preview of its target, and the preview went into exports: ``.netrc`` and
``.pgpass`` passwords, a registry login. Here a folder holds every such link — event files
linking out (to text, to a file that parses as an event, in a loop), a ``meta.json`` linking
out, a conversation folder and an ``events/`` linking out — next to a password file copied
in under an event's name. Each sentinel must appear nowhere: not in what the server sends,
not on any screen of the app, not in either export; every other event is served as usual.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.app_helpers import (
    SIZE,
    conversations_shown,
    list_ready,
    make_app,
    push_conversation,
    screen_text,
    settled,
    wait_for,
)
from tests.helpers.folder_helpers import compact, event_file, write_folder
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.cli import main
from tui.server import Store, generate_conversation
from tui.server.folder_files import LINK_OUT
from tui.server.folder_log import FolderLog
from tui.server.folder_scan import conversation_folders, real_path
from tui.server.folder_watch import watched_dirs
from tui.server.folders import FolderStore

NETRC = "S3ntinelNetrc0001"
PGPASS = "S3ntinelPgpass0002"
REGISTRY = "S3ntinelRegistry0003"
TITLE = "S3ntinelTitle0004"
OUTSIDE = "S3ntinelOutside0005"
SENTINELS = (NETRC, PGPASS, REGISTRY, TITLE, OUTSIDE)
N = 10
LINKED_OUT = (2, 5, 8)  # event files that link out of the root (text, an event, a loop)
COPIED_IN = 6  # a password file copied in under an event's name


def events_of(n: int, seed: int) -> tuple[str, list[dict[str, Any]]]:
    sqlite = Store()
    cid = generate_conversation(sqlite, n, seed=seed)
    events = [json.loads(row.json) for row in sqlite.iter_events(cid)]
    sqlite.close()
    return cid, events


def relink(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


@pytest.fixture
def tree(tmp_path) -> dict[str, Any]:
    """``home/`` (outside) with secrets and a conversation; ``conversations/`` (the root)
    with a conversation whose files link out, one folder linking out, one ``events/``
    linking out."""
    home, root = tmp_path / "home", tmp_path / "conversations"
    home.mkdir()
    netrc = home / ".netrc"
    netrc.write_text(f"machine api.example.com login bob password {NETRC}\n")
    pgpass = f"db.example.com:5432:app:bob:{PGPASS}\n"
    (home / ".pgpass").write_text(pgpass)
    registry = home / "config.json"  # parses as an event: served whole if it were read
    registry.write_text(
        json.dumps({"id": "r", "kind": "MessageEvent", "auths": {"ghcr.io": {"auth": REGISTRY}}})
    )
    (home / "meta.json").write_text(json.dumps({"title": f"linked title {TITLE}"}))

    cid, events = events_of(N, seed=3)
    folder = write_folder(root, cid, events)
    relink(event_file(folder, 2, events[2]), netrc)
    relink(event_file(folder, 5, events[5]), registry)
    looped = event_file(folder, 8, events[8])
    relink(looped, looped)
    event_file(folder, COPIED_IN, events[COPIED_IN]).write_text(pgpass)
    relink(folder / "meta.json", home / "meta.json")

    # a whole conversation outside, linked in as a folder, and another by its events/ only
    away_id, away = events_of(4, seed=4)
    away[-1]["llm_message"] = {"role": "user", "content": [{"type": "text", "text": OUTSIDE}]}
    outside = write_folder(home, away_id, [*away[:-1], away[-1]])
    (root / away_id).symlink_to(outside, target_is_directory=True)
    other_id, other = events_of(3, seed=5)
    other_folder = write_folder(root, other_id, other)
    for path in (other_folder / "events").iterdir():
        path.unlink()
    (other_folder / "events").rmdir()
    (other_folder / "events").symlink_to(outside / "events", target_is_directory=True)
    return {
        "root": root,
        "cid": cid,
        "events": events,
        "away": away_id,
        "other": other_id,
        "pgpass": pgpass,
    }


def assert_clean(where: str, text: str) -> None:
    for sentinel in SENTINELS:
        assert sentinel not in text, f"{sentinel} shown in {where}"


def get(server, path: str, **params: Any) -> httpx.Response:
    response = httpx.get(f"{server.base_url}{path}", params=params, timeout=10)
    assert response.status_code == 200, response.text
    assert_clean(path, response.text)
    return response


def test_links_out_are_rows_saying_so_and_never_read(tree, make_server):
    root, cid, events = tree["root"], tree["cid"], tree["events"]
    server = make_server(FolderStore(root))
    listed = get(server, "/api/v1/app-conversations/search").json()["items"]
    titles = {c["id"]: c["title"] for c in listed}
    assert set(titles) == {cid, tree["away"], tree["other"]}  # none hides another
    assert titles[tree["away"]] == f"{LINK_OUT}: {tree['away']}"
    assert titles[tree["other"]] == f"{LINK_OUT}: {tree['other']}"
    assert "linked title" not in titles[cid]  # the meta.json linking out was not read

    items = get(server, f"/api/v1/conversation/{cid}/events/search", limit=100).json()["items"]
    assert [e["id"] for e in items] == [e["id"] for e in events]  # every file, in order
    rows = {n: e for n, e in enumerate(items) if e["kind"] == "UnreadableEventFile"}
    assert set(rows) == {*LINKED_OUT, COPIED_IN}
    assert {rows[n]["error"] for n in (2, 5)} == {LINK_OUT}  # never opened: no size either
    assert all("size" not in rows[n] and "preview" not in rows[n] for n in LINKED_OUT)
    assert "loop of links" in rows[8]["error"]
    copied = rows[COPIED_IN]  # inside the folder: read, not an event, never quoted
    assert copied["error"].startswith("invalid JSON") and "preview" not in copied
    assert copied["size"] == len(tree["pgpass"])
    assert copied["file"] == event_file(Path("."), COPIED_IN, events[COPIED_IN]).name
    good = [e for n, e in enumerate(items) if n not in rows]
    assert good == [json.loads(compact(e)) for n, e in enumerate(events) if n not in rows]
    assert get(server, f"/api/v1/conversation/{cid}/events/count").json() == N

    for linked in (tree["away"], tree["other"]):
        (row,) = get(server, f"/api/v1/conversation/{linked}/events/search").json()["items"]
        assert (row["kind"], row["error"]) == ("UnreadableEventFile", LINK_OUT)
        get(server, f"/api/v1/conversation/{linked}/events/count")


def test_links_out_are_not_listed_watched_or_looked_into(tree):
    root = tree["root"]
    found = conversation_folders(root)  # the links out count (they are shown), unopened
    assert {p.name for p in found} == {tree["cid"], tree["away"], tree["other"]}
    watched = watched_dirs(root)
    assert root / tree["cid"] / "events" in watched
    assert root / tree["away"] not in watched and root / tree["other"] / "events" not in watched
    log = FolderLog(root / tree["other"], real_path(root))
    assert len(log) == 0 and log.refresh() == 0  # its events/ leaves the root: never listed
    inside = FolderLog(root / tree["cid"], real_path(root))
    assert len(inside) == N


@pytest.mark.parametrize("fmt", ["md", "jsonl"])
def test_the_export_holds_no_byte_of_a_file_linked_or_copied_in(tree, tmp_path, fmt):
    root, cid, events = tree["root"], tree["cid"], tree["events"]
    for conversation in (cid, tree["away"]):
        target = tmp_path / f"{conversation}.{fmt}"
        argv = ["export", "--local", str(root), conversation, "-f", fmt, "-o", str(target)]
        assert main(argv) == 0
        text = target.read_text(encoding="utf-8")
        assert_clean(f"export {fmt} of {conversation}", text)
        assert LINK_OUT in text
    exported = (tmp_path / f"{cid}.{fmt}").read_text(encoding="utf-8")
    if fmt == "jsonl":
        lines = [json.loads(line) for line in exported.splitlines()]
        assert [e["id"] for e in lines] == [e["id"] for e in events]
    else:
        assert "invalid JSON" in exported and "loop of links" in exported


async def test_the_app_shows_links_out_as_rows_and_never_their_targets(tree, make_server):
    root, cid = tree["root"], tree["cid"]
    server = make_server(FolderStore(root))
    app = make_app(server.base_url, readonly=True, local=True)
    seen: list[tuple[str, str]] = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: conversations_shown(app), pilot=pilot)
        table = app.screen.query_one("DataTable")
        await wait_for(lambda: table.row_count == 3, pilot=pilot)
        seen.append(("conversations", screen_text(app)))
        assert LINK_OUT in seen[-1][1]
        for conversation in (cid, tree["away"]):
            screen = await push_conversation(pilot, conversation)
            await wait_for(
                lambda screen=screen: list_ready(screen) and screen.events.base.complete,
                pilot=pilot,
            )
            detail, event_list = screen.query_one(EventDetail), screen.query_one(EventList)
            for index in range(len(screen.window)):
                event_list.cursor = index
                want = screen.window.row(index).id
                await wait_for(
                    lambda want=want, detail=detail: (
                        detail._event is not None and detail._event.id == want
                    ),
                    pilot=pilot,
                )
                await settled(pilot)
                seen.append((f"{conversation} event {index}", screen_text(app)))
                detail.raw_mode = True
                await settled(pilot)
                seen.append((f"{conversation} event {index} raw", screen_text(app)))
                detail.raw_mode = False
            await pilot.press("escape")
            await wait_for(lambda: conversations_shown(app), pilot=pilot)
    everything = "\n".join(text for _, text in seen)
    assert LINK_OUT in everything and "loop of links" in everything
    for where, text in seen:
        assert_clean(where, text)


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip("links need privileges on Windows")
