"""FolderLog: the order and ids of a conversation's event files, from their names alone."""

from __future__ import annotations

import os

from tui.server.folders import FolderLog


def touch(directory, index: int, event_id: str, width: int = 5) -> None:
    (directory / f"event-{index:0{width}d}-{event_id}.json").write_text("{}")


def test_the_index_in_the_name_orders_the_log_also_past_99999(tmp_path):
    events = tmp_path / "events"
    events.mkdir()
    for index in (100001, 99998, 100000, 99999):
        touch(events, index, f"{index:08x}-aaaa")
    (events / ".eventlog.lock").write_text("")
    (events / "event-1-short.json").write_text(
        "{}"
    )  # not an event file name (index under 5 digits)
    log = FolderLog(tmp_path)
    assert log.ids == [f"{i:08x}-aaaa" for i in (99998, 99999, 100000, 100001)]
    assert log.index[f"{100000:08x}-aaaa"] == 2


def test_files_created_right_after_a_look_are_not_missed(tmp_path):
    """A directory's mtime has a coarse clock tick: a file created in the same tick as the last
    listing leaves it unchanged, so a recent mtime is not trusted."""
    events = tmp_path / "events"
    events.mkdir()
    touch(events, 0, "00000000-0000")
    log = FolderLog(tmp_path)
    stamp = os.stat(events).st_mtime_ns
    touch(events, 1, "00000000-0001")
    os.utime(events, ns=(stamp, stamp))  # as if both had happened in one tick
    assert log.refresh() == 1 and log.ids == ["00000000-0000", "00000000-0001"]
    assert log.refresh() == 0  # nothing new: nothing added twice


def test_a_late_file_with_a_lower_index_goes_at_the_end(tmp_path):
    events = tmp_path / "events"
    events.mkdir()
    for index in (0, 2):
        touch(events, index, f"0000000{index}-aaaa")
    log = FolderLog(tmp_path)
    touch(events, 1, "00000001-aaaa")
    assert log.refresh() == 1
    assert log.ids == [
        "00000000-aaaa",
        "00000002-aaaa",
        "00000001-aaaa",
    ]  # served positions never move
