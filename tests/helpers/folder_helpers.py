"""Writing conversation folders the way the agent does (``<id>/events/event-NNNNN-<id>.json``,
one compact JSON event per file), for the local-folder tests."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


def event_file(folder: Path, index: int, event: dict) -> Path:
    return folder / "events" / f"event-{index:05d}-{event['id']}.json"


def compact(event: dict) -> str:
    return json.dumps(event, separators=(",", ":"))


def write_folder(root: Path, cid: str, events: list[dict], *, state: dict | None = None) -> Path:
    folder = root / cid
    (folder / "events").mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps({"id": cid, "title": f"local {cid[:6]}"}))
    if state is not None:
        (folder / "base_state.json").write_text(json.dumps(state))
    for index, event in enumerate(events):
        event_file(folder, index, event).write_text(compact(event))
    return folder


def tree_digest(root: Path) -> str:
    """Names, sizes, modification times and bytes of everything under ``root``: equal digests
    mean nothing was written there."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        info = os.stat(path)
        digest.update(
            f"{path.relative_to(root)}|{info.st_size}|{info.st_mtime_ns}|{path.is_dir()}".encode()
        )
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()
