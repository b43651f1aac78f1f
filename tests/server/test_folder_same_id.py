"""Two conversation folders that carry the same id (a copied folder keeps its meta.json) are
two conversations, each with its own events — they used to overwrite each other's log and
every page of that id answered 500."""

from __future__ import annotations

import shutil

import httpx

from tests.helpers.folder_helpers import write_folder
from tests.server.test_folder_hostile import events_of
from tui.server.folders import FolderStore


def test_two_folders_with_one_id_are_two_conversations(tmp_path, make_server):
    cid, events = events_of(7)
    original = write_folder(tmp_path, cid, events)
    shutil.copytree(original, tmp_path / "copy-of-it")
    server = make_server(FolderStore(tmp_path))
    listed = httpx.get(f"{server.base_url}/api/v1/app-conversations/search").json()["items"]
    ids = sorted(item["id"] for item in listed)
    assert ids == sorted([cid, "copy-of-it"])
    for each in ids:
        search = httpx.get(f"{server.base_url}/api/v1/conversation/{each}/events/search")
        assert search.status_code == 200, search.text
        assert [e["id"] for e in search.json()["items"]] == [e["id"] for e in events]
