"""``ohtui insights``: the same figures without the UI, for server conversations and local
folders alike; Markdown for people (pinned for a real captured run), JSON for scripts."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.helpers.folder_helpers import write_folder
from tests.helpers.samples import SAMPLES
from tui.cli import main
from tui.insights import compute_insights
from tui.models import parse_event
from tui.server import Store, load_demo
from tui.server.demo import generate_conversation

IDS = load_demo(Store())
EXPECTED = Path(__file__).parents[1] / "data" / "insights-demo.md"
CAPTURED = next((SAMPLES / "agent-server-capture" / "persisted").glob("demo-*"))
CAPTURED_ID = CAPTURED.name.split("-", 1)[1]
UPDATE = bool(os.environ.get("OHTUI_UPDATE_INSIGHTS"))  # read before the fixture clears OHTUI_*


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("OHTUI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("CONFIG", "DATA", "STATE", "CACHE"):
        monkeypatch.setenv(f"XDG_{var}_HOME", str(tmp_path / var.lower()))


def captured_folder(root: Path) -> Path:
    """The real captured agent-server run, as a conversation folder named by its id."""
    target = root / CAPTURED_ID
    shutil.copytree(CAPTURED, target)
    return target


def test_a_captured_run_as_markdown(tmp_path, capsys):
    """The whole report of a real agent-server run, pinned (regenerate with
    OHTUI_UPDATE_INSIGHTS=1 after reading the difference)."""
    assert main(["insights", str(captured_folder(tmp_path))]) == 0
    out = capsys.readouterr().out
    if UPDATE:
        EXPECTED.write_text(out, encoding="utf-8")
    assert out == EXPECTED.read_text(encoding="utf-8")


def test_json_of_a_local_folder_equals_the_computation(tmp_path, capsys):
    folder = captured_folder(tmp_path)
    assert main(["insights", "--local", str(tmp_path), CAPTURED_ID, "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    events = [parse_event(json.loads(p.read_text())) for p in sorted(folder.glob("events/*.json"))]
    expected = compute_insights(events, CAPTURED_ID).to_json()
    # the folder server adds what the record knows: its title and its cost (base_state.json)
    assert printed.pop("record_cost") == 0.0 and expected.pop("record_cost") is None
    printed.pop("title"), expected.pop("title")
    assert printed == expected
    assert (printed["events"], printed["tokens"], printed["steps"]) == (43, 1500, 10)


def test_a_server_conversation_by_id_with_the_url_either_side(demo_server, tmp_path, capsys):
    cid = IDS["long"]
    target = tmp_path / "long.json"
    assert (
        main(["--url", demo_server.base_url, "insights", cid, "-f", "json", "-o", str(target)]) == 0
    )
    assert "wrote the insights" in capsys.readouterr().err
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["title"] == "Port the CLI to asyncio (long session)"
    events = [parse_event(json.loads(row.json)) for row in demo_server.store.iter_events(cid)]
    assert data["events"] == len(events)
    # the totals are the last stats update's, and the record agrees
    assert data["cost"] == pytest.approx(data["record_cost"])
    assert data["failures"][0]["count"] > 2 and data["condensations"]
    assert [p.name for p in tmp_path.iterdir()] == ["long.json"]  # no temporary file left
    assert main(["insights", cid, "--url", demo_server.base_url]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Insights: Port the CLI to asyncio (long session)")
    for heading in ("## Tools", "## Slowest actions", "## Most expensive steps (by cost)"):
        assert heading in out
    assert "## Repeated failures" in out and "×" in out


def test_problems_are_one_line_with_the_next_step(demo_server, tmp_path, capsys):
    assert main(["insights", "f" * 32, "--url", demo_server.base_url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ohtui insights:") and "Traceback" not in err
    assert main(["insights"]) == 2
    assert "name a conversation" in capsys.readouterr().err
    captured_folder(tmp_path / "two")
    store = Store()
    other = generate_conversation(store, 5, seed=3)
    write_folder(
        tmp_path / "two", other, [json.loads(row.json) for row in store.iter_events(other)]
    )
    assert main(["insights", str(tmp_path / "two")]) == 2
    assert "holds several conversations" in capsys.readouterr().err
    assert main(["insights", str(tmp_path / "two"), "--shared"]) == 2
    assert main(["insights", str(tmp_path / "missing")]) == 2


def test_help_names_the_formats(capsys):
    with pytest.raises(SystemExit):
        main(["insights", "--help"])
    out = capsys.readouterr().out
    assert "--format" in out and "json" in out and "--local" in out
