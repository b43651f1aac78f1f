"""The SystemPromptEvent's content: a shortened real system prompt and the tool list."""

from __future__ import annotations

from typing import Any

SYSTEM_PROMPT = (
    "<ROLE>\nYou are OpenHands agent, a helpful AI assistant that can interact with a computer "
    'to solve tasks.\n* If the user asks a question, like "why is X happening", don\'t try to '
    "fix the problem. Just give an answer to the question.\n</ROLE>\n\n<EFFICIENCY>\n* Each "
    "action you take is somewhat expensive. Wherever possible, combine multiple actions into a "
    "single action.\n</EFFICIENCY>\n\n<FILE_SYSTEM_GUIDELINES>\n* When a user provides a file "
    "path, do NOT assume it's relative to the current working directory.\n* If asked to edit a "
    "file, edit the file directly, rather than creating a new file with a different filename."
    "\n</FILE_SYSTEM_GUIDELINES>\n\n<SECURITY_RISK_ASSESSMENT>\n- **LOW**: Safe, read-only "
    "actions.\n- **MEDIUM**: Project-scoped edits or execution.\n- **HIGH**: System-level or "
    "untrusted operations.\n</SECURITY_RISK_ASSESSMENT>"
)


def _tool(kind: str, title: str, action: str, description: str, **hints: Any) -> dict[str, Any]:
    annotations = {
        "title": hints.get("label", title),
        "readOnlyHint": hints.get("read_only", False),
        "destructiveHint": hints.get("destructive", True),
        "idempotentHint": hints.get("idempotent", False),
        "openWorldHint": hints.get("open_world", False),
    }
    return {
        "description": description,
        "action_type": action,
        "observation_type": action.replace("Action", "Observation"),
        "annotations": annotations,
        "meta": None,
        "kind": kind,
        "title": title,
    }


TOOLS: list[dict[str, Any]] = [
    _tool(
        "TerminalTool",
        "terminal",
        "TerminalAction",
        "Execute a bash command in the terminal within a persistent shell session.\n\n"
        "### Command Execution\n* One command at a time: chain with `&&` or `;`.\n"
        "* Persistent session: environment variables and the working directory persist.\n"
        "* Soft timeout: commands get 10 seconds before you are asked to continue or stop.",
        open_world=True,
    ),
    _tool(
        "FileEditorTool",
        "file_editor",
        "FileEditorAction",
        "Custom editing tool for viewing, creating and editing files in plain-text format\n"
        "* State is persistent across command calls and discussions with the user\n"
        "* The `create` command cannot be used if the specified `path` already exists\n"
        "* The `undo_edit` command will revert the last edit made to the file at `path`",
    ),
    _tool(
        "TaskTrackerTool",
        "task_tracker",
        "TaskTrackerAction",
        "This tool provides structured task management capabilities for development "
        "workflows. Track work items with statuses todo, in_progress and done.",
        label=None,
        destructive=False,
        idempotent=True,
    ),
    _tool(
        "FinishTool",
        "finish",
        "FinishAction",
        "Signals the completion of the current task or conversation.",
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    _tool(
        "ThinkTool",
        "think",
        "ThinkAction",
        "Use the tool to think about something. It will not obtain new information or make "
        "any changes to the repository, but just log the thought.",
        label=None,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
]
