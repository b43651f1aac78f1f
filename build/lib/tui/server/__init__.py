"""The bundled reference server: an OpenHands-style app server over SQLite.

It speaks the real service's paths, parameters, status codes and JSON shapes (see
``shared/spec``) so the client and the TUI can be tested end to end, and ``ohtui`` can run
with a demo dataset when no server is named. It imports ``tui.models`` only.

Entry points: :func:`create_app`, :class:`Store`, :class:`ServerThread`,
:func:`start_server`, :func:`load_demo`, :func:`add_live_demo`, :func:`generate_conversation`;
live agent runs and the websocket stream: :class:`LiveHub` (``live/``, ``routes_live.py``).
"""

from typing import TYPE_CHECKING

from tui.lazy import lazy_getattr

# loaded on first use (PEP 562): ``ohtui`` looks for local conversation folders
# (``folders.py``) before its first frame, and that must not import FastAPI
_LAZY = {
    "create_app": ".app",
    "add_live_demo": ".demo",
    "add_state_update_stretch": ".demo",
    "generate_conversation": ".demo",
    "load_demo": ".demo",
    "LiveHub": ".live",
    "RunningServer": ".runner",
    "ServerThread": ".runner",
    "start_server": ".runner",
    "Store": ".store",
}

if TYPE_CHECKING:
    from .app import create_app
    from .demo import add_live_demo, add_state_update_stretch, generate_conversation, load_demo
    from .live import LiveHub
    from .runner import RunningServer, ServerThread, start_server
    from .store import Store


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


__all__ = [
    "LiveHub",
    "RunningServer",
    "ServerThread",
    "Store",
    "add_live_demo",
    "add_state_update_stretch",
    "create_app",
    "generate_conversation",
    "load_demo",
    "start_server",
]
