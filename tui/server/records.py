"""Served shapes of control-plane records, time formats and opaque page ids.

Why one module: the JSON the routes return must look exactly like the real app server's
(field order and nulls included, see ``samples/openhands/constructed/app_server``), and the
same few time conversions are needed by the store, the lifecycle and the routes.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
from datetime import UTC, datetime
from typing import Any

from tui.models import SandboxStatus

# -- time -------------------------------------------------------------------------------------

_KEY_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"


def utc_text(moment: datetime) -> str:
    """``2026-08-20T09:15:03.123456Z``: how the app server writes record times."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime(_KEY_FORMAT) + "Z"


def utc_from_clock(seconds: float) -> str:
    return utc_text(datetime.fromtimestamp(seconds, UTC))


def event_time_from_clock(seconds: float) -> str:
    """A naive, server-local ISO timestamp with microseconds, as the SDK writes event times."""
    return datetime.fromtimestamp(seconds).isoformat(timespec="microseconds")


def sort_key(value: str | datetime) -> str:
    """A fixed-width UTC string that sorts like the time it names.

    Record times arrive as ISO strings (``Z``, offsets or naive = UTC) or datetimes; naive
    query datetimes are taken as UTC too.
    """
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime(_KEY_FORMAT)


def event_filter_time(value: datetime | None) -> str | None:
    """The string an event timestamp filter compares against.

    The real shared search compares ``value.isoformat()`` with the stored naive timestamp
    strings (facts §1a). A tz-aware value would carry an offset suffix that breaks that
    string comparison, so its tzinfo is dropped first (no conversion: the wall-clock digits
    are kept as given).
    """
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value.isoformat()


# -- opaque page ids --------------------------------------------------------------------------


class BadPageId(ValueError):
    """A ``page_id`` this server did not issue."""


def encode_page_id(kind: str, *parts: Any) -> str:
    """An opaque keyset token: urlsafe base64 of ``[kind, *parts]``, without padding."""
    raw = json.dumps([kind, *parts], separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_page_id(token: str, kind: str, types: tuple[type, ...]) -> tuple:
    """The keyset parts of a token made by :func:`encode_page_id` for ``kind``."""
    try:
        if len(token) > 2048:
            raise ValueError("too long")
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise BadPageId("not a page id issued by this server") from exc
    if (
        not isinstance(data, list)
        or len(data) != len(types) + 1
        or data[0] != kind
        or not all(
            isinstance(part, typ) and not isinstance(part, bool)
            for part, typ in zip(data[1:], types)
        )
    ):
        raise BadPageId("not a page id issued by this server for this listing")
    return tuple(data[1:])


# -- served records ---------------------------------------------------------------------------

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
