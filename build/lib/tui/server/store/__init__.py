"""SQLite persistence for the reference server: event logs and control-plane records.

Why SQLite: a single dependency-free file (or ``:memory:``) that can answer any page of a
100,000-event log through an index, so a deep page costs what the first one does. The
store knows shapes and queries only; time-driven behaviour lives in ``lifecycle.py`` and
the HTTP mapping in the ``routes_*`` modules.

``base.py`` holds the connection and its lock, ``event_log.py`` the event logs,
``control_plane.py`` conversations, sandboxes, specs and start tasks.
"""

from __future__ import annotations

from .base import EventRow, dumps, like_pattern
from .control_plane import ControlPlane
from .event_log import EventLog


class Store(EventLog, ControlPlane):
    """All persistent state of one reference server.

    ``path`` is a file name or ``":memory:"``. Profiles and created directories are kept in
    memory only (``profiles``, ``directories``); only a ``workspace`` (the demo's git
    repository, in a temporary folder of its own) is on disk.
    """


__all__ = ["ControlPlane", "EventLog", "EventRow", "Store", "dumps", "like_pattern"]
