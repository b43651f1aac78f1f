"""Answers of the workspace's file routes that need more than a file read: a folder's
subfolders page by page, the home folder, and a conversation's trajectory as a zip.

Shapes as agent server 1.58.2 sends them: subfolders sorted case-insensitively by name
(ties by the exact name), hidden ones only when asked, absolute paths, ``next_page_id`` the
name the next page starts at; the trajectory zip holds the conversation's folder as the
agent server stores it (``<hex>/meta.json``, ``<hex>/events/event-NNNNN-<id>.json``).
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import zipfile
from pathlib import Path
from typing import Any

from .store import Store
from .workspace_demo import DemoWorkspace


def directory_page(
    real: Path, virtual: str, page_id: str | None, limit: int, include_hidden: bool
) -> dict[str, Any]:
    """One page of the subfolders of ``real`` (named under ``virtual``)."""
    names = sorted(
        (
            entry.name
            for entry in real.iterdir()
            if entry.is_dir()
            and not entry.is_symlink()
            and (include_hidden or not entry.name.startswith("."))
        ),
        key=lambda name: (name.lower(), name),
    )
    if page_id is not None:
        names = [name for name in names if (name.lower(), name) >= (page_id.lower(), page_id)]
    page, rest = names[:limit], names[limit:]
    return {
        "items": [{"name": name, "path": posixpath.join(virtual, name)} for name in page],
        "next_page_id": rest[0] if rest else None,
    }


def home_body(workspace: DemoWorkspace | None) -> dict[str, Any]:
    """The server user's home: here the workspace's parent, with the workspace in it."""
    root = workspace.virtual_root if workspace is not None else "/workspace/project"
    home = posixpath.dirname(root) or "/"
    favorites = [{"label": posixpath.basename(root), "path": root}] if workspace else []
    return {"home": home, "favorites": favorites, "locations": [{"label": "/", "path": "/"}]}


def trajectory_zip(store: Store, info: dict[str, Any]) -> bytes:
    """The conversation's folder, zipped: its record and every stored event."""
    hex_id = info["id"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{hex_id}/meta.json", json.dumps(info, indent=1))
        for index, row in enumerate(store.iter_events(hex_id)):
            try:
                event_id = str(json.loads(row.json).get("id") or index)
            except (ValueError, AttributeError):
                event_id = str(index)
            event_id = re.sub(r"[^A-Za-z0-9_-]", "_", event_id)[:64]  # a name, never a path
            archive.writestr(f"{hex_id}/events/event-{index:05d}-{event_id}.json", row.json)
    return buffer.getvalue()


__all__ = ["directory_page", "home_body", "trajectory_zip"]
