"""``ohtui search`` and ``ohtui index``: a server's conversations (by --url, as export names
them) and local folders searched at once, in text for people and JSON for scripts, with how
complete the index is; a filter that is no time is a usage error, not a traceback."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.helpers.samples import SAMPLES
from tui.cli import main
from tui.server import Store, load_demo

CAPTURED = next((SAMPLES / "agent-server-capture" / "persisted").glob("demo-*"))
CAPTURED_ID = CAPTURED.name.split("-", 1)[1]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))


@pytest.fixture
def demo(make_server):
    store = Store()
    names = load_demo(store)
    return make_server(store), names


def test_search_as_text(demo, capsys):
    server, names = demo
    assert main(["search", "hello.py", "--url", server.base_url, "-n", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Write hello.py and run it  [" + names["hello"] + "]")
    assert "«hello.py»" in out[1]
    assert out[-1].startswith("index: indexed ") and "conversations" in out[-1]
    assert "more hits than --limit" in out[-2]


def test_search_as_json_then_from_the_index_alone(demo, capsys):
    server, _ = demo
    args = ["search", "pytest", "kind:action", "--url", server.base_url, "--format", "json"]
    assert main(args) == 0
    found = json.loads(capsys.readouterr().out)
    hits = [hit for group in found["results"] for hit in group["hits"]]
    assert hits and all(hit["kind"] == "ActionEvent" for hit in hits)
    assert all("pytest" in [w.lower() for w in hit["highlighted"]] for hit in hits)
    assert found["index"]["indexed"] == found["index"]["conversations"] > 0
    server.stop()  # what is indexed is searched without the server
    assert main([*args, "--no-update"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"] == found["hits"]


def test_index_status_rebuild_and_nothing_found(demo, capsys):
    server, _ = demo
    assert main(["index", "--url", server.base_url]) == 0
    first = capsys.readouterr().out
    assert first.startswith("indexed ") and ".sqlite3" in first
    assert main(["index", "--status", "--url", server.base_url]) == 0
    assert capsys.readouterr().out == first
    assert main(["index", "--rebuild", "--url", server.base_url]) == 0
    assert capsys.readouterr().out == first
    assert main(["search", "zzqqxxnothing", "--url", server.base_url]) == 1
    assert "no match" in capsys.readouterr().out


def test_a_local_folder_is_searched(tmp_path, capsys):
    shutil.copytree(CAPTURED, tmp_path / "convs" / CAPTURED_ID)
    assert main(["search", "hello", "--local", str(tmp_path / "convs"), "-f", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [group["conversation"] for group in found["results"]] == [CAPTURED_ID]


def test_a_time_that_is_none_is_a_usage_error(capsys):
    assert main(["search", "since:yesterday"]) == 2
    assert "not a time" in capsys.readouterr().err


def test_the_size_bound_comes_from_the_settings(demo, tmp_path, capsys):
    server, _ = demo
    config = tmp_path / "config" / "ohtui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("search_index_mb = 64\n")
    assert main(["index", "--status", "--url", server.base_url]) == 0
    assert "(at most 64 MB: search_index_mb)" in capsys.readouterr().out
    config.write_text("search_index_mb = 1\n")
    assert main(["index", "--status", "--url", server.base_url]) == 2
    assert "search_index_mb" in capsys.readouterr().err
