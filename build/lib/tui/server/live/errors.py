"""Why a control request to a live conversation cannot be served (with its HTTP status)."""

from __future__ import annotations


class LiveError(Exception):
    """A control request that cannot be served; ``status`` is the HTTP status."""

    status = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class ConversationNotFound(LiveError):
    status = 404


class SandboxNotRunning(LiveError):
    status = 409

    def __init__(self, sandbox_status: str) -> None:
        super().__init__(f"Sandbox is not running (status {sandbox_status}); resume it first")
        self.sandbox_status = sandbox_status


class AlreadyRunning(LiveError):
    status = 409

    def __init__(self) -> None:
        super().__init__("Conversation already running. Wait for it to finish or pause it first.")
