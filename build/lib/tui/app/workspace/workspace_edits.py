"""Which events of a conversation edit its workspace's files, and which file one edits.

Changes and the conversation meet here: from a file's diff, the events that edited it
(``file_editor`` actions on that path); from a file-edit event, its file in Changes; and,
while a run is followed, the events after which the working tree may have changed (file
edits and terminal commands: Changes refreshes after them). Read from the list's rows (their
one-line summary: ``str_replace /workspace/x.py``, ``$ make``, ``exit 0 · …``), so deciding
costs no request; from a full event only where one is at hand (the selected one).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from tui.app.store.rows import EventRow

#: file_editor commands that change a file (``view`` only reads it)
EDIT_COMMANDS = frozenset({"create", "str_replace", "insert", "undo_edit"})
EDITOR_KINDS = frozenset({"FileEditorAction", "PlanningFileEditorAction"})
EDITOR_OBSERVATIONS = frozenset({"FileEditorObservation", "PlanningFileEditorObservation"})


@dataclass(frozen=True)
class EditedFile:
    """A file of the workspace: ``full`` as the agent's tools name it (absolute where the
    working directory is known), ``relative`` as Changes lists it."""

    full: str
    relative: str

    def label(self) -> str:
        return self.relative or self.full


def _edit_target(row: EventRow) -> str | None:
    """The path a row's file edit names (its summary is ``<command> <path>``), or None."""
    command, _, path = row.summary.partition(" ")
    return path if command in EDIT_COMMANDS and path else None


def edits(row: EventRow, target: EditedFile) -> bool:
    """``row`` is a file_editor action that changed ``target``."""
    if row.kind != "ActionEvent":
        return False
    path = _edit_target(row)
    if path is None:
        return False
    normal = posixpath.normpath(path)
    if posixpath.isabs(target.full):
        return normal == posixpath.normpath(target.full)
    # the working directory is not known as an absolute path: the path's end must match
    return normal == target.relative or normal.endswith("/" + target.relative)


def touches_files(row: EventRow) -> bool:
    """``row`` may have changed the working tree: a file edit or a terminal command (the
    action, or its result: the change is done once the result comes)."""
    if row.kind == "ActionEvent":
        return row.summary.startswith("$ ") or _edit_target(row) is not None
    if row.kind == "ObservationEvent":
        return row.summary.startswith("exit ") or _edit_target(row) is not None
    return False


def edited_path(event: Any) -> str | None:
    """The file a file-edit event (the action or its result) changed, or None."""
    kind = getattr(event, "kind", None)
    if kind == "ActionEvent":
        part, kinds = getattr(event, "action", None), EDITOR_KINDS
    elif kind == "ObservationEvent":
        part, kinds = getattr(event, "observation", None), EDITOR_OBSERVATIONS
    else:
        return None
    if getattr(part, "kind", None) not in kinds:
        return None
    if getattr(part, "command", None) not in EDIT_COMMANDS:
        return None
    path = getattr(part, "path", None)
    return path if isinstance(path, str) and path else None


def in_workspace(path: str, root: str | None) -> EditedFile:
    """``path`` (as a tool named it) as a file of the workspace at ``root``."""
    if root and posixpath.isabs(path) and posixpath.isabs(root):
        normal, top = posixpath.normpath(path), posixpath.normpath(root)
        if normal.startswith(top.rstrip("/") + "/"):
            return EditedFile(normal, posixpath.relpath(normal, top))
    return EditedFile(path, path)


def of_change(relative: str, root: str | None) -> EditedFile:
    """A file Changes lists (``relative`` to the working directory ``root``)."""
    if root:
        return EditedFile(posixpath.normpath(posixpath.join(root, relative)), relative)
    return EditedFile(relative, relative)


__all__ = ["EditedFile", "edited_path", "edits", "in_workspace", "of_change", "touches_files"]
