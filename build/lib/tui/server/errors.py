"""Why a control-plane operation cannot be done, with the HTTP status to answer."""

from __future__ import annotations


class LifecycleError(Exception):
    """A control operation that cannot be done; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
