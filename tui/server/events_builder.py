"""Building realistic event logs, one conversation at a time.

Why: the demo dataset, the conversations a start task creates and the benchmark logs all
need events shaped exactly like a real agent server's (``agent-server-capture/persisted``):
SDK field order, dashed uuid4 ids, naive microsecond timestamps, ``parent_id`` stamped the
way ``ConversationState.append_event`` does it (each event hangs under the current head;
state updates are siblings of the next step). Everything is driven by a ``random.Random``
and an explicit start time, never the wall clock, so output is reproducible.
"""

from __future__ import annotations

import json
import random
import string
from datetime import datetime, timedelta
from typing import Any

from tui.models import ROOT_PARENT

_BASE62 = string.digits + string.ascii_letters

#: Tokens of earlier turns a prompt carries at most (a condensed context window).
MAX_CARRIED_CONTEXT = 5000


class SeededIds:
    """Ids in the real formats, drawn from one RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def uuid(self) -> str:
        """A dashed uuid4-shaped id (version and variant bits set like ``uuid.uuid4``)."""
        n = self.rng.getrandbits(128)
        n = (n & ~(0xF000 << 64)) | (0x4000 << 64)
        n = (n & ~(0xC000 << 48)) | (0x8000 << 48)
        h = f"{n:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def hex32(self) -> str:
        """A conversation / start-task id: uuid4 as 32 hex digits (``OpenHandsUUID``)."""
        return self.uuid().replace("-", "")

    def call_id(self) -> str:
        return f"call_{self.rng.getrandbits(48):012x}"

    def response_id(self) -> str:
        return f"chatcmpl-{self.rng.getrandbits(64):016x}"

    def base62(self, length: int) -> str:
        return "".join(self.rng.choice(_BASE62) for _ in range(length))

    def sandbox_id(self) -> str:
        """Docker sandboxes are named ``oh-agent-server-<base62>`` (facts §3)."""
        return "oh-agent-server-" + self.base62(22)

    def session_key(self) -> str:
        return self.base62(30)


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


def text(value: str) -> dict[str, Any]:
    return {"cache_prompt": False, "type": "text", "text": value}


class ConversationBuilder:
    """Appends events to an in-memory log the way an agent server would write them.

    ``head`` is the event the next step hangs under. ``navigate(event_id)`` moves it back
    to an earlier event, so what follows becomes a sibling branch (as after the agent
    server's ``/navigate``).
    """

    def __init__(
        self,
        rng: random.Random,
        start: datetime,
        *,
        conversation_id: str,
        model: str = "litellm_proxy/claude-sonnet-4-5",
        workdir: str = "/workspace/project",
        price_in: float = 3e-6,
        price_out: float = 15e-6,
    ) -> None:
        self.rng = rng
        self.ids = SeededIds(rng)
        self.now = start
        self.conversation_id = conversation_id
        self.model = model
        self.workdir = workdir
        self.events: list[dict[str, Any]] = []
        self.head: str = ROOT_PARENT
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cache_read_tokens = 0
        self.cost = 0.0
        self.context_tokens = 0
        self.execution_status = "idle"
        self.last_user_message_id: str | None = None

    # -- primitives ---------------------------------------------------------------------------

    def tick(self, low_ms: float = 2, high_ms: float = 600) -> str:
        self.now += timedelta(
            microseconds=self.rng.randint(int(low_ms * 1000), int(high_ms * 1000))
        )
        return self.now.isoformat(timespec="microseconds")

    def emit(
        self,
        kind: str,
        body: dict[str, Any] | None = None,
        *,
        source: str | None = None,
        parent: str | None = None,
        move: bool = True,
        event_id: str | None = None,
        timestamp: str | None = None,
    ) -> str:
        """Append one event in SDK field order; ``move`` makes it the new head."""
        event_id = event_id or self.ids.uuid()
        event: dict[str, Any] = {
            "id": event_id,
            "timestamp": timestamp or self.tick(),
        }
        if source is not None:
            event["source"] = source
        event["parent_id"] = parent if parent is not None else self.head
        if body:
            event.update(body)
        event["kind"] = kind
        self.events.append(event)
        if move:
            self.head = event_id
        return event_id

    def navigate(self, event_id: str) -> None:
        self.head = event_id

    # -- state updates (non-viewable) -------------------------------------------------------

    def state(self, key: str, value: Any, *, earlier: bool = False) -> str:
        """A keyed ConversationStateUpdateEvent; ``earlier`` back-dates it slightly, like the
        stats updates a real server logs from another thread (log order != time order)."""
        stamp = None
        if earlier:
            stamp = (self.now - timedelta(microseconds=self.rng.randint(500, 9000))).isoformat(
                timespec="microseconds"
            )
        return self.emit(
            "ConversationStateUpdateEvent",
            {"key": key, "value": value},
            source="environment",
            move=False,
            timestamp=stamp,
        )

    def status(self, value: str) -> str:
        self.execution_status = value
        return self.state("execution_status", value)

    def metrics(self) -> dict[str, Any]:
        """MetricsSnapshot of the usage so far (for ``stats`` updates and conversation records)."""
        return {
            "model_name": self.model,
            "accumulated_cost": round(self.cost, 6),
            "max_budget_per_task": None,
            "accumulated_token_usage": {
                "model": self.model,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cache_read_tokens": self.cache_read_tokens,
                "cache_write_tokens": 0,
                "reasoning_tokens": 0,
                "context_window": 200000,
                "per_turn_token": 0,
                "response_id": "",
            },
        }

    def llm_call(self, prompt: int | None = None, completion: int | None = None) -> str:
        """Account one model call; returns its response id."""
        # The prompt is a fixed base plus the context carried over from earlier turns. That
        # context grows with each turn's output but is capped (condensation keeps it bounded),
        # so a long session costs dollars, not millions: it must not compound with the
        # accumulated total. (Same RNG draws as before, so seeded ids do not move.)
        prompt = prompt if prompt is not None else self.rng.randint(900, 4000) + self.context_tokens
        completion = completion if completion is not None else self.rng.randint(20, 400)
        self.context_tokens = min(self.context_tokens + completion + 300, MAX_CARRIED_CONTEXT)
        cached = int(prompt * 0.7)
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.cache_read_tokens += cached
        self.cost += (prompt - cached) * 3e-6 + cached * 0.3e-6 + completion * 15e-6
        return self.ids.response_id()

    def stats(self) -> str:
        return self.state("stats", {"usage_to_metrics": {"agent": self.metrics()}}, earlier=True)

    # -- conversation steps -----------------------------------------------------------------

    def system_prompt(self, dynamic_context: str | None = None) -> str:
        body: dict[str, Any] = {"system_prompt": text(SYSTEM_PROMPT), "tools": TOOLS}
        if dynamic_context:
            body["dynamic_context"] = text(dynamic_context)
        return self.emit("SystemPromptEvent", body, source="agent", parent=ROOT_PARENT)

    def user(self, message: str, *, parent: str | None = None, run: bool = True) -> str:
        if parent is not None:
            self.navigate(parent)
        event_id = self.emit(
            "MessageEvent",
            {
                "llm_message": {"role": "user", "content": [text(message)], "thinking_blocks": []},
                "activated_skills": [],
                "extended_content": [],
            },
            source="user",
        )
        self.last_user_message_id = event_id
        self.state("last_user_message_id", event_id)
        if run:
            self.status("running")
        return event_id

    def agent(
        self,
        message: str,
        *,
        reasoning: str | None = None,
        thinking: str | None = None,
        redacted: str | None = None,
    ) -> str:
        llm_message: dict[str, Any] = {"role": "assistant", "content": [text(message)]}
        blocks: list[dict[str, Any]] = []
        if thinking:
            blocks.append(
                {"type": "thinking", "thinking": thinking, "signature": self.ids.base62(48)}
            )
        if redacted:
            blocks.append({"type": "redacted_thinking", "data": redacted})
        if reasoning:
            llm_message["reasoning_content"] = reasoning
        llm_message["thinking_blocks"] = blocks
        event_id = self.emit(
            "MessageEvent",
            {
                "llm_message": llm_message,
                "llm_response_id": self.llm_call(),
                "activated_skills": [],
                "extended_content": [],
            },
            source="agent",
        )
        self.stats()
        return event_id

    def action(
        self,
        tool_name: str,
        action: dict[str, Any] | None,
        *,
        summary: str | None = None,
        thought: str = "",
        security_risk: str = "LOW",
        reasoning: str | None = None,
        thinking: str | None = None,
        response_id: str | None = None,
        arguments: dict[str, Any] | None = None,
        event_id: str | None = None,
    ) -> tuple[str, str]:
        """An ActionEvent; ``action=None`` is a non-executable call (unknown tool)."""
        call_id = self.ids.call_id()
        if arguments is None:
            arguments = {k: v for k, v in (action or {}).items() if k != "kind" and v is not None}
            if summary:
                arguments["summary"] = summary
            arguments["security_risk"] = security_risk
        body: dict[str, Any] = {"thought": [text(thought)] if thought else []}
        if reasoning:
            body["reasoning_content"] = reasoning
        body["thinking_blocks"] = (
            [{"type": "thinking", "thinking": thinking, "signature": self.ids.base62(48)}]
            if thinking
            else []
        )
        if action is not None:
            body["action"] = action
        body.update(
            {
                "tool_name": tool_name,
                "tool_call_id": call_id,
                "tool_call": {
                    "id": call_id,
                    "name": tool_name,
                    "arguments": json.dumps(arguments),
                    "origin": "completion",
                },
                "llm_response_id": response_id or self.llm_call(),
                "security_risk": security_risk if action is not None else "UNKNOWN",
            }
        )
        if summary:
            body["summary"] = summary
        return self.emit("ActionEvent", body, source="agent", event_id=event_id), call_id

    def observe(
        self, action_id: str, call_id: str, tool_name: str, observation: dict[str, Any]
    ) -> str:
        event_id = self.emit(
            "ObservationEvent",
            {
                "tool_name": tool_name,
                "tool_call_id": call_id,
                "observation": observation,
                "action_id": action_id,
                "extended_content": [],
            },
            source="environment",
        )
        return event_id

    def terminal_observation(self, command: str, output: str, exit_code: int) -> dict[str, Any]:
        return {
            "content": [text(output)],
            "is_error": False,
            "command": command,
            "exit_code": exit_code,
            "timeout": False,
            "metadata": {
                "exit_code": exit_code,
                "pid": -1,
                "username": "openhands",
                "hostname": "sandbox",
                "working_dir": self.workdir,
                "py_interpreter_path": "/usr/local/bin/python",
                "prefix": "",
                "suffix": f"\n[The command completed with exit code {exit_code}.]",
            },
            "full_output_save_dir": (
                f"/workspace/conversations/{self.conversation_id}/observations"
            ),
            "kind": "TerminalObservation",
        }

    def terminal(
        self,
        command: str,
        output: str,
        exit_code: int = 0,
        *,
        summary: str | None = None,
        thought: str = "",
        hook: bool = False,
        security_risk: str = "LOW",
        **extra: Any,
    ) -> tuple[str, str]:
        """TerminalAction + TerminalObservation (+ a PreToolUse hook run first if ``hook``)."""
        action = {"command": command, "is_input": False, "reset": False, "kind": "TerminalAction"}
        action_id = self.ids.uuid()
        if hook:
            self.hook("PreToolUse", "terminal", action_id, action)
        action_id, call_id = self.action(
            "terminal",
            action,
            summary=summary or f"Run {command.split()[0]}",
            thought=thought,
            security_risk=security_risk,
            event_id=action_id,
            **extra,
        )
        obs_id = self.observe(
            action_id, call_id, "terminal", self.terminal_observation(command, output, exit_code)
        )
        self.stats()
        return action_id, obs_id

    def hook(
        self,
        event_type: str,
        tool_name: str | None,
        action_id: str | None,
        tool_input: dict[str, Any] | None,
        *,
        command: str = "echo pre-hook-ok",
        blocked: bool = False,
        reason: str | None = None,
    ) -> str:
        body: dict[str, Any] = {
            "hook_event_type": event_type,
            "hook_command": command,
            "tool_name": tool_name,
            "success": not blocked,
            "blocked": blocked,
            "exit_code": 2 if blocked else 0,
            "stdout": "" if blocked else "pre-hook-ok\n",
            "stderr": (reason + "\n") if (blocked and reason) else "",
        }
        if reason:
            body["reason"] = reason
        if action_id:
            body["action_id"] = action_id
        if tool_input is not None:
            body["hook_input"] = {"tool_name": tool_name, "tool_input": tool_input}
        return self.emit("HookExecutionEvent", body, source="hook", move=False)

    def file_create(self, path: str, content: str, *, summary: str | None = None) -> str:
        action = {
            "command": "create",
            "path": path,
            "file_text": content,
            "kind": "FileEditorAction",
        }
        action_id, call_id = self.action(
            "file_editor",
            action,
            summary=summary or f"Create {path.rsplit('/', 1)[-1]}",
            security_risk="MEDIUM",
        )
        observation = {
            "content": [text(f"File created successfully at: {path}")],
            "is_error": False,
            "command": "create",
            "path": path,
            "prev_exist": False,
            "new_content": content,
            "kind": "FileEditorObservation",
        }
        obs_id = self.observe(action_id, call_id, "file_editor", observation)
        self.stats()
        return obs_id

    def file_replace(
        self,
        path: str,
        old_content: str,
        old: str,
        new: str,
        *,
        summary: str | None = None,
        thought: str = "",
    ) -> str:
        action = {
            "command": "str_replace",
            "path": path,
            "old_str": old,
            "new_str": new,
            "kind": "FileEditorAction",
        }
        action_id, call_id = self.action(
            "file_editor",
            action,
            summary=summary or f"Edit {path.rsplit('/', 1)[-1]}",
            thought=thought,
            security_risk="MEDIUM",
        )
        new_content = old_content.replace(old, new, 1)
        snippet = "\n".join(
            f"{n:6}\t{line}" for n, line in enumerate(new_content.splitlines()[:8], start=1)
        )
        observation = {
            "content": [
                text(
                    f"The file {path} has been edited. Here's the result of running `cat -n` on "
                    f"a snippet of {path}:\n{snippet}\nReview the changes and make sure they are "
                    "as expected. Edit the file again if necessary."
                )
            ],
            "is_error": False,
            "command": "str_replace",
            "path": path,
            "prev_exist": True,
            "old_content": old_content,
            "new_content": new_content,
            "kind": "FileEditorObservation",
        }
        obs_id = self.observe(action_id, call_id, "file_editor", observation)
        self.stats()
        return obs_id

    def file_view(self, path: str, content: str) -> str:
        action = {"command": "view", "path": path, "kind": "FileEditorAction"}
        action_id, call_id = self.action("file_editor", action, summary=f"View {path}")
        numbered = "\n".join(f"{n:6}\t{line}" for n, line in enumerate(content.splitlines(), 1))
        observation = {
            "content": [text(f"Here's the result of running `cat -n` on {path}:\n{numbered}\n")],
            "is_error": False,
            "command": "view",
            "path": path,
            "prev_exist": True,
            "kind": "FileEditorObservation",
        }
        obs_id = self.observe(action_id, call_id, "file_editor", observation)
        self.stats()
        return obs_id

    def plan(self, tasks: list[tuple[str, str, str]], *, thought: str = "") -> str:
        task_list = [{"title": t, "notes": n, "status": s} for t, n, s in tasks]
        action = {"command": "plan", "task_list": task_list, "kind": "TaskTrackerAction"}
        action_id, call_id = self.action(
            "task_tracker", action, summary="Plan the work", thought=thought
        )
        observation = {
            "content": [text(f"Task list has been updated with {len(task_list)} item(s).")],
            "is_error": False,
            "command": "plan",
            "task_list": task_list,
            "kind": "TaskTrackerObservation",
        }
        obs_id = self.observe(action_id, call_id, "task_tracker", observation)
        self.stats()
        return obs_id

    def think(self, thought: str, *, response_id: str | None = None) -> str:
        action = {"thought": thought, "kind": "ThinkAction"}
        action_id, call_id = self.action(
            "think",
            action,
            summary=f"think: {thought[:40]}",
            response_id=response_id,
            arguments={"thought": thought},
        )
        obs_id = self.observe(
            action_id,
            call_id,
            "think",
            {
                "content": [text("Your thought has been logged.")],
                "is_error": False,
                "kind": "ThinkObservation",
            },
        )
        return obs_id

    def finish(self, message: str) -> str:
        action = {"message": message, "kind": "FinishAction"}
        action_id, call_id = self.action(
            "finish", action, summary=f"finish: {message[:40]}", arguments={"message": message}
        )
        obs_id = self.observe(
            action_id,
            call_id,
            "finish",
            {"content": [text(message)], "is_error": False, "kind": "FinishObservation"},
        )
        self.status("finished")
        self.stats()
        return obs_id
