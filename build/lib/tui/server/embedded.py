"""The demo server ``ohtui`` starts for itself when no ``--url`` is given."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from .demo import DEMO_PACE, load_live_demo
from .runner import start_server
from .store import Store


def start_demo_server(
    *,
    session_key: str | None = None,
    sock: socket.socket | None = None,
    clock: Callable[[], float] = time.time,
) -> tuple[str, Callable[..., None]]:
    """Start an in-memory demo server on a loopback port; returns ``(base_url, stop)``.

    Besides the demo dataset (moved to ``clock()``: updated minutes ago) its agent is always
    at work: a long session lap after lap, and now and then a short story in a fresh
    conversation (``live/autoplay.py``; a step every ``DEMO_PACE`` seconds or a few), so there
    is always a run to follow; every other conversation runs too when sent a message.
    ``sock``: a loopback socket reserved earlier (``demo_process.py``: the app's child). It answers
    only to loopback names (``loopback_guard.py``).
    """
    store = Store()
    names = load_live_demo(store, clock=clock)
    server = start_server(
        store,
        sock=sock,
        session_key=session_key,
        clock=clock,
        agent_pace=DEMO_PACE,
        autoplay=[names["live"]],
        looping=[names["loop"]],
        loopback_only=True,
    )

    def stop(*, server_too: bool = True) -> None:
        """Stop the server and close the store; ``server_too=False`` for a process about to
        exit at once, whose threads end with it: only the store's files go."""
        if server_too:
            server.stop()
        store.close()

    return server.base_url, stop
