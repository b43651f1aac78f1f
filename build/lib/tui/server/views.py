"""Served shapes of control-plane records: conversations and sandboxes.

The JSON the routes return must look exactly like the real app server's (field order and
nulls included, see ``samples/openhands/constructed/app_server``); the stored records hold
what does not change with a sandbox's status, and the views add what does.
"""

from __future__ import annotations

import copy
from typing import Any

from tui.models import SandboxStatus

#: Field order of the served AppConversation (``constructed/app_server/app_conversation_page.json``).
CONVERSATION_INFO_FIELDS = (
    "id",
    "created_by_user_id",
    "sandbox_id",
    "selected_repository",
    "selected_branch",
    "git_provider",
    "title",
    "trigger",
    "pr_number",
    "llm_model",
    "agent_kind",
    "metrics",
    "parent_conversation_id",
    "sub_conversation_ids",
    "public",
    "tags",
    "created_at",
    "updated_at",
)
_INFO_DEFAULTS: dict[str, Any] = {
    "pr_number": [],
    "agent_kind": "openhands",
    "sub_conversation_ids": [],
    "tags": {},
}


def conversation_info(**fields: Any) -> dict[str, Any]:
    """A complete AppConversationInfo record (every field present, defaults filled)."""
    info = {}
    for name in CONVERSATION_INFO_FIELDS:
        info[name] = fields.pop(name) if name in fields else copy.copy(_INFO_DEFAULTS.get(name))
    info["execution_status"] = fields.pop("execution_status", None)
    if fields:
        raise TypeError(f"unknown conversation fields: {sorted(fields)}")
    return info


def conversation_view(
    info: dict[str, Any], sandbox: dict[str, Any] | None, sub_ids: list[str]
) -> dict[str, Any]:
    """The served AppConversation: stored info plus the live status fields of its sandbox.

    ``execution_status``, ``conversation_url`` and ``session_api_key`` are only given while
    the sandbox is RUNNING (facts §2, §9); a deleted sandbox reads as MISSING.
    """
    out = {name: info.get(name) for name in CONVERSATION_INFO_FIELDS}
    out["sub_conversation_ids"] = sub_ids
    status = sandbox["status"] if sandbox else SandboxStatus.MISSING.value
    running = status == SandboxStatus.RUNNING.value
    out["sandbox_status"] = status
    out["execution_status"] = info.get("execution_status") if running else None
    out["conversation_url"] = f"/api/conversations/{info['id']}" if running else None
    out["session_api_key"] = sandbox.get("session_api_key") if running and sandbox else None
    out["acp_server"] = None
    out["launched_agent_profile"] = None
    return out


def exposed_urls(sandbox: dict[str, Any], working_dir: str) -> list[dict[str, Any]]:
    """The four exposed URLs of a running sandbox (fake local ports; VSCODE carries the key)."""
    port, key = sandbox["port"], sandbox.get("session_api_key") or ""
    return [
        {"name": "AGENT_SERVER", "url": f"http://localhost:{port}", "port": 8000},
        {
            "name": "VSCODE",
            "url": f"http://localhost:{port + 1}/?tkn={key}&folder={working_dir}",
            "port": 8001,
        },
        {"name": "WORKER_1", "url": f"http://localhost:{port + 2}", "port": 8011},
        {"name": "WORKER_2", "url": f"http://localhost:{port + 3}", "port": 8012},
    ]


def sandbox_view(sandbox: dict[str, Any], working_dir: str) -> dict[str, Any]:
    """The served SandboxInfo: key and URLs only while RUNNING (null otherwise)."""
    running = sandbox["status"] == SandboxStatus.RUNNING.value
    return {
        "id": sandbox["id"],
        "created_by_user_id": sandbox.get("created_by_user_id"),
        "sandbox_spec_id": sandbox["sandbox_spec_id"],
        "status": sandbox["status"],
        "session_api_key": sandbox.get("session_api_key") if running else None,
        "exposed_urls": exposed_urls(sandbox, working_dir) if running else None,
        "created_at": sandbox["created_at"],
        "status_detail": sandbox.get("status_detail"),
    }
