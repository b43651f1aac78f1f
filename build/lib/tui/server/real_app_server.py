"""The real app server's behaviours, as reference-server options (facts §10).

openhands-ai 1.11.0 differs from the tidy reference server in ways a client must survive;
each is a ``create_app`` option, off by default, and :func:`real_app_server_options` turns
them all on with delays short enough for tests::

    server = make_server(store, **real_app_server_options())

- ``POST /api/v1/sandboxes`` answers only once the sandbox is RUNNING (26–29 s for real;
  ``sandbox_start_delay`` here), listing it as STARTING meanwhile; a second POST while the
  first waits starts a second sandbox;
- a conversation start task goes through every real status (:data:`REAL_START_STATUSES`),
  or ends ERROR with a ``detail`` (``start_failure``, or ``lifecycle.tasks.fail_next``);
- the title sent at creation is ignored ("Conversation xxxxx"); a PATCH sets it;
- live runs store their StreamingDeltaEvents and ``full_state`` updates (parent_id null) in
  the searchable history, and stats updates are stamped before the step they follow, so
  sorting by timestamp puts some before their parent.

More are asked for per test: ``server.app.state.faults.add("status_then_close", path)``
(500 text/plain without ``Connection: close``, then the connection closed: the next request
on it fails), ``server.lifecycle.pause_sandbox(id)`` / ``resume_sandbox`` /
``delete_sandbox`` (a sandbox changed elsewhere) and ``webhook_batch=5`` (the stored history
lags the sandbox's log by a batch until ``server.live.flush_webhook_sync(id)``).
"""

from __future__ import annotations

from typing import Any

from .start_tasks import REAL_START_STATUSES, real_start_phases

__all__ = ["REAL_START_STATUSES", "real_app_server_options"]


def real_app_server_options(*, sandbox_start: float = 0.3, start: float = 0.3) -> dict[str, Any]:
    """``create_app`` keywords for a server that behaves like openhands-ai 1.11.0:
    ``sandbox_start`` seconds for ``POST /api/v1/sandboxes``, ``start`` seconds for a start
    task from WORKING to READY (most of it WAITING_FOR_SANDBOX)."""
    return {
        "sync_sandbox_start": True,
        "sandbox_start_delay": sandbox_start,
        "start_phases": real_start_phases(start),
        "ignore_start_title": True,
        "store_transient_events": True,
        "shared_public_only": True,
    }
