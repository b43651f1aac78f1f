"""What the board shows and how it keeps up: the ``[board]`` settings as the app uses them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Statuses a run ends in: shown only while recent (``recent_minutes``).
ENDED = frozenset({"error", "stuck", "finished", "idle"})
#: Statuses that need a human: their rows float to the top, marked.
ATTENTION = frozenset({"waiting_for_confirmation", "stuck", "error"})
#: Statuses worth a websocket: the ones that change by themselves.
FOLLOWED = frozenset({"running", "waiting_for_confirmation", "paused", "idle"})
#: Seconds a row stays (dimmed) after its conversation left the board's statuses, so a run
#: that finishes is seen finished before it goes.
LINGER_S = 60.0
#: Polled rows whose details (current step, steps, last error) are fetched per look at a
#: server; the visible ones first. Bounds the requests 200 rows cost.
DETAILS_PER_POLL = 24
#: Detail requests in flight at once, all servers together.
DETAILS_IN_FLIGHT = 6


@dataclass(frozen=True)
class BoardOptions:
    #: as ``config.board.BOARD_STATUSES``: what the board shows without a config file
    statuses: frozenset[str] = frozenset(
        {"running", "waiting_for_confirmation", "paused", "stuck", "error", "finished"}
    )
    recent_minutes: float = 60.0
    sockets: int = 20
    poll_seconds: float = 4.0
    scan: int = 500
    all_profiles: bool = False
    details_per_poll: int = DETAILS_PER_POLL
    linger_s: float = LINGER_S

    @classmethod
    def from_settings(cls, board: Any, *, all_profiles: bool | None = None) -> BoardOptions:
        """From the config's ``BoardSettings`` (``--all-profiles`` wins when given)."""
        return cls(
            statuses=frozenset(board.statuses),
            recent_minutes=board.recent_minutes,
            sockets=board.sockets,
            poll_seconds=board.poll_seconds,
            scan=board.scan,
            all_profiles=board.all_profiles if all_profiles is None else all_profiles,
        )
