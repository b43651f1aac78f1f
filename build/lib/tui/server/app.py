"""The FastAPI application of the reference server.

Why a factory: tests, the embedded demo and ``ohtui serve`` each need their own store,
auth and timing, so everything is passed in and kept on ``app.state``; nothing is global.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI
from fastapi.exceptions import RequestValidationError

from tui import __version__

from . import (
    routes_acting,
    routes_agent,
    routes_conversations,
    routes_events,
    routes_live,
    routes_profiles,
    routes_sandboxes,
    routes_workspace,
    routes_workspace_served,
)
from .auth import require_session_key
from .faults import FaultMiddleware, Faults
from .lifecycle import Lifecycle
from .limits import MAX_BODY, BodyLimitMiddleware
from .live import MAX_SUBSCRIBERS, LiveHub
from .loopback_guard import LoopbackGuardMiddleware
from .read_only import ReadOnlyMiddleware
from .responses import validation_error_handler
from .start_tasks import Phases
from .store import Store


def create_app(
    store: Store | None = None,
    *,
    session_key: str | None = None,
    start_delay: float = 1.0,
    sandbox_start_delay: float = 0.5,
    resume_delay: float = 0.0,
    shared_public_only: bool = True,
    clock: Callable[[], float] = time.time,
    agent_pace: float | None = None,
    autoplay: Iterable[str] = (),
    looping: Iterable[str] = (),
    ws_auth_timeout: float = 10.0,
    ws_max_subscribers: int = MAX_SUBSCRIBERS,
    faults: Faults | None = None,
    max_body: int = MAX_BODY,
    read_only: bool | None = None,
    loopback_only: bool = False,
    sync_sandbox_start: bool = False,
    start_phases: Phases | None = None,
    ignore_start_title: bool = False,
    start_failure: tuple[str, str] | None = None,
    store_transient_events: bool = False,
    webhook_batch: int | None = None,
    kind: str = "app",
    agents: int = 0,
    relative_working_dir: bool = False,
) -> FastAPI:
    """Build a server over ``store`` (a fresh in-memory one if omitted).

    - ``session_key``: when set, ``/api/v1/*`` and the agent-server routes
      (``/api/profiles``, ``/api/file``) need ``X-Session-API-Key`` or ``Authorization:
      Bearer``; ``/api/shared-events`` stays public.
    - ``start_delay``: seconds a start task takes from WORKING to READY.
    - ``sandbox_start_delay`` / ``resume_delay``: STARTING → RUNNING after a start / resume.
    - ``shared_public_only``: shared search only serves conversations with ``public: true``
      (the real rule, the default); off serves every conversation (for tests of the shared
      routes' paging over data that is not marked public).
    - ``clock``: seconds since the epoch, injectable for deterministic tests (also the
      source of live event timestamps).
    - ``agent_pace``: seconds between two steps of a live agent run (``live/``); ``None``
      (default) = no autonomous runs: a running conversation advances only when a test calls
      ``app.state.live.step_sync(conversation_id)``.
    - ``autoplay``: conversations the demo's agent plays (``live/autoplay.py``): each runs
      its request to the end, then, after a rest, the next story starts as a fresh
      conversation; needs ``agent_pace``. The demo (``start_demo_server``) uses it.
    - ``looping``: conversations whose long session the demo plays lap after lap, each lap
      in a fresh conversation started as the one before wraps up: one is always running
      (``live/autoplay.py``); needs ``agent_pace``.
    - ``ws_auth_timeout``: seconds a websocket has to send its ``auth`` frame (10, as real).
    - ``ws_max_subscribers``: websocket subscribers per conversation (50, as real).
    - ``faults``: the fault queue (``faults.py``); a fresh, empty one if omitted, so tests can
      always reach ``app.state.faults``.
    - ``max_body``: request bodies over this many bytes get 413 (``limits.py``).
    - ``read_only``: refuse every request that is not a read (405, ``read_only.py``); by
      default on when the store says so (``FolderStore``: local folders are never written to).
    - Behaviours of the real app server (openhands-ai 1.11.0, facts §10), each off by
      default; ``real_app_server.real_app_server_options()`` turns them all on:
      ``sync_sandbox_start`` (``POST /api/v1/sandboxes`` answers only once the sandbox is
      RUNNING, after ``sandbox_start_delay``; a second POST meanwhile starts a second one);
      ``start_phases`` (the start task's statuses and their durations, ``start_tasks.py``);
      ``ignore_start_title`` (the title sent at creation is ignored: "Conversation xxxxx");
      ``start_failure`` (``(status, detail)``: every start task goes ERROR there);
      ``store_transient_events`` (live runs also store their StreamingDeltaEvents and
      ``full_state`` updates, parent_id null, in the searchable history).
    - ``webhook_batch``: the app server's history of a live run is filled this many events
      at a time, late, as the real agent server's webhook posts them; the rest only when a
      test calls ``app.state.live.flush_webhook_sync`` (``live/webhook.py``). Off (None) by
      default, and not among the real options above: nothing here flushes by itself.
    - ``loopback_only``: answer only requests that name the server by a loopback name and come
      from no foreign web origin (``loopback_guard.py``: DNS rebinding, cross-site posts); on
      for every server ``ohtui`` starts for itself.
    - ``kind``: ``"app"`` (default) serves the app server's routes; ``"agent"`` a bare agent
      server's instead (``routes_agent_server.py``: no ``/api/v1``, no shared routes).
    - ``agents``: add this many simulated agents, each working through stories in its own
      conversation on its own sandbox, all at once (``live/swarm.py``; the board's demo and
      benchmark); they step every ``agent_pace`` seconds (the demo's pace if not given).
    - ``relative_working_dir``: the sandboxes' records name their workspace ``"."``, as the
      app server 1.11.0's process sandboxes do (app kind only): the git routes then take
      paths relative to the workspace (the sandbox's own folder), the server-wide file routes
      still refuse them (400 "Path must be absolute"), and a file is read by a relative path
      only through ``/api/conversations/{id}/workspace/{path}`` (``routes_workspace_served``).

    The agent-server routes (websocket ``/sockets/events/{id}``, ``/api/conversations/{id}/
    events|run|pause|interrupt|events/respond_to_confirmation``) authenticate with the
    conversation's sandbox key or ``session_key`` (see ``routes_live.py``).
    """
    if kind not in ("app", "agent"):
        raise ValueError(f"kind must be 'app' or 'agent', got {kind!r}")
    if relative_working_dir and kind != "app":
        raise ValueError("relative_working_dir is a behaviour of an app server's sandboxes")
    store = store if store is not None else Store()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await app.state.live.startup()
        try:
            yield
        finally:
            await app.state.live.shutdown()

    app = FastAPI(
        title="ohtui reference server",
        version=__version__,
        description="An OpenHands-style app server for ohtui's tests and demo (FastAPI + SQLite).",
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.session_key = session_key or None
    app.state.options = {
        "shared_public_only": shared_public_only,
        "sync_sandbox_start": sync_sandbox_start,
        "relative_working_dir": relative_working_dir,
    }
    app.state.lifecycle = Lifecycle(
        store,
        clock=clock,
        start_delay=start_delay,
        sandbox_start_delay=sandbox_start_delay,
        resume_delay=resume_delay,
        start_phases=start_phases,
        ignore_start_title=ignore_start_title,
        start_failure=start_failure,
    )
    swarm: list[str] = []
    if agents:
        from .live.swarm import add_swarm

        swarm = add_swarm(store, app.state.lifecycle, agents, clock=clock)
        if agent_pace is None:
            from .demo import DEMO_PACE

            agent_pace = DEMO_PACE
    app.state.swarm = swarm
    app.state.live = LiveHub(
        store,
        app.state.lifecycle,
        pace=agent_pace,
        autoplay=autoplay,
        looping=looping,
        auth_timeout=ws_auth_timeout,
        max_subscribers=ws_max_subscribers,
        session_key=app.state.session_key,
        store_transient=store_transient_events,
        webhook_batch=webhook_batch,
        swarm=swarm,
    )
    app.state.faults = faults if faults is not None else Faults()
    # outermost first: a body limit applies even to requests a fault would answer
    app.add_middleware(FaultMiddleware, faults=app.state.faults)
    app.add_middleware(BodyLimitMiddleware, limit=max_body)
    app.state.read_only = getattr(store, "read_only", False) if read_only is None else read_only
    if app.state.read_only:
        app.add_middleware(ReadOnlyMiddleware)
    if loopback_only:  # added last: outermost, before anything else looks at the request
        app.add_middleware(LoopbackGuardMiddleware)
    app.add_exception_handler(RequestValidationError, validation_error_handler)  # type: ignore[arg-type]

    protected: list[Any] = [Depends(require_session_key)]
    if kind == "agent":
        from . import routes_agent_server

        routes_agent_server.install(app, protected)
        routes_acting.install_agent(app, protected)  # fork, navigate
    else:
        app.include_router(routes_events.shared_router)
        app.include_router(routes_events.events_router, dependencies=protected)
        app.include_router(routes_conversations.router, dependencies=protected)
        app.include_router(routes_sandboxes.router, dependencies=protected)
        app.include_router(routes_sandboxes.specs_router, dependencies=protected)
        app.include_router(routes_live.log_router)  # each sandbox's agent server has it
    app.include_router(routes_agent.router, dependencies=protected)
    routes_profiles.install(app, protected)  # list, save, rename, delete, activate, switch
    app.include_router(routes_live.router)  # its own auth: sandbox key or session_key
    routes_acting.install_live(app)  # ask_agent, policies: every agent server's
    routes_workspace.install(app, protected, kind=kind)  # git and files of the workspace
    routes_workspace_served.install(app)  # a workspace's files by relative path

    @app.get("/alive", include_in_schema=False)
    def alive() -> dict[str, str]:
        return {"status": "ok"}

    return app
