"""Locate ``../shared/samples/openhands`` and enumerate every real event JSON in it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
SAMPLES = SHARED / "samples" / "openhands"

if not SAMPLES.is_dir():  # fail loudly: every conformance test depends on it
    raise RuntimeError(f"missing sample data: expected {SAMPLES} (../shared beside the repo root)")


def _page_items(body: object) -> list:
    if isinstance(body, dict) and isinstance(body.get("items"), list):
        return body["items"]
    return []


def event_files() -> dict[str, list]:
    """Map each sample file (relative path) to the list of event objects it holds."""
    out: dict[str, list] = {}
    for path in sorted(SAMPLES.rglob("event-*.json")):
        out[str(path.relative_to(SAMPLES))] = [json.loads(path.read_text())]
    for path in sorted((SAMPLES / "agent-server-capture" / "ws").glob("*.jsonl")):
        frames = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        out[str(path.relative_to(SAMPLES))] = [f["frame"] for f in frames if "frame" in f]
    for path in sorted((SAMPLES / "sdk-fixtures").glob("*.jsonl")):
        out[str(path.relative_to(SAMPLES))] = [
            json.loads(line) for line in path.read_text().splitlines() if line.strip()
        ]
    for path in sorted((SAMPLES / "agent-server-capture" / "rest").glob("*events_search*.json")):
        data = json.loads(path.read_text())
        bodies = [r.get("body") for r in data] if isinstance(data, list) else [data.get("body")]
        items = [item for body in bodies for item in _page_items(body)]
        if items or any(
            _page_items(b) == [] and isinstance(b, dict) and "items" in b for b in bodies
        ):
            out[str(path.relative_to(SAMPLES))] = items
    for path in sorted((SAMPLES / "constructed" / "app_server").glob("*events_search*.json")):
        out[str(path.relative_to(SAMPLES))] = _page_items(json.loads(path.read_text()))
    for path in sorted((SAMPLES / "constructed" / "events").glob("*Event.*.json")):
        out[str(path.relative_to(SAMPLES))] = [json.loads(path.read_text())]
    return out


def iter_events() -> Iterator[tuple[str, dict]]:
    for name, events in event_files().items():
        for event in events:
            yield name, event
