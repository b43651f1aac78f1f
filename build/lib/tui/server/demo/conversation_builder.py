"""Tool steps on top of :class:`EventsBuilder`: terminal, hooks, file edits, plans, thoughts,
finish: each one action and its observation, shaped like the captured runs."""

from __future__ import annotations

from typing import Any

from .events_builder import EventsBuilder, text


class ConversationBuilder(EventsBuilder):
    """Appends whole tool steps (action, observation, hooks) to the log."""

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
