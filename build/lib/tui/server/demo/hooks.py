"""The hook configuration the demo's conversations log (a PreToolUse hook on terminal)."""

from __future__ import annotations

HOOK_CONFIG = {
    "pre_tool_use": [
        {
            "matcher": "terminal",
            "hooks": [
                {
                    "type": "command",
                    "command": "echo pre-hook-ok",
                    "tools": [],
                    "timeout": 60,
                    "max_iterations": 3,
                    "async_": False,
                }
            ],
        }
    ],
    "post_tool_use": [],
    "user_prompt_submit": [],
    "session_start": [],
    "session_end": [],
    "stop": [],
}
