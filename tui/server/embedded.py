"""The demo server ``ohtui`` starts for itself when no ``--url`` is given."""

from __future__ import annotations

from collections.abc import Callable

from .demo import load_demo
from .runner import start_server
from .store import Store


def start_demo_server(*, session_key: str | None = None) -> tuple[str, Callable[[], None]]:
    """Start an in-memory demo server on a loopback port; returns ``(base_url, stop)``."""
    store = Store()
    load_demo(store)
    server = start_server(store, session_key=session_key)

    def stop() -> None:
        server.stop()
        store.close()

    return server.base_url, stop
