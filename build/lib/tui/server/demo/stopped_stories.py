"""The demo's conversations that stopped: waiting for confirmation, failed, interrupted."""

from __future__ import annotations

from .conversation_builder import ConversationBuilder
from .events_builder import WORKDIR


def story_confirm(b: ConversationBuilder) -> None:
    """Confirmation mode: a user rejection, a hook block, and a pending confirmation."""
    b.system_prompt()
    b.user("Clean up the scratch dir and the old build artifacts.")
    rm = {
        "command": f"rm -rf {WORKDIR}/scratch",
        "is_input": False,
        "reset": False,
        "kind": "TerminalAction",
    }
    action_id, call_id = b.action(
        "terminal", rm, summary="Delete scratch dir", security_risk="HIGH"
    )
    b.status("waiting_for_confirmation")
    b.stats()
    b.status("idle")
    b.emit(
        "UserRejectObservation",
        {
            "tool_name": "terminal",
            "tool_call_id": call_id,
            "rejection_reason": "Too risky",
            "rejection_source": "user",
            "action_id": action_id,
        },
        source="environment",
    )
    b.user("OK — first show me what would be deleted.")
    b.terminal(
        f"du -sh {WORKDIR}/scratch {WORKDIR}/build",
        f"412M\t{WORKDIR}/scratch\n1.9G\t{WORKDIR}/build",
        summary="Measure the directories",
    )
    blocked = {
        "command": f"rm -rf {WORKDIR}/build",
        "is_input": False,
        "reset": False,
        "kind": "TerminalAction",
    }
    blocked_id = b.ids.uuid()
    reason = "Blocked by policy: recursive delete outside /tmp needs approval"
    b.hook(
        "PreToolUse",
        "terminal",
        blocked_id,
        blocked,
        command="./.openhands/hooks/guard-rm.sh",
        blocked=True,
        reason=reason,
    )
    blocked_id, blocked_call = b.action(
        "terminal", blocked, summary="Delete build dir", security_risk="HIGH", event_id=blocked_id
    )
    b.emit(
        "UserRejectObservation",
        {
            "tool_name": "terminal",
            "tool_call_id": blocked_call,
            "rejection_reason": reason,
            "rejection_source": "hook",
            "action_id": blocked_id,
        },
        source="environment",
    )
    b.stats()
    pending = {
        "command": f"find {WORKDIR}/scratch -name 'tmp-*' -delete",
        "is_input": False,
        "reset": False,
        "kind": "TerminalAction",
    }
    b.action(
        "terminal",
        pending,
        summary="Delete only tmp-* files in scratch",
        security_risk="MEDIUM",
        thought="Deleting only the temporary files is safer; asking for confirmation.",
    )
    b.status("waiting_for_confirmation")


def story_fail(b: ConversationBuilder) -> None:
    """A server-level error and a conversation-level error that stops the run."""
    b.system_prompt()
    b.user("Summarize the open issues labelled `bug` in acme/widgets.")
    b.stats()
    b.emit(
        "ServerErrorEvent",
        {
            "code": "MCPConnectionError",
            "detail": "Failed to connect to MCP server 'github' at http://127.0.0.1:8931/mcp: "
            "Connection refused",
        },
        source="environment",
        move=False,
    )
    b.terminal(
        "gh issue list --repo acme/widgets --label bug --limit 5",
        "#812  Crash when the config file is empty        bug  2d\n"
        "#799  Tooltip overlaps the close button          bug, ui  5d\n"
        "#774  Import fails on Windows paths with spaces  bug  9d",
        summary="List bug issues",
    )
    b.status("error")
    b.emit(
        "ConversationErrorEvent",
        {
            "code": "LLMServiceUnavailableError",
            "detail": "litellm.InternalServerError: InternalServerError: OpenAIException - "
            "upstream returned 500",
            "classification": {"kind": "transient", "retryable": True, "user_action": "retry"},
        },
        source="environment",
    )


def story_slow(b: ConversationBuilder) -> None:
    """ACP tool calls, an interrupt, streamed deltas, a pause."""
    b.system_prompt()
    b.user("Review the README and suggest improvements. Take your time.")
    b.emit(
        "ACPToolCallEvent",
        {
            "tool_call_id": "acp-call-1",
            "title": "Read README.md",
            "status": "completed",
            "tool_kind": "read",
            "raw_input": {"path": "README.md"},
            "raw_output": {"lines": 42},
            "content": [
                {"type": "content", "content": {"type": "text", "text": "# widgets\n\nA small …"}}
            ],
            "is_error": False,
        },
        source="agent",
    )
    b.emit(
        "ACPToolCallEvent",
        {
            "tool_call_id": "acp-call-2",
            "title": "Run `make docs`",
            "status": "failed",
            "tool_kind": "execute",
            "raw_input": {"command": "make docs"},
            "raw_output": {
                "exit_code": 2,
                "stderr": "make: *** No rule to make target 'docs'.  Stop.",
            },
            "is_error": True,
        },
        source="agent",
    )
    b.status("paused")
    b.emit("InterruptEvent", source="user")
    b.user("Try again please, and keep it short.")
    head = b.head
    for piece in ("Three ", "suggestions: ", "add a quick start, "):
        b.emit("StreamingDeltaEvent", {"content": piece}, source="agent", parent=head, move=False)
    b.agent(
        "Three suggestions: add a quick start, document the config file, and link the changelog."
    )
    b.status("finished")
    b.emit("PauseEvent", source="user")
    b.status("paused")
