"""Shared pytest fixtures.

Server fixtures run the bundled reference server (``tui.server``) under real uvicorn on
a loopback port; imports happen inside the fixtures so test modules that never use a
server do not pay for FastAPI/uvicorn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tui.server import RunningServer, Store


# -- reference server -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def demo_server() -> Iterator[RunningServer]:
    """One demo-data server per test session (in-memory store, open auth).

    Yields a ``RunningServer`` with ``.base_url``, ``.store`` and ``.app``. Shared by many
    tests: do not mutate its data; use ``make_server`` for anything that writes.
    """
    from tui.server import Store, load_demo, start_server

    store = Store()
    load_demo(store)
    server = start_server(store)
    try:
        yield server
    finally:
        server.stop()
        store.close()


@pytest.fixture
def make_server() -> Iterator[Callable[..., RunningServer]]:
    """Factory: ``make_server(store=None, session_key=None, **app_options)`` starts a fresh
    server (over a new in-memory store unless one is given); all are stopped at teardown.
    ``app_options`` are ``create_app`` keywords (``start_delay``, ``clock``, …)."""
    from tui.server import Store, start_server

    started: list[tuple[RunningServer, bool]] = []

    def factory(
        store: Store | None = None, session_key: str | None = None, **app_options: Any
    ) -> RunningServer:
        owned = store is None
        server = start_server(
            store if store is not None else Store(), session_key=session_key, **app_options
        )
        started.append((server, owned))
        return server

    yield factory
    for server, owned in reversed(started):
        server.stop()
        if owned:
            server.store.close()


@pytest.fixture
def live_server(make_server) -> Iterator[Callable[..., tuple[RunningServer, dict[str, str]]]]:
    """Factory: ``live_server(**app_options) -> (server, names)``: a writable demo server plus
    the live conversation (``names["live"]``, RUNNING sandbox, unanswered user message).

    Agent runs advance only by hand unless ``agent_pace`` is passed:
    ``server.live.step_sync(cid)`` / ``server.live.run_until_idle_sync(cid)`` (call them off
    the test's event loop, e.g. through ``asyncio.to_thread``); ``server.ws_url`` is the
    websocket base. Servers stop before their stores close."""
    from tui.server import Store, add_live_demo, load_demo

    started: list[tuple[RunningServer, Store]] = []

    def factory(**app_options: Any) -> tuple[RunningServer, dict[str, str]]:
        store = Store()
        names = load_demo(store)
        names["live"] = add_live_demo(store)
        server = make_server(store, **app_options)
        started.append((server, store))
        return server, names

    yield factory
    for server, store in reversed(started):
        server.stop()
        store.close()


# -- order: the longest tests first -------------------------------------------------------------

#: Files whose tests take seconds each (an app over a long conversation, subprocesses, the
#: fuzz campaign). xdist hands tests out in collection order: started first, they run while the
#: many short tests fill in around them, so both workers finish together instead of one waiting
#: for a long test picked up last.
LONG_FIRST = (
    "test_secrets.py",
    "test_fuzz.py",
    "test_install.py",
    "test_bench_smoke.py",
    "test_faults.py",
    "test_hostile_content.py",
    "test_app_flows.py",
    "test_snapshots_insights.py",
    "test_app_navigation.py",
    "test_long_operations.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep order
