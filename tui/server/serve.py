"""``ohtui serve``: the reference server in the foreground.

Loopback by default. A non-loopback host is bound only when it is passed explicitly (it
never comes from a default or the environment), and without a session key the server
says loudly that its control API is open to the network.
"""

from __future__ import annotations

import sqlite3
import sys

from .runner import LOOPBACK, bind_socket, is_loopback, url_for


def serve_main(
    host: str | None,
    port: int,
    db: str | None,
    demo: bool,
    session_key: str | None,
    *,
    chaos: float = 0.0,
) -> int:
    """Run until interrupted; prints the URL (and the demo conversation ids). Exit status.

    Agent runs step every ``DEMO_PACE`` seconds; with ``--demo`` the ``live`` conversation
    is kept busy forever (``autoplay``)."""
    import uvicorn

    from .app import create_app
    from .demo import DEMO_PACE, add_live_demo, load_demo
    from .faults import Faults
    from .store import Store

    host = host or LOOPBACK
    if not is_loopback(host):
        print(
            f"ohtui serve: binding {host}, reachable from other machines"
            + ("" if session_key else " with NO authentication (pass --session-key)"),
            file=sys.stderr,
        )
    try:
        store = Store(db or ":memory:")
    except (sqlite3.Error, OSError) as exc:
        print(f"ohtui serve: cannot open database {db!r}: {exc}", file=sys.stderr)
        return 2
    names: dict[str, str] = {}
    if demo:
        if store.conversation_ids():
            print(
                "ohtui serve: database already has conversations; demo data not loaded",
                file=sys.stderr,
            )
        else:
            names = load_demo(store)
            names["live"] = add_live_demo(store)
    try:
        sock = bind_socket(host, port)
    except OSError as exc:
        print(f"ohtui serve: cannot bind {host}:{port}: {exc}", file=sys.stderr)
        store.close()
        return 2
    url = url_for(host, sock.getsockname()[1])
    print(f"ohtui reference server on {url}" + (" (session key required)" if session_key else ""))
    for name, conversation_id in names.items():
        print(f"  {name:<9} {conversation_id}")
    sys.stdout.flush()
    if chaos:
        print(f"  chaos: about {chaos:.0%} of API GETs fail on purpose")
    app = create_app(
        store,
        session_key=session_key,
        agent_pace=DEMO_PACE,
        autoplay=[names["live"]] if "live" in names else (),
        faults=Faults(chaos_rate=chaos),
    )
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        store.close()
    return 0
