"""The FastAPI application of the reference server.

Why a factory: tests, the embedded demo and ``ohtui serve`` each need their own store,
auth and timing, so everything is passed in and kept on ``app.state``; nothing is global.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.exceptions import RequestValidationError

from tui import __version__

from . import routes_agent, routes_conversations, routes_events, routes_sandboxes
from .common import require_session_key, validation_error_handler
from .lifecycle import Lifecycle
from .store import Store


def create_app(
    store: Store | None = None,
    *,
    session_key: str | None = None,
    start_delay: float = 1.0,
    sandbox_start_delay: float = 0.5,
    resume_delay: float = 0.0,
    shared_public_only: bool = False,
    clock: Callable[[], float] = time.time,
) -> FastAPI:
    """Build a server over ``store`` (a fresh in-memory one if omitted).

    - ``session_key``: when set, ``/api/v1/*`` and the agent-server routes
      (``/api/profiles``, ``/api/file``) need ``X-Session-API-Key`` or ``Authorization:
      Bearer``; ``/api/shared-events`` stays public.
    - ``start_delay``: seconds a start task takes from WORKING to READY.
    - ``sandbox_start_delay`` / ``resume_delay``: STARTING → RUNNING after a start / resume.
    - ``shared_public_only``: shared search only serves conversations with ``public: true``
      (the real rule); off by default so every demo conversation can be browsed.
    - ``clock``: seconds since the epoch, injectable for deterministic tests.
    """
    store = store if store is not None else Store()
    app = FastAPI(
        title="ohtui reference server",
        version=__version__,
        description="An OpenHands-style app server for ohtui's tests and demo (FastAPI + SQLite).",
    )
    app.state.store = store
    app.state.session_key = session_key or None
    app.state.options = {"shared_public_only": shared_public_only}
    app.state.lifecycle = Lifecycle(
        store,
        clock=clock,
        start_delay=start_delay,
        sandbox_start_delay=sandbox_start_delay,
        resume_delay=resume_delay,
    )
    app.add_exception_handler(RequestValidationError, validation_error_handler)  # type: ignore[arg-type]

    protected: list[Any] = [Depends(require_session_key)]
    app.include_router(routes_events.shared_router)
    app.include_router(routes_events.events_router, dependencies=protected)
    app.include_router(routes_conversations.router, dependencies=protected)
    app.include_router(routes_sandboxes.router, dependencies=protected)
    app.include_router(routes_sandboxes.specs_router, dependencies=protected)
    app.include_router(routes_agent.router, dependencies=protected)

    @app.get("/alive", include_in_schema=False)
    def alive() -> dict[str, str]:
        return {"status": "ok"}

    return app
