"""The demo server ``ohtui`` starts for itself when no ``--url`` is given."""

from __future__ import annotations

import socket
from collections.abc import Callable

from .demo import DEMO_PACE, add_live_demo, load_demo
from .runner import start_server
from .store import Store


def start_demo_server(
    *, session_key: str | None = None, sock: socket.socket | None = None
) -> tuple[str, Callable[..., None]]:
    """Start an in-memory demo server on a loopback port; returns ``(base_url, stop)``.

    Besides the fixed demo dataset it has a live conversation whose agent works through one
    request (a step every ``DEMO_PACE`` seconds) and, after a rest, the next story in a fresh
    conversation (``autoplay``), so there is always a run to follow; every other conversation
    runs too when sent a message.
    ``sock``: a loopback socket reserved earlier (``demo_process.py``: the app's child). It answers
    only to loopback names (``loopback_guard.py``).
    """
    store = Store()
    load_demo(store)
    live_id = add_live_demo(store)
    server = start_server(
        store,
        sock=sock,
        session_key=session_key,
        agent_pace=DEMO_PACE,
        autoplay=[live_id],
        loopback_only=True,
    )

    def stop(*, server_too: bool = True) -> None:
        """Stop the server and close the store; ``server_too=False`` for a process about to
        exit at once, whose threads end with it: only the store's files go."""
        if server_too:
            server.stop()
        store.close()

    return server.base_url, stop
