"""Outputs bigger than a page, opened from a local folder, as people see them (issue 32,
finding 9).

The folder server sends a few big events a page, the client asks again for fewer when a
page is more than it reads, and the app shows every row, in order. The detail shows an
output's head and says how much more there is; the raw JSON view cuts a long string before
masking and writing it and says how many characters it left out; the export still writes
every output whole, fetching a bounded weight of events at a time. Sizes scaled down: pages
of ~300 KB, a client that reads 250 KB, outputs of 120,000 characters.
"""

from __future__ import annotations

import json

from textual.widgets import Static

from tests.helpers.app_helpers import (
    FIXED_NOW,
    SIZE,
    event_log,
    push_conversation,
    settled,
    tree_ready,
    wait_for,
)
from tests.helpers.folder_helpers import write_folder
from tests.server.test_page_bytes import BOUND, CID, OUTPUT, events
from tui.app.app import OhtuiApp
from tui.app.widgets.conversation.detail_parts import JSON_HEAD
from tui.app.widgets.conversation.event_detail import EventDetail
from tui.app.widgets.conversation.event_list import EventList
from tui.client import OpenHandsClient
from tui.server import routes_events
from tui.server.folders import FolderStore

KB = 1024


def detail_text(detail: EventDetail) -> str:
    """Everything the detail pane holds (drawn or scrolled out of view)."""
    return "\n".join(str(widget.content) for widget in detail.query(Static))


async def test_big_outputs_are_listed_shown_cut_and_exported_whole(
    make_server, tmp_path, monkeypatch
):
    monkeypatch.setattr(routes_events, "PAGE_BYTES", BOUND)
    write_folder(tmp_path / "folders", CID, events(6))
    server = make_server(FolderStore(tmp_path / "folders"))
    client = OpenHandsClient(server.base_url, max_body=250 * KB)
    app = OhtuiApp(client, url=server.base_url, clock=lambda: FIXED_NOW, readonly=True, local=True)
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    async with app.run_test(size=SIZE) as pilot:
        screen = await push_conversation(pilot, CID)
        await wait_for(lambda: tree_ready(screen), pilot=pilot)
        await event_log(pilot, screen)  # every event a row
        assert [screen.window.row(i).id for i in range(13)] == [e["id"] for e in events(6)]
        assert [screen.window.row(i).flag for i in range(13)] == [""] * 13  # each one read
        assert screen.window.row(2).summary.startswith("exit 0")

        screen.query_one(EventList).cursor = 2  # the first output: 120,000 zeros on one line
        detail = screen.query_one(EventDetail)
        want = screen.window.row(2).id
        await wait_for(lambda: detail._event is not None and detail._event.id == want, pilot=pilot)
        await settled(pilot)
        shown = detail_text(detail)
        assert "0" * 1_000 in shown and f"… ({OUTPUT - 20_000:,} more characters)" in shown

        detail.raw_mode = True  # r: the raw JSON
        await settled(pilot)
        raw = detail_text(detail)
        assert f'"text": "{"0" * JSON_HEAD}… ({OUTPUT - JSON_HEAD:,} more characters)"' in raw
        detail.raw_mode = False

        screen.action_export("jsonl", "all")
        await wait_for(lambda: screen.export_run is None and list(out.iterdir()), pilot=pilot)
    (written,) = out.iterdir()
    exported = [json.loads(line) for line in written.read_text().splitlines()]
    assert [e["id"] for e in exported] == [e["id"] for e in events(6)]
    outputs = [e["observation"]["content"][0]["text"] for e in exported[2::2]]
    assert outputs == [f"{i}" * OUTPUT for i in range(6)]  # whole, each of them
