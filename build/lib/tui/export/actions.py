"""How each kind of agent step reads in the transcript: a terminal command with its output,
a file edit as a diff, a plan as a checklist… Every renderer returns the step's parts,
heading first; text goes through :mod:`tui.export.text`, diffs through
:func:`tui.models.textdiff.unified_diff` (linear, capped)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui.models.content import TextContent
from tui.models.failure import TOOL_ERROR, observation_failure
from tui.models.textdiff import unified_diff

from .text import code_span, error_quote, fence, inline, json_block, markdown_block, quote, safe


def texts(blocks: Any) -> str:
    return "\n\n".join(b.text for b in blocks or () if isinstance(b, TextContent) and b.text)


def summary_of(event: Any) -> str | None:
    """The model's own one-line summary, unless it is just ``tool: {arguments}``."""
    summary = (event.summary or "").strip()
    if not summary or summary.startswith(f"{event.tool_name}:"):
        return None
    return summary


def heading(label: str, summary: str | None) -> str:
    return f"### {label}" + (f" — {inline(summary)}" if summary else "")


def arguments(text: str) -> str:
    """A tool call's arguments: as JSON when they are JSON (they are text from the model)."""
    from tui.models.jsonscan import loads

    try:
        value, _ = loads(text, 64)
    except ValueError:
        return fence(text, "text")
    return json_block(value)


def _obs_text(obs: Any) -> str:
    return texts(getattr(obs, "content", None)) if obs is not None else ""


def _failed(obs: Any) -> bool:
    """The result failed, by the one definition (:mod:`tui.models.failure`)."""
    return obs is not None and observation_failure(obs) is not None


def _obs_error(obs: Any) -> str:
    if _failed(obs):
        return error_quote("Error", _obs_text(obs) or "the tool reported an error")
    return ""


def _not_applied(obs: Any) -> str:
    """The error of an edit that failed, said so (the diff above shows what was attempted)."""
    if _failed(obs):
        return error_quote("Not applied", _obs_text(obs) or "the tool reported an error")
    return ""


def diff_block(old: str, new: str, old_name: str, new_name: str, whole: bool = False) -> str:
    """A ``diff`` block (or *(no changes)*); linear in the texts, capped like any block."""
    diff = unified_diff(old, new, old_name, new_name, whole=whole)
    if diff is None:
        return "*(no changes)*"
    block = fence("\n".join(diff.lines), "diff")
    return f"{block}\n\n*({inline(diff.note)})*" if diff.note else block


def _terminal(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    label = "Terminal input" if action.is_input else "Terminal"
    # the command is made safe here (controls visible, secrets masked) so that the "$ " and
    # "> " prefixes go on its real lines: a "\r" cannot pose as a line of its own
    command = safe(action.command).split("\n")
    if action.is_input:
        lines = command
    else:
        lines = [f"$ {command[0]}", *(f"> {line}" for line in command[1:])]
    failure = None
    if obs is not None:
        output = _obs_text(obs)
        if output:
            lines.append(safe(output))
        failure = observation_failure(obs)  # the one definition: timeout, exit code, error
    parts = [heading(label, summary), fence("\n".join(lines), "console", limit=1 << 62)]
    if failure is not None:
        tool_error = failure.why == TOOL_ERROR
        parts.append(
            error_quote("Error", "the command failed")
            if tool_error
            else f"**{failure.why[:1].upper()}{failure.why[1:]}**"  # **Exit code 2**
        )
    return parts


_EDIT_LABELS = {
    "view": "View",
    "create": "Create",
    "str_replace": "Edit",
    "insert": "Insert into",
    "undo_edit": "Undo edit of",
}


def _file_editor(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    path = action.path
    command = action.command
    old = getattr(obs, "old_content", None) if obs is not None else None
    new = getattr(obs, "new_content", None) if obs is not None else None
    failed = _failed(obs)
    label = f"{_EDIT_LABELS.get(command, command)} {code_span(path)}"
    if command == "insert" and action.insert_line is not None:
        label += f" after line {action.insert_line}"
    if summary and path in summary:
        summary = None  # "View /x/y.py" says nothing the heading does not
    parts = [heading(label, summary)]
    if command == "view":
        text = _obs_text(obs)
        if text and not failed:
            parts.append(fence(text))
    elif old is not None and new is not None and not failed:
        parts.append(diff_block(old, new, path if old else "/dev/null", path))
    elif command == "create":
        created = new if new is not None else action.file_text or ""
        parts.append(diff_block("", created, "/dev/null", path, whole=True))
    elif command == "str_replace":
        parts.append(diff_block(action.old_str or "", action.new_str or "", path, path, whole=True))
    elif command == "insert":
        parts.append(diff_block("", action.new_str or "", path, path, whole=True))
    elif command == "undo_edit":
        text = _obs_text(obs)
        if text and not failed:
            parts.append(fence(text))
    if failed:
        parts.append(_obs_error(obs) if command == "view" else _not_applied(obs))
    return parts


def _edit(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    path = action.file_path
    parts = [heading(f"Edit {code_span(path)}", summary)]
    old = getattr(obs, "old_content", None)
    new = getattr(obs, "new_content", None)
    if old is not None and new is not None and not _failed(obs):
        parts.append(diff_block(old, new, path, path))
    else:
        parts.append(diff_block(action.old_string, action.new_string, path, path, whole=True))
    parts.append(_not_applied(obs))
    return parts


def _write_file(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    path = action.file_path
    old = getattr(obs, "old_content", None) or ""
    parts = [heading(f"Write {code_span(path)}", summary)]
    parts.append(diff_block(old, action.content, path if old else "/dev/null", path, whole=not old))
    parts.append(_not_applied(obs))
    return parts


def _apply_patch(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    return [heading("Apply patch", summary), fence(action.patch, "diff"), _not_applied(obs)]


def _read_file(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    parts = [heading(f"Read {code_span(action.file_path)}", summary)]
    content = getattr(obs, "file_content", None) or _obs_text(obs)
    if content and not _failed(obs):
        parts.append(fence(content))
    parts.append(_obs_error(obs))
    return parts


def _task_tracker(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    tasks = action.task_list or (getattr(obs, "task_list", None) or [])
    label = "Plan" if action.command == "plan" else "Plan (viewed)"
    parts = [heading(label, summary)]
    if tasks:
        items = []
        for task in tasks:
            box = "[x]" if task.status == "done" else "[ ]"
            line = f"- {box} {inline(task.title)}"
            if task.status == "in_progress":
                line += " *(in progress)*"
            if task.notes:
                line += f" — {inline(task.notes)}"
            items.append(line)
        parts.append("\n".join(items))
    else:
        parts.append("*(no tasks)*")
    parts.append(_obs_error(obs))
    return parts


def _think(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    return ["### Think", quote(markdown_block(action.thought)), _obs_error(obs)]


def _finish(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    return ["### Finish", markdown_block(action.message), _obs_error(obs)]


def generic(event: Any, action: Any, obs: Any, summary: str | None) -> list[str]:
    fields = {
        k: v for k, v in action.model_dump(mode="json", exclude_none=True).items() if k != "kind"
    }
    parts = [heading(code_span(event.tool_name), summary)]
    if fields:
        parts.append(json_block(fields))
    text = _obs_text(obs)
    if text and not _failed(obs):
        parts.append(fence(text))
    parts.append(_obs_error(obs))
    return parts


RENDERERS: dict[str, Callable[[Any, Any, Any, str | None], list[str]]] = {
    "TerminalAction": _terminal,
    "FileEditorAction": _file_editor,
    "PlanningFileEditorAction": _file_editor,
    "EditAction": _edit,
    "WriteFileAction": _write_file,
    "ApplyPatchAction": _apply_patch,
    "ReadFileAction": _read_file,
    "TaskTrackerAction": _task_tracker,
    "ThinkAction": _think,
    "FinishAction": _finish,
}


def action_label(event: Any) -> str:
    """A few words naming an action, for a security analysis that refers to it by id."""
    action = event.action
    command = getattr(action, "command", None)
    if action is not None and action.kind == "TerminalAction" and isinstance(command, str):
        return f"$ {command}"
    path = getattr(action, "path", None) or getattr(action, "file_path", None)
    if isinstance(path, str):
        return f"{event.tool_name} {path}"
    return event.tool_name
