"""Supporting objects shared by events: content blocks, messages, tool calls, critic results.

Real-data tolerances come from openhands-facts.md §7 only: ``enable_truncation`` in text
content and the legacy Message flags are stripped on load (the SDK does the same), and
``MessageToolCall.origin`` is accepted.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from .base import ClosedModel

LEGACY_TEXT_KEYS = frozenset({"enable_truncation"})
LEGACY_MESSAGE_KEYS = frozenset(
    {
        "cache_enabled",
        "vision_enabled",
        "function_calling_enabled",
        "force_string_serializer",
        "send_reasoning_content",
    }
)


def _strip(data: Any, keys: frozenset[str]) -> Any:
    if isinstance(data, dict) and not keys.isdisjoint(data):
        return {k: v for k, v in data.items() if k not in keys}
    return data


class SecurityRisk(StrEnum):
    UNKNOWN = "UNKNOWN"
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"


class TextContent(ClosedModel):
    cache_prompt: bool = False
    type: Literal["text"] = "text"
    text: str

    @model_validator(mode="before")
    @classmethod
    def _strip_legacy(cls, data: Any) -> Any:
        return _strip(data, LEGACY_TEXT_KEYS)


class ImageContent(ClosedModel):
    cache_prompt: bool = False
    type: Literal["image"] = "image"
    image_urls: list[str]


Content = Annotated[TextContent | ImageContent, Field(discriminator="type")]


class ThinkingBlock(ClosedModel):
    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None


class RedactedThinkingBlock(ClosedModel):
    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


AnyThinkingBlock = Annotated[ThinkingBlock | RedactedThinkingBlock, Field(discriminator="type")]


class ReasoningItemModel(ClosedModel):
    """OpenAI Responses reasoning item. ``encrypted_content`` round-trips but is never shown."""

    id: str | None = None
    summary: list[str] = Field(default_factory=list)
    content: list[str] | None = None
    encrypted_content: str | None = Field(default=None, repr=False)
    status: str | None = None

    def __str__(self) -> str:  # never leak encrypted_content through str()
        return repr(self)


class MessageToolCall(ClosedModel):
    id: str
    responses_item_id: str | None = None
    name: str
    arguments: str
    origin: Literal["completion", "responses"]


class Message(ClosedModel):
    role: Literal["user", "system", "assistant", "tool"]
    content: list[Content] = Field(default_factory=list)
    tool_calls: list[MessageToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    reasoning_content: str | None = None
    thinking_blocks: list[AnyThinkingBlock] = Field(default_factory=list)
    responses_reasoning_item: ReasoningItemModel | None = None

    @model_validator(mode="before")
    @classmethod
    def _strip_legacy(cls, data: Any) -> Any:
        return _strip(data, LEGACY_MESSAGE_KEYS)

    @property
    def text(self) -> str:
        """The message's text blocks joined; images are left out."""
        return "\n".join(c.text for c in self.content if isinstance(c, TextContent))


class CriticResult(ClosedModel):
    score: float = Field(ge=0.0, le=1.0)
    message: str | None
    metadata: dict[str, Any] | None = None


class ErrorClassification(ClosedModel):
    """``classification`` on agent/conversation errors (SDK >= 1.40, facts §7)."""

    kind: Literal[
        "auth", "quota", "rate_limit", "config", "transient", "agent_action", "internal", "unknown"
    ]
    retryable: bool
    user_action: Literal["none", "retry", "settings"] = "none"
    error_id: str | None = None


def block_texts(blocks: Iterable[object] | None, sep: str = "\n") -> str:
    """The words of a list of content blocks (images have none), joined by ``sep``."""
    if not blocks:  # most thoughts are empty: no list for them
        return ""
    return sep.join([b.text for b in blocks if isinstance(b, TextContent)])
