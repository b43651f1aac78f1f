"""Route dependencies: the app's store and lifecycle, taken from ``app.state``."""

from __future__ import annotations

from fastapi import Request

from .lifecycle import Lifecycle
from .store import Store


def get_store(request: Request) -> Store:
    return request.app.state.store


def advanced_lifecycle(request: Request) -> Lifecycle:
    """The lifecycle, with every due transition applied (for control-plane reads)."""
    lifecycle: Lifecycle = request.app.state.lifecycle
    lifecycle.advance()
    return lifecycle
