"""Messages that workers post back to screens. Workers only do I/O and post these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class ConnectionFailed(Message):
    """The service could not be reached or refused us; the app shows the error screen."""

    error: BaseException
    retry: Any = None  # a zero-argument callable that retries the failed start-up


@dataclass
class OpenConversation(Message):
    conversation_id: str
    title: str | None = None
