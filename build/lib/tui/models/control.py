"""Control-plane records (app conversations, start tasks, sandboxes, specs), facts §2–4, §9.

These are open records: a real server adds fields over time and the client must keep
working, so unknown fields are kept rather than rejected.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from .base import OpenRecord


class SandboxStatus(StrEnum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    ERROR = "ERROR"
    MISSING = "MISSING"


class ExecutionStatus(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    PAUSED = "paused"
    WAITING_FOR_CONFIRMATION = "waiting_for_confirmation"
    FINISHED = "finished"
    ERROR = "error"
    STUCK = "stuck"
    DELETING = "deleting"


class StartTaskStatus(StrEnum):
    WORKING = "WORKING"
    WAITING_FOR_SANDBOX = "WAITING_FOR_SANDBOX"
    PREPARING_REPOSITORY = "PREPARING_REPOSITORY"
    RUNNING_SETUP_SCRIPT = "RUNNING_SETUP_SCRIPT"
    SETTING_UP_GIT_HOOKS = "SETTING_UP_GIT_HOOKS"
    SETTING_UP_SKILLS = "SETTING_UP_SKILLS"
    STARTING_CONVERSATION = "STARTING_CONVERSATION"
    READY = "READY"
    ERROR = "ERROR"


class TokenUsage(OpenRecord):
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    context_window: int = 0
    per_turn_token: int = 0
    response_id: str = ""


class MetricsSnapshot(OpenRecord):
    model_name: str = "default"
    accumulated_cost: float = 0.0
    max_budget_per_task: float | None = None
    accumulated_token_usage: TokenUsage | None = None


class AppConversation(OpenRecord):
    id: str
    created_by_user_id: str | None = None
    sandbox_id: str
    selected_repository: str | None = None
    selected_branch: str | None = None
    git_provider: str | None = None
    title: str | None = None
    trigger: str | None = None
    pr_number: list[int] = Field(default_factory=list)
    llm_model: str | None = None
    agent_kind: str = "openhands"
    metrics: MetricsSnapshot | None = None
    parent_conversation_id: str | None = None
    sub_conversation_ids: list[str] = Field(default_factory=list)
    public: bool | None = None
    tags: dict[str, str] = Field(default_factory=dict)
    #: a bare agent server's (issue 30): the fork's origin, the head, the policies by kind
    forked_from_conversation_id: str | None = None
    forked_from_event_id: str | None = None
    leaf_event_id: str | None = None
    confirmation_policy: str | None = None
    security_analyzer: str | None = None
    #: ``runtime_info`` (1.58): available, starting, missing, ownership_lost or error
    runtime_status: str | None = None
    can_resume: bool | None = None
    runtime_error: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    sandbox_status: SandboxStatus | str = SandboxStatus.MISSING
    execution_status: ExecutionStatus | str | None = None
    conversation_url: str | None = Field(default=None, repr=False)
    session_api_key: str | None = Field(default=None, repr=False)

    @field_validator("confirmation_policy", "security_analyzer", mode="before")
    @classmethod
    def _kind_only(cls, value: Any) -> str | None:
        """A policy or analyzer object is kept by its ``kind`` (its patterns are not shown)."""
        if isinstance(value, dict):
            value = value.get("kind")
        return value if isinstance(value, str) and value else None


class AppConversationPage(OpenRecord):
    items: list[AppConversation]
    next_page_id: str | None = None


class AppConversationStartTask(OpenRecord):
    id: str
    created_by_user_id: str | None = None
    status: StartTaskStatus | str = StartTaskStatus.WORKING
    detail: str | None = None
    app_conversation_id: str | None = None
    sandbox_id: str | None = None
    agent_server_url: str | None = None
    request: dict[str, Any] | None = None
    created_at: str | None = None
    updated_at: str | None = None


class AppConversationStartTaskPage(OpenRecord):
    items: list[AppConversationStartTask]
    next_page_id: str | None = None


class ExposedUrl(OpenRecord):
    name: str
    url: str = Field(repr=False)
    port: int


class SandboxInfo(OpenRecord):
    id: str
    created_by_user_id: str | None = None
    sandbox_spec_id: str
    status: SandboxStatus | str
    session_api_key: str | None = Field(default=None, repr=False)
    exposed_urls: list[ExposedUrl] | None = None
    created_at: str | None = None
    status_detail: str | None = None


class SandboxPage(OpenRecord):
    items: list[SandboxInfo]
    next_page_id: str | None = None


class SandboxSpecInfo(OpenRecord):
    id: str
    command: list[str] | None = None
    created_at: str | None = None
    initial_env: dict[str, str] = Field(default_factory=dict)
    working_dir: str = "/home/openhands/workspace"


class SandboxSpecPage(OpenRecord):
    items: list[SandboxSpecInfo]
    next_page_id: str | None = None
