"""``ohtui serve``: the reference server in the foreground.

Loopback by default, and then it answers only to loopback names (``loopback_guard.py``). A
non-loopback host is bound only when it is passed explicitly (it never comes from a default
or the environment), and without a session key the server says loudly that its control API
is open to the network.

The session key comes from ``--session-key-file`` or ``OHTUI_SESSION_KEY`` (or, visible to
every local user in the process list, ``--session-key``).
"""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
from collections.abc import Mapping

from tui.text import say
from tui.untrusted_files import FileRefused, read_text

from .runner import LOOPBACK, bind_socket, is_loopback, url_for

ENV_KEY = "OHTUI_SESSION_KEY"
MAX_KEY_FILE_BYTES = 64 * 1024


class SessionKeyError(ValueError):
    """The session key cannot be had as asked (the message names the flag, file or variable)."""


def resolve_session_key(
    flag: str | None, key_file: str | None, environ: Mapping[str, str] = os.environ
) -> tuple[str | None, str | None, list[str]]:
    """``(key, where it came from, warnings)``: the flag, else the file, else the variable.

    Raises :class:`SessionKeyError` for a file that cannot be read or holds no key, or for both
    flag and file. The key itself never appears in a message."""
    warnings: list[str] = []
    if flag is not None and key_file is not None:
        raise SessionKeyError("give --session-key or --session-key-file, not both")
    if flag is not None:
        if not flag.strip():
            raise SessionKeyError("--session-key is empty")
        warnings.append(
            "--session-key is visible to every local user in the process list;"
            f" prefer {ENV_KEY} or --session-key-file"
        )
        return flag.strip(), "--session-key", warnings
    if key_file is not None:
        try:  # a FIFO or a device is never opened, nor more than 64 KiB read
            text, mode = read_text(key_file, MAX_KEY_FILE_BYTES)
        except FileRefused as exc:
            raise SessionKeyError(f"cannot read --session-key-file {key_file}: {exc}") from None
        key = text.strip()
        if not key or "\n" in key:
            raise SessionKeyError(f"--session-key-file {key_file} must hold the key on one line")
        if os.name == "posix" and stat.S_IMODE(mode) & 0o077:
            warnings.append(f"{key_file} is readable by other users; chmod 600 it")
        return key, key_file, warnings
    env = environ.get(ENV_KEY)
    if env is not None and env.strip():
        return env.strip(), ENV_KEY, warnings
    return None, None, warnings


def serve_main(
    host: str | None,
    port: int,
    db: str | None,
    demo: bool,
    session_key: str | None,
    *,
    chaos: float = 0.0,
    session_key_file: str | None = None,
    agents: int = 0,
    environ: Mapping[str, str] = os.environ,
) -> int:
    """Run until interrupted; prints the URL (and the demo conversation ids). Exit status.

    ``session_key`` (the flag), ``session_key_file`` and ``OHTUI_SESSION_KEY`` in
    ``environ``, in that order, give the key (:func:`resolve_session_key`). Agent runs step
    every ``DEMO_PACE`` seconds; with ``--demo`` the demo's long session loops and its short
    stories play one after another;
    ``agents`` simulated agents work at once besides (``live/swarm.py``)."""
    import uvicorn

    from .app import create_app
    from .demo import DEMO_PACE, load_live_demo
    from .faults import Faults, with_connection_faults
    from .store import Store

    try:
        session_key, key_source, warnings = resolve_session_key(
            session_key, session_key_file, environ
        )
    except SessionKeyError as exc:
        say(f"ohtui serve: {exc}", file=sys.stderr)
        return 2
    for warning in warnings:
        say(f"ohtui serve: warning: {warning}", file=sys.stderr)
    host = host or LOOPBACK
    if not is_loopback(host):
        say(
            f"ohtui serve: binding {host}, reachable from other machines"
            + ("" if session_key else " with NO authentication (pass --session-key)"),
            file=sys.stderr,
        )
    try:
        store = Store(db or ":memory:")
    except (sqlite3.Error, OSError) as exc:
        say(f"ohtui serve: cannot open database {db!r}: {exc}", file=sys.stderr)
        return 2
    names: dict[str, str] = {}
    if demo:
        if store.conversation_ids():
            say(
                "ohtui serve: database already has conversations; demo data not loaded",
                file=sys.stderr,
            )
        else:
            names = load_live_demo(store)
    try:
        sock = bind_socket(host, port)
    except OSError as exc:
        say(f"ohtui serve: cannot bind {host}:{port}: {exc}", file=sys.stderr)
        store.close()
        return 2
    url = url_for(host, sock.getsockname()[1])
    say(
        f"ohtui reference server on {url}"
        + (f" (session key required, from {key_source})" if session_key else "")
    )
    for name, conversation_id in names.items():
        say(f"  {name:<9} {conversation_id}")
    sys.stdout.flush()
    if chaos:
        say(f"  chaos: about {chaos:.0%} of API GETs fail on purpose")
    if agents:
        say(f"  agents    {agents} simulated agents at work (the board: ohtui --url {url}, key 3)")
    sys.stdout.flush()
    app = create_app(
        store,
        session_key=session_key,
        agent_pace=DEMO_PACE,
        autoplay=[names["live"]] if "live" in names else (),
        looping=[names["loop"]] if "loop" in names else (),
        faults=Faults(chaos_rate=chaos),
        loopback_only=is_loopback(host),
        agents=agents,
    )
    config = uvicorn.Config(
        with_connection_faults(app), log_level="warning", access_log=False, lifespan="on"
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        store.close()
    return 0
