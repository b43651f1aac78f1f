"""The simulated agent's file edits, made real in the demo's workspace.

Why: the demo's workspace is a real git repository (``workspace_demo.py``) that the
workspace routes answer from, so a run that edits files must change them there, or a
followed run would show edits that Changes and Files never see. What a file holds after an
edit is what the editor's observation says it holds (its ``new_content``): the events and
the repository then agree, whatever the script assumed the file held before. Made before
the observation is stored or sent, as a real tool runs before it reports: a client that
sees the event finds the file changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: The editor's commands that change a file (``view`` only reads).
EDITING = frozenset({"create", "str_replace", "insert", "undo_edit"})


def edited_files(events: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(path, new text)`` of each successful file edit among ``events``, in order."""
    found = []
    for event in events:
        if event.get("kind") != "ObservationEvent" or event.get("tool_name") != "file_editor":
            continue
        observation = event.get("observation")
        if not isinstance(observation, dict) or observation.get("is_error"):
            continue
        path, text = observation.get("path"), observation.get("new_content")
        if (
            observation.get("command") in EDITING
            and isinstance(path, str)
            and isinstance(text, str)
        ):
            found.append((path, text))
    return found


def apply_file_edits(store: Any, events: Iterable[dict[str, Any]]) -> int:
    """Write the edits among ``events`` into ``store``'s demo workspace (a store without
    one, such as local folders, is left alone); how many files were written."""
    workspace = getattr(store, "workspace", None)
    if workspace is None:
        return 0
    return sum(workspace.write(path, text) for path, text in edited_files(events))


__all__ = ["EDITING", "apply_file_edits", "edited_files"]
